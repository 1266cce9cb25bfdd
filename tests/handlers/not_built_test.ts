/** The skeleton's answer for an operation not built yet: 501 in its own envelope, logged at info. */
import assert from "node:assert/strict";
import { WebhookErrorEnvelope } from "../../shared/contract/webhook_ingest.ts";
import { notBuilt } from "../../shared/handlers/not_built.ts";
import { WEBHOOK_INGEST_ENDPOINT } from "../../shared/handlers/webhook_ingest.ts";
import { fakeDeps, jsonRequest } from "../support/fake_deps.ts";

Deno.test("notBuilt() answers 501 in the operation's envelope, logged at info, not error", async () => {
  const deps = fakeDeps();
  // Any operation's spec will do: webhookIngest's envelope is the strictest.
  const response = await notBuilt(WEBHOOK_INGEST_ENDPOINT, deps)(
    jsonRequest("webhookIngest", { source: "x", messages: [] }, { "x-webhook-secret": "s3cret" }),
  );
  assert.equal(response.status, 501);
  const body = WebhookErrorEnvelope.parse(await response.json());
  assert.equal(typeof body.processing_ms, "number");
  assert.deepEqual(deps.logs.map((line) => [line.level, line.msg, line.status]), [
    ["info", "request", 501],
  ]);
  assert.equal(deps.logText.join("\n").includes("s3cret"), false);
  assert.deepEqual(deps.db.calls, []);
});
