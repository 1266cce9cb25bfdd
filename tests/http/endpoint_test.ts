/**
 * The skeleton's RequestContext: the client IP and the key per-IP limits
 * count it under, computed once for every operation, and how bodies are read.
 */
import assert from "node:assert/strict";
import { endpoint, type RequestContext } from "../../shared/http/endpoint.ts";
import { jsonResponse } from "../../shared/http/json_response.ts";
import { createBodyReadGate } from "../../shared/http/body_gate.ts";
import { readJsonBody } from "../../shared/http/read_body.ts";
import { fakeDeps, from, jsonRequest } from "../support/fake_deps.ts";

async function contextOf(
  ip: string,
  headers: Record<string, string> = {},
  trustedProxyHops = 0,
): Promise<Pick<RequestContext, "ip" | "ipLimitKey">> {
  let seen: RequestContext | undefined;
  const handler = endpoint(
    {
      name: "probe",
      envelope: (error) => ({ error: error.message }),
      unavailable: { status: 500, code: "internal", message: "internal" },
    },
    { ...fakeDeps(), trustedProxyHops },
    (_req, ctx) => {
      seen = ctx;
      return Promise.resolve(jsonResponse({}));
    },
  );
  await (await handler(jsonRequest("probe", {}, headers), from(ip))).body?.cancel();
  assert.ok(seen !== undefined);
  return { ip: seen.ip, ipLimitKey: seen.ipLimitKey };
}

Deno.test("endpoint() gives handlers the client IP and its limit key: IPv4 as is, IPv6 by its /64", async () => {
  assert.deepEqual(await contextOf("192.0.2.7"), { ip: "192.0.2.7", ipLimitKey: "192.0.2.7" });
  assert.deepEqual(await contextOf("::ffff:192.0.2.7"), {
    ip: "::ffff:192.0.2.7",
    ipLimitKey: "192.0.2.7",
  });
  for (
    const ip of ["2001:db8:1:2::1", "2001:db8:1:2:aaaa:bbbb:cccc:dddd", "2001:db8:1:2:ffff::9"]
  ) {
    assert.deepEqual(await contextOf(ip), { ip, ipLimitKey: "2001:db8:1:2::/64" });
  }
});

Deno.test("endpoint() keys the limit on the address the trusted proxy saw, never on a forged one", async () => {
  const headers = { "x-forwarded-for": "203.0.113.99, 2001:db8:9:8:7:6:5:4" };
  assert.deepEqual(await contextOf("10.0.0.2", headers, 1), {
    ip: "2001:db8:9:8:7:6:5:4",
    ipLimitKey: "2001:db8:9:8::/64",
  });
  assert.deepEqual(await contextOf("10.0.0.2", headers, 0), {
    ip: "10.0.0.2",
    ipLimitKey: "10.0.0.2",
  });
});

Deno.test("endpoint() gives handlers the body deadline and read gate, and a full gate is the endpoint's 5xx with Retry-After", async () => {
  const gate = createBodyReadGate(1);
  const hold = await gate.acquire(new AbortController().signal);
  const deps = { ...fakeDeps({ limits: { bodyDeadlineMs: 200 } }), bodyReads: gate };
  const handler = endpoint(
    {
      name: "probe",
      envelope: (error) => ({ error: error.message }),
      unavailable: { status: 503, code: "service_unavailable", message: "busy" },
    },
    deps,
    async (req, ctx) => {
      assert.equal(ctx.bodyReading.deadlineMs, 200);
      assert.equal(ctx.bodyReading.gate, gate);
      return jsonResponse(await readJsonBody(req, { maxBytes: 64, ...ctx.bodyReading }));
    },
  );
  const busy = await handler(jsonRequest("probe", { a: 1 }), from("192.0.2.1"));
  assert.equal(busy.status, 503);
  assert.equal(busy.headers.get("retry-after"), "1");
  assert.deepEqual(await busy.json(), { error: "busy" });
  hold();
  const served = await handler(jsonRequest("probe", { a: 1 }), from("192.0.2.1"));
  assert.equal(served.status, 200);
  assert.deepEqual(await served.json(), { a: 1 });
});
