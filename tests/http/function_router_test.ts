import assert from "node:assert/strict";
import { clientIp } from "../../shared/http/client_ip.ts";
import { functionRouter } from "../../shared/http/function_router.ts";
import { createLogger } from "../../shared/log/logger.ts";

function routerWithLog() {
  const lines: string[] = [];
  const router = functionRouter(
    { complianceAudit: () => Promise.resolve(new Response("audit")) },
    createLogger({ write: (line) => lines.push(line) }),
  );
  const post = async (path: string): Promise<[number, string]> => {
    const response = await router(new Request(`http://127.0.0.1${path}`, { method: "POST" }));
    return [response.status, await response.text()];
  };
  return { post, lines };
}

Deno.test("functionRouter() serves /functions/<name>, the contract's base URL", async () => {
  const { post, lines } = routerWithLog();
  assert.deepEqual(await post("/functions/complianceAudit"), [200, "audit"]);
  assert.deepEqual(lines, []);
});

Deno.test("functionRouter() answers 404 in the { error } envelope under any other prefix, and logs it", async () => {
  const { post, lines } = routerWithLog();
  const paths = [
    "/functions/v1/complianceAudit",
    "/v1/compliance-audit",
    "/v1/complianceAudit",
    "/functions/compliance-audit",
    "/complianceAudit",
    "/api/functions/complianceAudit",
    "/functions/complianceAudit/",
    "/functions/complianceAudit/extra",
    "/functions/unknown",
    "/functions/cas_live_SECRETSECRETSECRET",
    "/",
  ];
  for (const path of paths) {
    const [status, body] = await post(path);
    assert.equal(status, 404, path);
    const envelope = JSON.parse(body);
    assert.deepEqual(Object.keys(envelope), ["error"]);
    assert.equal(typeof envelope.error, "string");
  }
  assert.equal(lines.length, paths.length);
  for (const line of lines) {
    assert.deepEqual(
      (({ level, msg, status }) => ({ level, msg, status }))(JSON.parse(line)),
      { level: "info", msg: "no route", status: 404 },
    );
    assert.equal(line.includes("SECRET"), false, "the path is never logged");
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
