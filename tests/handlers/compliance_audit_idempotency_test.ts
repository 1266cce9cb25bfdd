/**
 * complianceAudit's Idempotency-Key in process, over the fake Db: what the
 * handler sends audit_record (digests, never the key or the content) and how
 * it answers the RPC's replay and conflict outcomes. The SQL itself is
 * tested over HTTP on PGlite and PostgreSQL (tests/compliance_audit_idempotency_test.ts).
 */
import assert from "node:assert/strict";
import { sha256Hex } from "../../shared/auth/api_key.ts";
import { AuditErrorEnvelope, AuditResponse } from "../../shared/contract/audit.ts";
import { complianceAudit } from "../../shared/handlers/compliance_audit.ts";
import { fakeAccount, type FakeDeps, fakeDeps, from, jsonRequest } from "../support/fake_deps.ts";

const CONTENT = "Unique audited sentence 7f3a9: I am a human, not an AI.";

async function call(deps: FakeDeps, body: unknown, headers: Record<string, string>) {
  const response = await complianceAudit(deps)(
    jsonRequest("complianceAudit", body, headers),
    from("127.0.0.1"),
  );
  return { status: response.status, text: await response.text() };
}

Deno.test("complianceAudit() sends audit_record digests of the key and the request, and the answer without usage", async () => {
  const deps = fakeDeps();
  const { apiKey } = await fakeAccount(deps.db);
  const key = "retry-key-5f1c";
  const result = await call(deps, { content: CONTENT, jurisdiction: "CA" }, {
    "x-api-key": apiKey,
    "idempotency-key": key,
  });
  assert.equal(result.status, 200);
  const args = deps.db.calls.find((c) => c.name === "audit_record")!.args;
  assert.equal(args.p_idempotency_key_sha256, await sha256Hex(key));
  assert.match(String(args.p_request_sha256), /^[0-9a-f]{64}$/);
  const sent = JSON.stringify(args);
  assert.equal(sent.includes(key), false, "the key goes as its digest");
  assert.equal(sent.includes("7f3a9"), false, "the content goes as its digest");
  const { usage: _, ...answer } = AuditResponse.parse(JSON.parse(result.text));
  assert.deepEqual(args.p_response, answer);

  // Without the header, nothing of the kind is sent.
  await call(deps, { content: CONTENT, jurisdiction: "CA" }, { "x-api-key": apiKey });
  const plain = deps.db.calls.findLast((c) => c.name === "audit_record")!.args;
  assert.equal(plain.p_idempotency_key_sha256, undefined);
  assert.equal(plain.p_response, undefined);
});

Deno.test("complianceAudit() answers a replay with the stored answer and a conflict with 400", async () => {
  const deps = fakeDeps();
  const { apiKey } = await fakeAccount(deps.db);
  const stored = {
    verdict: "RED",
    risk_score: 40,
    statutes: [{ penalty_usd: 2500, citation: "Cal. Bus. & Prof. Code 17941", tier_key: "t2" }],
    penalty_exposure_usd: 2500,
    remediation: [],
    jurisdiction: "CA",
  };
  deps.db.answers.set("audit_record", {
    accepted: true,
    replayed: true,
    usage_count: 7,
    monthly_limit: 1000,
    response: stored,
  });
  const headers = { "x-api-key": apiKey, "idempotency-key": "k" };
  const replay = await call(deps, { content: CONTENT, jurisdiction: "CA" }, headers);
  assert.equal(replay.status, 200);
  // In the contract's field order, whatever order the database kept.
  assert.equal(
    replay.text,
    JSON.stringify({
      verdict: "RED",
      risk_score: 40,
      statutes: [{ tier_key: "t2", citation: "Cal. Bus. & Prof. Code 17941", penalty_usd: 2500 }],
      penalty_exposure_usd: 2500,
      remediation: [],
      jurisdiction: "CA",
      usage: { count: 7, monthly_limit: 1000 },
    }),
  );

  deps.db.answers.set("audit_record", {
    accepted: false,
    conflict: true,
    usage_count: 7,
    monthly_limit: 1000,
  });
  const conflict = await call(deps, { content: CONTENT, jurisdiction: "NY" }, headers);
  assert.equal(conflict.status, 400);
  assert.equal(AuditErrorEnvelope.parse(JSON.parse(conflict.text)).error.code, "invalid_request");
  assert.equal(deps.db.activity.at(-1)?.status_code, 400, "the conflict is recorded");
});

Deno.test("complianceAudit() refuses a malformed Idempotency-Key with 400 before any charge or limit", async () => {
  const deps = fakeDeps();
  const { apiKey } = await fakeAccount(deps.db);
  for (const key of ["", " ", "a b", "x".repeat(256)]) {
    const result = await call(deps, { content: CONTENT, jurisdiction: "CA" }, {
      "x-api-key": apiKey,
      "idempotency-key": key,
    });
    assert.equal(result.status, 400, JSON.stringify(key));
    assert.equal(AuditErrorEnvelope.parse(JSON.parse(result.text)).error.code, "invalid_request");
  }
  assert.equal(deps.db.names().includes("audit_record"), false);
  assert.deepEqual(deps.limiter.calls, []);
});
