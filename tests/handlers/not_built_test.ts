/** The operation not built yet: 501 in its own envelope, logged at info only. */
import assert from "node:assert/strict";
import { WebhookErrorEnvelope } from "../../shared/contract/webhook_ingest.ts";
import { webhookIngest } from "../../shared/handlers/webhook_ingest.ts";
import { fakeDeps, jsonRequest } from "../support/fake_deps.ts";

Deno.test("webhookIngest() answers 501 in its envelope, logged at info, not error, with no CORS", async () => {
  const deps = fakeDeps();
  const hook = await webhookIngest(deps)(
    jsonRequest("webhookIngest", { source: "x", messages: [] }, { "x-webhook-secret": "s3cret" }),
  );
  assert.equal(hook.status, 501);
  const body = WebhookErrorEnvelope.parse(await hook.json());
  assert.equal(typeof body.processing_ms, "number");
  assert.deepEqual(deps.logs.map((line) => [line.level, line.msg, line.status]), [
    ["info", "request", 501],
  ]);
  assert.equal(deps.logText.join("\n").includes("s3cret"), false);
  assert.deepEqual(deps.db.calls, []);
  const preflight = await webhookIngest(deps)(
    new Request("http://127.0.0.1/functions/webhookIngest", {
      method: "OPTIONS",
      headers: { origin: "https://app.example.test", "access-control-request-method": "POST" },
    }),
  );
  assert.equal(preflight.status, 204);
  // The webhook secret is for servers: no browser page may send it.
  assert.equal(preflight.headers.get("access-control-allow-origin"), null);
  assert.equal(preflight.headers.get("access-control-allow-headers"), null);
});
