/**
 * complianceAudit in process: the handler built over a fake Db and limiter,
 * called with a Request, through every branch of the contract's order of
 * checks (key 401, standing 402, body 400, limit 429, rulebook 503, quota 429,
 * accepted 200), and what each branch records, calls and never leaks.
 */
import assert from "node:assert/strict";
import { AuditErrorEnvelope, AuditResponse } from "../../shared/contract/audit.ts";
import { complianceAudit } from "../../shared/handlers/compliance_audit.ts";
import { fakeAccount, type FakeDeps, fakeDeps, from, jsonRequest } from "../support/fake_deps.ts";

const CONTENT = "Unique audited sentence 7f3a9: I am a human, not an AI.";

async function call(deps: FakeDeps, body: unknown, headers: Record<string, string> = {}) {
  const response = await complianceAudit(deps)(
    jsonRequest("complianceAudit", body, headers),
    from("127.0.0.1"),
  );
  const text = await response.text();
  return { response, status: response.status, text, json: () => JSON.parse(text) };
}

async function refusal(deps: FakeDeps, body: unknown, headers: Record<string, string> = {}) {
  const result = await call(deps, body, headers);
  return { ...result, code: AuditErrorEnvelope.parse(result.json()).error.code };
}

function statuses(deps: FakeDeps): number[] {
  return deps.db.activity.map((row) => row.status_code);
}

Deno.test("complianceAudit() answers 401 invalid_api_key for a missing, malformed or unknown key and records nothing", async () => {
  const deps = fakeDeps();
  for (
    const headers of [
      {} as Record<string, string>,
      { "x-api-key": "" },
      { "x-api-key": "not-a-key" },
      { "x-api-key": "cas_live_" + "A".repeat(43) },
    ]
  ) {
    const result = await refusal(deps, { content: CONTENT, jurisdiction: "CA" }, headers);
    assert.equal(result.status, 401);
    assert.equal(result.code, "invalid_api_key");
  }
  // Malformed keys never reach the database; the well-formed unknown one is looked up once.
  assert.deepEqual(deps.db.names(), ["audit_key_account"]);
  assert.deepEqual(deps.db.activity, []);
  assert.deepEqual(deps.limiter.calls, []);
});

Deno.test("complianceAudit() answers 402 account_inactive before reading the body, and records it", async () => {
  const deps = fakeDeps();
  const now = Date.now();
  for (
    const fields of [
      { status: "past_due" as const },
      { status: "canceled" as const },
      { status: "paused" as const },
      { status: "trialing" as const, trial_end: new Date(now - 1000).toISOString() },
    ]
  ) {
    const { apiKey } = await fakeAccount(deps.db, fields);
    const result = await refusal(deps, "{not even json", { "x-api-key": apiKey });
    assert.equal(result.status, 402);
    assert.equal(result.code, "account_inactive");
  }
  assert.deepEqual(statuses(deps), [402, 402, 402, 402]);
  assert.deepEqual(deps.limiter.calls, []);
  const trialing = await fakeAccount(deps.db, {
    status: "trialing",
    trial_end: new Date(now + 86_400_000).toISOString(),
  });
  const accepted = await call(deps, { content: CONTENT, jurisdiction: "CA" }, {
    "x-api-key": trialing.apiKey,
  });
  assert.equal(accepted.status, 200);
});

Deno.test("complianceAudit() answers 400 invalid_request for every malformed body, records it, and changes nothing else", async () => {
  const deps = fakeDeps({ limits: { auditBodyBytes: 40_000 } });
  const { apiKey, accountId } = await fakeAccount(deps.db);
  const bad: unknown[] = [
    { content: CONTENT, jurisdiction: "CA", extra: 1 },
    { content: CONTENT, jurisdiction: "WA" },
    { content: CONTENT, jurisdiction: "ca" },
    { content: CONTENT },
    { jurisdiction: "CA" },
    { content: "", jurisdiction: "CA" },
    { content: "x".repeat(30_001), jurisdiction: "CA" },
    { content: 42, jurisdiction: "CA" },
    { content: CONTENT, jurisdiction: "CA", industry: "crypto" },
    { content: CONTENT, jurisdiction: "CA", asset_url: "ftp://example.test/x" },
    { content: CONTENT, jurisdiction: "CA", asset_url: "https:///nohost" },
    { content: CONTENT, jurisdiction: "CA", asset_url: "example.test/x" },
    [],
    null,
    "text",
    "{not json",
    "",
    JSON.stringify({ content: "x".repeat(50_000), jurisdiction: "CA" }),
  ];
  for (const body of bad) {
    const result = await refusal(
      deps,
      typeof body === "string" ? body : JSON.stringify(body),
      { "x-api-key": apiKey },
    );
    assert.equal(result.status, 400, `expected 400 for ${JSON.stringify(body).slice(0, 60)}`);
    assert.equal(result.code, "invalid_request");
    assert.equal(result.text.includes("7f3a9"), false, "the content is never echoed");
  }
  const textPlain = await complianceAudit(deps)(
    new Request("http://127.0.0.1/functions/complianceAudit", {
      method: "POST",
      headers: { "content-type": "text/plain", "x-api-key": apiKey },
      body: JSON.stringify({ content: CONTENT, jurisdiction: "CA" }),
    }),
  );
  assert.equal(textPlain.status, 400);
  assert.equal(AuditErrorEnvelope.parse(await textPlain.json()).error.code, "invalid_request");

  assert.equal(deps.db.activity.length, bad.length + 1);
  assert.ok(statuses(deps).every((status) => status === 400));
  assert.equal(deps.db.accounts.get(accountId)?.usage_count, 0);
  assert.equal(deps.db.names().includes("audit_record"), false);
  assert.deepEqual(deps.limiter.calls, [], "a refused body costs no rate-limit unit");
});

Deno.test("complianceAudit() answers 429 rate_limited with Retry-After past the account's per-minute limit", async () => {
  const deps = fakeDeps();
  const { apiKey, accountId } = await fakeAccount(deps.db);
  deps.limiter.remaining = 0;
  const result = await refusal(deps, { content: CONTENT, jurisdiction: "CA" }, {
    "x-api-key": apiKey,
  });
  assert.equal(result.status, 429);
  assert.equal(result.code, "rate_limited");
  const retryAfter = Number(result.response.headers.get("retry-after"));
  assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60);
  assert.deepEqual(deps.limiter.calls, [{ key: `audit:${accountId}`, max: 60, windowSeconds: 60 }]);
  assert.deepEqual(statuses(deps), [429]);
  // The refusal is recorded by activity_record; no rulebook is read, nothing is charged.
  assert.deepEqual(deps.db.names(), ["audit_key_account", "activity_record"]);
});

Deno.test("complianceAudit() answers 503 service_unavailable without an active rulebook, and never falls back", async () => {
  const deps = fakeDeps();
  const { apiKey, accountId } = await fakeAccount(deps.db);
  deps.db.activeVersion = null;
  const result = await refusal(deps, { content: CONTENT, jurisdiction: "CA" }, {
    "x-api-key": apiKey,
  });
  assert.equal(result.status, 503);
  assert.equal(result.code, "service_unavailable");
  assert.equal(deps.db.names().includes("audit_record"), false);
  assert.equal(deps.db.accounts.get(accountId)?.usage_count, 0);
  assert.deepEqual(statuses(deps), [503]);
});

Deno.test("complianceAudit() answers 429 quota_exceeded when the RPC refuses, and records it like any refusal", async () => {
  const deps = fakeDeps();
  const { apiKey, accountId } = await fakeAccount(deps.db, { plan: "starter", usage_count: 999 });
  const last = await call(deps, { content: CONTENT, jurisdiction: "FL" }, { "x-api-key": apiKey });
  assert.equal(last.status, 200);
  assert.deepEqual(AuditResponse.parse(last.json()).usage, { count: 1000, monthly_limit: 1000 });
  const over = await refusal(deps, { content: CONTENT, jurisdiction: "FL" }, {
    "x-api-key": apiKey,
  });
  assert.equal(over.status, 429);
  assert.equal(over.code, "quota_exceeded");
  assert.equal(over.response.headers.get("retry-after"), null);
  assert.equal(deps.db.accounts.get(accountId)?.usage_count, 1000);
  // One record each: the accepted call by the RPC, the refusal by the skeleton.
  assert.deepEqual(statuses(deps), [200, 429]);
});

Deno.test("complianceAudit() answers 200 with the contract's response and stores a digest, never the content", async () => {
  const deps = fakeDeps();
  const { apiKey, accountId } = await fakeAccount(deps.db, { plan: "enterprise" });
  const result = await call(deps, {
    content: CONTENT,
    jurisdiction: "CA",
    industry: "healthcare",
    asset_url: "https://cdn.example.test/ad.mp4",
  }, { "x-api-key": apiKey });
  assert.equal(result.status, 200);
  const body = AuditResponse.parse(result.json());
  assert.equal(body.jurisdiction, "CA");
  assert.equal(body.industry, "healthcare");
  assert.deepEqual(body.usage, { count: 1, monthly_limit: null });
  const audit = deps.db.calls.find((c) => c.name === "audit_record")!.args;
  assert.equal(audit.p_account_id, accountId);
  assert.match(String(audit.p_content_sha256), /^[0-9a-f]{64}$/);
  assert.equal(audit.p_content_length, [...CONTENT].length);
  assert.equal(audit.p_asset_url, "https://cdn.example.test/ad.mp4");
  assert.equal(JSON.stringify(deps.db.calls).includes("7f3a9"), false);
  assert.deepEqual(statuses(deps), [200], "the RPC's record only; the skeleton adds none");

  const plain = await call(deps, { content: "Opening hours: nine to five.", jurisdiction: "ALL" }, {
    "x-api-key": apiKey,
  });
  assert.equal("industry" in AuditResponse.parse(plain.json()), false);
});

Deno.test("complianceAudit() accepts an asset_url with credentials, a query or a fragment, and stores none of them", async () => {
  const deps = fakeDeps();
  const { apiKey } = await fakeAccount(deps.db, { plan: "enterprise" });
  const cases: Array<[string, string]> = [
    [
      "https://ad-user:hunter2@cdn.example.test/ads/spot.mp4?X-Amz-Signature=s3cr3t&X-Amz-Credential=AKIA#t=3",
      "https://cdn.example.test/ads/spot.mp4",
    ],
    [
      "https://ad-user@cdn.example.test:8443/spot.mp4#token=s3cr3t",
      "https://cdn.example.test:8443/spot.mp4",
    ],
    ["http://:hunter2@cdn.example.test/?sig=s3cr3t", "http://cdn.example.test/"],
    ["http://@cdn.example.test/a/b?", "http://cdn.example.test/a/b"],
    ["https://cdn.example.test", "https://cdn.example.test/"],
  ];
  for (const [sent, stored] of cases) {
    const result = await call(deps, { content: CONTENT, jurisdiction: "CA", asset_url: sent }, {
      "x-api-key": apiKey,
    });
    assert.equal(result.status, 200, sent);
    assert.equal(
      deps.db.calls.findLast((c) => c.name === "audit_record")!.args.p_asset_url,
      stored,
    );
  }
  const everything = JSON.stringify(deps.db.calls);
  for (const secret of ["ad-user", "hunter2", "s3cr3t", "AKIA", "X-Amz", "sig="]) {
    assert.equal(everything.includes(secret), false, secret);
  }
});

Deno.test("complianceAudit() fails closed with 503 when the database or the limiter fails, without internals", async () => {
  for (const failing of ["audit_key_account", "rulebook_get", "audit_record", "limiter"]) {
    const deps = fakeDeps();
    const { apiKey } = await fakeAccount(deps.db);
    if (failing === "limiter") deps.limiter.failing = true;
    else deps.db.failing.add(failing);
    const result = await refusal(deps, { content: CONTENT, jurisdiction: "CA" }, {
      "x-api-key": apiKey,
    });
    assert.equal(result.status, 503, failing);
    assert.equal(result.code, "service_unavailable");
    assert.equal(/refused|redis|08006|stack|\.ts/i.test(result.text), false, result.text);
    const errors = deps.logs.filter((line) => line.level === "error");
    assert.equal(errors.length, 1, failing);
    assert.match(String(errors[0].error), failing === "limiter" ? /^Error$/ : /^DbError 08006$/);
  }
});

Deno.test("complianceAudit() answers 503 when an RPC returns a result of the wrong shape", async () => {
  const deps = fakeDeps();
  const { apiKey } = await fakeAccount(deps.db);
  deps.db.answers.set("audit_record", { accepted: "yes" });
  const result = await refusal(deps, { content: CONTENT, jurisdiction: "CA" }, {
    "x-api-key": apiKey,
  });
  assert.equal(result.status, 503);
  assert.equal(result.code, "service_unavailable");
});

Deno.test("complianceAudit() answers the same when its activity record cannot be written", async () => {
  const deps = fakeDeps();
  const { apiKey } = await fakeAccount(deps.db);
  deps.db.failing.add("activity_record");
  const bad = await refusal(deps, { content: CONTENT, jurisdiction: "XX" }, {
    "x-api-key": apiKey,
  });
  assert.equal(bad.status, 400);
  assert.equal(bad.code, "invalid_request");
  const ok = await call(deps, { content: CONTENT, jurisdiction: "CA" }, { "x-api-key": apiKey });
  assert.equal(ok.status, 200);
  assert.equal(deps.logs.filter((line) => line.msg === "activity record not written").length, 1);
});

Deno.test("complianceAudit() keeps keys and content out of every response and log line", async () => {
  const deps = fakeDeps();
  const { apiKey } = await fakeAccount(deps.db);
  const texts = [
    (await call(deps, { content: CONTENT, jurisdiction: "CA" }, { "x-api-key": apiKey })).text,
    (await call(deps, { content: CONTENT, jurisdiction: "XX" }, { "x-api-key": apiKey })).text,
    (await call(deps, { content: "x", jurisdiction: "CA", [apiKey]: true }, {
      "x-api-key": apiKey,
    })).text,
    (await call(deps, { content: CONTENT, jurisdiction: "CA" }, {
      "x-api-key": apiKey.slice(0, -2) + "zz",
    })).text,
  ];
  for (const text of [...texts, ...deps.logText]) {
    assert.equal(text.includes(apiKey.slice(0, -2)), false);
    assert.equal(text.includes("7f3a9"), false);
  }
  const requests = deps.logs.filter((line) => line.msg === "request");
  assert.equal(requests.length, 4);
  for (const line of requests) {
    assert.equal(line.operation, "complianceAudit");
    assert.match(String(line.request_id), /^[0-9a-f-]{36}$/);
    assert.equal(typeof line.latency_ms, "number");
  }
});

Deno.test("complianceAudit() sends no CORS header (keys never live in browsers); other methods get 405", async () => {
  const deps = fakeDeps();
  const handler = complianceAudit(deps);
  const preflight = await handler(
    new Request("http://127.0.0.1/functions/complianceAudit", {
      method: "OPTIONS",
      headers: { origin: "https://app.example.test", "access-control-request-method": "POST" },
    }),
  );
  assert.equal(preflight.status, 204);
  assert.equal(preflight.headers.get("allow"), "POST, OPTIONS");
  for (const [name] of preflight.headers) assert.doesNotMatch(name, /^access-control-/);
  const get = await handler(new Request("http://127.0.0.1/functions/complianceAudit"));
  assert.equal(get.status, 405);
  assert.equal(get.headers.get("allow"), "POST, OPTIONS");
  assert.equal(AuditErrorEnvelope.parse(await get.json()).error.code, "invalid_request");
  const refused = await handler(jsonRequest("complianceAudit", {}, { origin: "https://x.test" }));
  assert.equal(refused.status, 401);
  assert.equal(refused.headers.get("access-control-allow-origin"), null);
  assert.match(refused.headers.get("x-request-id") ?? "", /^[0-9a-f-]{36}$/);
  await refused.body?.cancel();
  assert.deepEqual(deps.db.activity, []);
});

Deno.test("complianceAudit() never fetches asset_url", async () => {
  const deps = fakeDeps();
  const { apiKey } = await fakeAccount(deps.db);
  const realFetch = globalThis.fetch;
  const outbound: string[] = [];
  globalThis.fetch = (input) => {
    outbound.push(input instanceof Request ? input.url : String(input));
    return Promise.reject(new Error("no fetch expected"));
  };
  try {
    const result = await call(deps, {
      content: "An image of our product.",
      jurisdiction: "CA",
      asset_url: "http://127.0.0.1:9/asset.png",
    }, { "x-api-key": apiKey });
    assert.equal(result.status, 200);
  } finally {
    globalThis.fetch = realFetch;
  }
  assert.deepEqual(outbound, []);
});
