import assert from "node:assert/strict";
import { clientIp } from "../../shared/http/client_ip.ts";
import { functionRouter } from "../../shared/http/function_router.ts";

const router = functionRouter({
  complianceAudit: () => Promise.resolve(new Response("audit")),
});

async function get(path: string): Promise<[number, string]> {
  const response = await router(new Request(`http://127.0.0.1${path}`, { method: "POST" }));
  return [response.status, await response.text()];
}

Deno.test("functionRouter() serves /functions/<name> and the alternate base /functions/v1/<name>", async () => {
  assert.deepEqual(await get("/functions/complianceAudit"), [200, "audit"]);
  assert.deepEqual(await get("/functions/v1/complianceAudit"), [200, "audit"]);
});

Deno.test("functionRouter() answers 404 in the { error } envelope anywhere else", async () => {
  for (
    const path of [
      "/v1/compliance-audit",
      "/functions/compliance-audit",
      "/complianceAudit",
      "/functions/v2/complianceAudit",
      "/functions/unknown",
      "/",
    ]
  ) {
    const [status, body] = await get(path);
    assert.equal(status, 404, path);
    assert.deepEqual(JSON.parse(body), { error: "Not found" });
  }
});

Deno.test("clientIp() trusts X-Forwarded-For only as far as the configured proxy hops", () => {
  const info = { remoteAddr: { hostname: "127.0.0.9", port: 1, transport: "tcp" as const } };
  const req = new Request("http://127.0.0.1/", {
    headers: { "x-forwarded-for": "6.6.6.6, 10.1.1.1, 10.2.2.2" },
  });
  assert.equal(clientIp(req, info, 0), "127.0.0.9");
  assert.equal(clientIp(req, info, 1), "10.2.2.2");
  assert.equal(clientIp(req, info, 2), "10.1.1.1");
  assert.equal(clientIp(new Request("http://127.0.0.1/"), info, 1), "127.0.0.9");
});
