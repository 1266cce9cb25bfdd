/**
 * The skeleton's RequestContext: the client IP and the key per-IP limits
 * count it under, computed once for every operation.
 */
import assert from "node:assert/strict";
import { endpoint, type RequestContext } from "../../shared/http/endpoint.ts";
import { jsonResponse } from "../../shared/http/json_response.ts";
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
