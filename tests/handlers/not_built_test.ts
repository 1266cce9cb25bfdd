/** Operations not built yet: 501 in their own envelopes, logged at info only. */
import assert from "node:assert/strict";
import { WebhookErrorEnvelope } from "../../shared/contract/webhook_ingest.ts";
import { WebsiteAuditErrorEnvelope } from "../../shared/contract/website_audit.ts";
import { runWebsiteAudit } from "../../shared/handlers/run_website_audit.ts";
import { notBuilt } from "../../shared/handlers/not_built.ts";
import { WEBHOOK_INGEST_ENDPOINT, webhookIngest } from "../../shared/handlers/webhook_ingest.ts";
import { fakeDeps, jsonRequest } from "../support/fake_deps.ts";

Deno.test("notBuilt() answers 501 in the operation's envelope (runWebsiteAudit's, webhookIngest's), logged at info, not error", async () => {
  const deps = fakeDeps();
  const scan = await runWebsiteAudit(deps)(
    jsonRequest("runWebsiteAudit", { target_url: "https://example.test/" }),
  );
  assert.equal(scan.status, 501);
  WebsiteAuditErrorEnvelope.parse(await scan.json());
  const hook = await notBuilt(WEBHOOK_INGEST_ENDPOINT, deps)(
    jsonRequest("webhookIngest", { source: "x", messages: [] }, { "x-webhook-secret": "s3cret" }),
  );
  assert.equal(hook.status, 501);
  const body = WebhookErrorEnvelope.parse(await hook.json());
  assert.equal(typeof body.processing_ms, "number");
  assert.deepEqual(deps.logs.map((line) => [line.level, line.msg, line.status]), [
    ["info", "request", 501],
    ["info", "request", 501],
  ]);
  assert.equal(deps.logText.join("\n").includes("s3cret"), false);
  assert.deepEqual(deps.db.calls, []);
  const preflight = await webhookIngest(deps)(
    new Request("http://127.0.0.1/functions/webhookIngest", { method: "OPTIONS" }),
  );
  assert.equal(preflight.status, 204);
  assert.match(preflight.headers.get("access-control-allow-headers") ?? "", /x-webhook-secret/);
});
