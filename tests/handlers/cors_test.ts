/** CORS: only the operation without a credential answers browsers. */
import assert from "node:assert/strict";
import { agentSubscribe } from "../../shared/handlers/agent_subscribe.ts";
import { complianceAudit } from "../../shared/handlers/compliance_audit.ts";
import { runWebsiteAudit } from "../../shared/handlers/run_website_audit.ts";
import { webhookIngest } from "../../shared/handlers/webhook_ingest.ts";
import { fakeDeps } from "../support/fake_deps.ts";

function preflight(name: string): Request {
  return new Request(`http://127.0.0.1/functions/${name}`, {
    method: "OPTIONS",
    headers: { origin: "https://app.example.test", "access-control-request-method": "POST" },
  });
}

Deno.test("operations with a credential send no CORS headers; runWebsiteAudit does", async () => {
  const deps = fakeDeps();
  // An API key or a webhook secret is for servers: no browser page may send one.
  for (
    const [name, handler] of [
      ["complianceAudit", complianceAudit(deps)],
      ["agentSubscribe", agentSubscribe(deps)],
      ["webhookIngest", webhookIngest(deps)],
    ] as const
  ) {
    const response = await handler(preflight(name));
    await response.body?.cancel();
    assert.equal(response.headers.get("access-control-allow-origin"), null, name);
    assert.equal(response.headers.get("access-control-allow-headers"), null, name);
  }
  const scan = await runWebsiteAudit(deps)(preflight("runWebsiteAudit"));
  await scan.body?.cancel();
  assert.equal(scan.status, 204);
  assert.notEqual(scan.headers.get("access-control-allow-origin"), null);
  const allowed = scan.headers.get("access-control-allow-headers") ?? "";
  assert.equal(/x-api-key|x-webhook-secret/i.test(allowed), false);
});
