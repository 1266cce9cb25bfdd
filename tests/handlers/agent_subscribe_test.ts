/**
 * agentSubscribe in process: the handler over a fake Db and limiter, through
 * every branch of its order of checks (key 401, standing 402, body and
 * request 400, verify's per-IP 429, action) and what each branch records.
 */
import assert from "node:assert/strict";
import {
  AccountErrorEnvelope,
  LogsResponse,
  VerifyResponse,
} from "../../shared/contract/account.ts";
import { agentSubscribe } from "../../shared/handlers/agent_subscribe.ts";
import { createMemoryLimiter } from "../../shared/ratelimit/memory_limiter.ts";
import { fakeAccount, type FakeDeps, fakeDeps, from, jsonRequest } from "../support/fake_deps.ts";

async function call(
  deps: FakeDeps,
  body: unknown,
  headers: Record<string, string> = {},
  ip = "127.0.0.1",
) {
  const response = await agentSubscribe(deps)(
    jsonRequest("agentSubscribe", body, headers),
    from(ip),
  );
  const text = await response.text();
  return { response, status: response.status, text, json: () => JSON.parse(text) };
}

function records(deps: FakeDeps) {
  return deps.db.activity.map((row) => [row.endpoint_queried, row.status_code, row.is_agent]);
}

Deno.test("agentSubscribe() with a valid key answers 400 for a body that is not JSON, and records it", async () => {
  const deps = fakeDeps();
  const { apiKey } = await fakeAccount(deps.db);
  for (const body of ["{nope", "", "x".repeat(20_000)]) {
    const result = await call(deps, body, { "x-api-key": apiKey });
    assert.equal(result.status, 400);
    assert.equal(typeof AccountErrorEnvelope.parse(result.json()).error, "string");
  }
  assert.deepEqual(deps.limiter.calls, []);
  assert.deepEqual(records(deps), [
    ["agentSubscribe", 400, true],
    ["agentSubscribe", 400, true],
    ["agentSubscribe", 400, true],
  ]);
});

Deno.test("agentSubscribe() without a header key reads the body for its key: a bad body is 400 before the database", async () => {
  const deps = fakeDeps();
  for (const body of ["{nope", "", "x".repeat(20_000)]) {
    const result = await call(deps, body);
    assert.equal(result.status, 400);
    assert.equal(typeof AccountErrorEnvelope.parse(result.json()).error, "string");
  }
  assert.deepEqual(deps.db.calls, []);
  assert.deepEqual(deps.limiter.calls, []);
});

Deno.test("agentSubscribe() answers 401 to a wrong header key without reading the body", async () => {
  const deps = fakeDeps();
  let pulled = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      pulled++;
      controller.enqueue(new TextEncoder().encode(" "));
    },
  });
  const response = await agentSubscribe(deps)(
    new Request("http://127.0.0.1/functions/agentSubscribe", {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": "cas_live_wrong" },
      body,
    }),
    from("127.0.0.1"),
  );
  assert.equal(response.status, 401);
  assert.deepEqual(await response.json(), { error: "API key missing or invalid" });
  assert.ok(pulled <= 1, `read ${pulled} chunks of the body of a caller with a wrong key`);
  assert.deepEqual(deps.limiter.calls, []);
  assert.deepEqual(deps.db.activity, []);
});

Deno.test("agentSubscribe() answers 400 for valid JSON over 16 KiB before the limiter", async () => {
  const deps = fakeDeps();
  const { apiKey } = await fakeAccount(deps.db);
  // A verify call, well-formed JSON, whose body key alone takes it past the cap.
  const body = JSON.stringify({ action: "verify", api_key: apiKey + "x".repeat(16 * 1024) });
  assert.ok(new TextEncoder().encode(body).byteLength > 16 * 1024);
  assert.equal(typeof JSON.parse(body), "object");
  // Without the header the body is read first, so nothing reaches the database.
  const keyless = await call(deps, body);
  assert.equal(keyless.status, 400);
  assert.deepEqual(keyless.json(), { error: "Request body exceeds 16384 bytes" });
  assert.deepEqual(deps.db.calls, []);
  // With the header the key is checked first and the 400 is recorded.
  const keyed = await call(deps, body, { "x-api-key": apiKey });
  assert.equal(keyed.status, 400);
  assert.deepEqual(keyed.json(), { error: "Request body exceeds 16384 bytes" });
  assert.deepEqual(deps.limiter.calls, []);
  assert.deepEqual(records(deps), [["agentSubscribe", 400, true]]);
  // The same call under the cap does reach the limiter.
  const small = await call(deps, { action: "verify" }, { "x-api-key": apiKey });
  assert.equal(small.status, 200);
  assert.equal(deps.limiter.calls.length, 1);
});

Deno.test("agentSubscribe() limits verify per client IP after the key: 429 with Retry-After, recorded", async () => {
  const deps = fakeDeps();
  const { apiKey } = await fakeAccount(deps.db);
  deps.limiter.remaining = 0;
  const limited = await call(deps, { action: "verify" }, { "x-api-key": apiKey }, "192.0.2.7");
  assert.equal(limited.status, 429);
  assert.equal(limited.response.headers.get("retry-after"), "42");
  assert.equal(typeof AccountErrorEnvelope.parse(limited.json()).error, "string");
  assert.deepEqual(deps.limiter.calls, [{ key: "verify:192.0.2.7", max: 30, windowSeconds: 60 }]);
  assert.deepEqual(records(deps), [["agentSubscribe.verify", 429, true]]);
  // A wrong key is refused before the limiter is asked.
  const wrong = await call(deps, { action: "verify" }, { "x-api-key": "cas_live_nope" });
  assert.equal(wrong.status, 401);
  assert.equal(deps.limiter.calls.length, 1);
  // get_logs and export_audit are not under the verify limit.
  const logs = await call(deps, { action: "get_logs" }, { "x-api-key": apiKey });
  assert.equal(logs.status, 200);
  assert.equal(deps.limiter.calls.length, 1);
});

Deno.test("agentSubscribe() counts an IPv6 client's verify calls by its /64, so rotating addresses in it does not help", async () => {
  const deps = fakeDeps();
  const { apiKey } = await fakeAccount(deps.db);
  const sameNetwork = [
    "2001:db8:1:2::1",
    "2001:db8:1:2:aaaa:bbbb:cccc:dddd",
    "2001:db8:1:2:ffff::9",
  ];
  for (const ip of sameNetwork) {
    assert.equal((await call(deps, { action: "verify" }, { "x-api-key": apiKey }, ip)).status, 200);
  }
  await call(deps, { action: "verify" }, { "x-api-key": apiKey }, "::ffff:192.0.2.7");
  assert.deepEqual(deps.limiter.calls.map((c) => c.key), [
    "verify:2001:db8:1:2::/64",
    "verify:2001:db8:1:2::/64",
    "verify:2001:db8:1:2::/64",
    "verify:192.0.2.7",
  ]);

  // With a real limiter of 2 a minute, the third address of the /64 is refused
  // and a neighbouring /64 still has its own bucket.
  const limited = agentSubscribe({
    ...fakeDeps({ limits: { verifyPerMinute: 2 } }),
    db: deps.db,
    limiter: createMemoryLimiter(),
  });
  const verify = async (ip: string) => {
    const response = await limited(
      jsonRequest("agentSubscribe", { action: "verify" }, { "x-api-key": apiKey }),
      from(ip),
    );
    await response.body?.cancel();
    return response.status;
  };
  const statuses = [];
  for (const ip of sameNetwork) statuses.push(await verify(ip));
  assert.deepEqual(statuses, [200, 200, 429]);
  assert.equal(await verify("2001:db8:1:3::1"), 200);
});

Deno.test("agentSubscribe() answers 500 when the verify limiter fails (fails closed)", async () => {
  const deps = fakeDeps();
  const { apiKey } = await fakeAccount(deps.db);
  deps.limiter.failing = true;
  const result = await call(deps, { action: "verify" }, { "x-api-key": apiKey });
  assert.equal(result.status, 500);
  assert.deepEqual(result.json(), { error: "The account operation failed" });
});

Deno.test("agentSubscribe() answers 401 for a missing or invalid key, from the header or the body", async () => {
  const deps = fakeDeps();
  const { apiKey } = await fakeAccount(deps.db);
  for (const action of ["verify", "get_logs", "export_audit", "nonsense"]) {
    const missing = await call(deps, { action });
    assert.equal(missing.status, 401);
    assert.match(AccountErrorEnvelope.parse(missing.json()).error, /key/i);
    const invalid = await call(deps, { action, api_key: "cas_live_nope" });
    assert.equal(invalid.status, 401);
  }
  // The header wins: a bad header key is not rescued by a good body key.
  const badHeader = await call(deps, { action: "verify", api_key: apiKey }, {
    "x-api-key": "cas_live_" + "x".repeat(43),
  });
  assert.equal(badHeader.status, 401);
  assert.deepEqual(deps.db.activity, []);
});

Deno.test("agentSubscribe() takes the body key only without the header, and records that path as not an agent", async () => {
  const deps = fakeDeps();
  const a = await fakeAccount(deps.db, { plan: "starter" });
  const b = await fakeAccount(deps.db, { plan: "enterprise" });
  const viaBody = await call(deps, { action: "verify", api_key: a.apiKey });
  assert.equal(viaBody.status, 200);
  assert.equal(VerifyResponse.parse(viaBody.json()).plan, "starter");
  const both = await call(deps, { action: "verify", api_key: a.apiKey }, { "x-api-key": b.apiKey });
  assert.equal(VerifyResponse.parse(both.json()).plan, "enterprise");
  assert.deepEqual(records(deps), [
    ["agentSubscribe.verify", 200, false],
    ["agentSubscribe.verify", 200, true],
  ]);
});

Deno.test("agentSubscribe() answers 402 for an inactive account on every action, before reading the body", async () => {
  const deps = fakeDeps();
  const { apiKey } = await fakeAccount(deps.db, { status: "past_due" });
  for (
    const body of [{ action: "verify" }, { action: "get_logs" }, { action: "export_audit" }, []]
  ) {
    const result = await call(deps, body, { "x-api-key": apiKey });
    assert.equal(result.status, 402);
    assert.equal(typeof AccountErrorEnvelope.parse(result.json()).error, "string");
  }
  // Not even a body that is not JSON gets further than the standing.
  assert.equal((await call(deps, "{nope", { "x-api-key": apiKey })).status, 402);
  // The body is unread, so the record names the operation alone.
  assert.deepEqual(records(deps), Array(5).fill(["agentSubscribe", 402, true]));
  // The dashboard's body key: the body is read first, so the action is known.
  const viaBody = await call(deps, { action: "get_logs", api_key: apiKey });
  assert.equal(viaBody.status, 402);
  assert.deepEqual(records(deps).at(-1), ["agentSubscribe.get_logs", 402, false]);
});

Deno.test("agentSubscribe() answers 400 for unknown fields, unknown or missing actions and wrong types, and records each", async () => {
  const deps = fakeDeps();
  const { apiKey } = await fakeAccount(deps.db);
  const bad: unknown[] = [
    { action: "verify", extra: true },
    { action: "get_logs", month: "2026-01" },
    { action: "delete_account" },
    {},
    { action: 7 },
    { action: "verify", api_key: 12 },
    { action: "verify", api_key: "" },
    { action: "export_audit", month: 202601 },
    { action: "export_audit", month: "2026-13" },
    { action: "export_audit", month: "2026-1" },
    [],
    "verify",
    { action: "get_logs", [apiKey]: 1 },
  ];
  for (const body of bad) {
    const result = await call(deps, JSON.stringify(body), { "x-api-key": apiKey });
    assert.equal(result.status, 400, `expected 400 for ${JSON.stringify(body)}`);
    assert.equal(typeof AccountErrorEnvelope.parse(result.json()).error, "string");
    assert.equal(result.text.includes(apiKey), false);
  }
  assert.equal(deps.db.activity.length, bad.length);
  assert.ok(deps.db.activity.every((row) => row.status_code === 400));
  assert.equal(deps.db.activity[3].endpoint_queried, "agentSubscribe");
  assert.deepEqual(new Set(deps.db.names()), new Set(["api_key_account", "activity_record"]));
});

Deno.test("agentSubscribe() verify returns exactly the verification fields", async () => {
  const deps = fakeDeps();
  const { apiKey } = await fakeAccount(deps.db, {
    plan: "pro",
    price_per_month_usd: 99,
    usage_count: 7,
  });
  const result = await call(deps, { action: "verify" }, { "x-api-key": apiKey });
  assert.equal(result.status, 200);
  assert.deepEqual(VerifyResponse.parse(result.json()), {
    valid: true,
    plan: "pro",
    billing_interval: "month",
    price_per_month_usd: 99,
    status: "active",
    usage_count: 7,
    trial_end: null,
  });
});

Deno.test("agentSubscribe() get_logs returns exactly logs and account_id, the configured number of newest records", async () => {
  const deps = fakeDeps({ limits: { logsReturned: 3 } });
  const { apiKey, accountId } = await fakeAccount(deps.db);
  for (let i = 0; i < 4; i++) await call(deps, { action: "verify" }, { "x-api-key": apiKey });
  const result = await call(deps, { action: "get_logs" }, { "x-api-key": apiKey });
  assert.equal(result.status, 200);
  const body = LogsResponse.parse(result.json());
  assert.equal(body.account_id, accountId);
  assert.equal(body.logs.length, 3);
  const recent = deps.db.calls.find((c) => c.name === "activity_recent")!.args;
  assert.deepEqual(recent, { p_account_id: accountId, p_limit: 3 });
});

Deno.test("agentSubscribe() export_audit returns CSV for the given month, or the current UTC month", async () => {
  const deps = fakeDeps({ now: () => new Date("2026-03-31T23:59:59Z") });
  const { apiKey, accountId } = await fakeAccount(deps.db);
  const current = await call(deps, { action: "export_audit" }, { "x-api-key": apiKey });
  assert.equal(current.status, 200);
  assert.match(current.response.headers.get("content-type") ?? "", /^text\/csv/);
  assert.equal(
    current.response.headers.get("content-disposition"),
    'attachment; filename="activity-2026-03.csv"',
  );
  assert.equal(
    current.text,
    "timestamp,endpoint_queried,status_code,response_latency_ms,plan,is_agent\r\n",
  );
  const given = await call(deps, { action: "export_audit", month: "2019-02" }, {
    "x-api-key": apiKey,
  });
  assert.equal(given.status, 200);
  const months = deps.db.calls.filter((c) => c.name === "activity_month_page").map((c) => ({
    p_account_id: c.args.p_account_id,
    p_month: c.args.p_month,
  }));
  assert.deepEqual(months, [
    { p_account_id: accountId, p_month: "2026-03" },
    { p_account_id: accountId, p_month: "2019-02" },
  ]);
});

Deno.test("agentSubscribe() answers 500 with no internals when the database fails", async () => {
  for (const failing of ["api_key_account", "activity_recent"]) {
    const deps = fakeDeps();
    const { apiKey } = await fakeAccount(deps.db);
    deps.db.failing.add(failing);
    const result = await call(deps, { action: "get_logs" }, { "x-api-key": apiKey });
    assert.equal(result.status, 500, failing);
    assert.deepEqual(result.json(), { error: "The account operation failed" });
    assert.equal(deps.logs.filter((line) => line.level === "error").length, 1);
  }
});

Deno.test("agentSubscribe() answers the same when its activity record cannot be written", async () => {
  const deps = fakeDeps();
  const { apiKey } = await fakeAccount(deps.db);
  deps.db.failing.add("activity_record");
  for (const action of ["verify", "get_logs", "export_audit"]) {
    const result = await call(deps, { action }, { "x-api-key": apiKey });
    assert.equal(result.status, 200, action);
  }
  assert.equal(deps.logs.filter((line) => line.msg === "activity record not written").length, 3);
});
