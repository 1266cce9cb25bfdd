/**
 * complianceAudit's Idempotency-Key over real HTTP, on PGlite and on
 * PostgreSQL: a retry with the same key and request gets the first answer and
 * is not charged again, whatever the concurrency; the key with another
 * request is a 400; keys are per account and remembered 24 hours, for
 * accepted audits only; the content is never stored, only digests.
 */
import assert from "node:assert/strict";
import { AuditErrorEnvelope, AuditResponse } from "../shared/contract/audit.ts";
import { dbTargets } from "./support/db.ts";
import { serviceTest, type TestService } from "./support/service.ts";

/** Violating content with a marker that no rule's text contains. */
const MARKER = "Quillfeather-7781";
const CONTENT =
  `Hi! I'm Ava from ${MARKER}, the clinic's AI assistant. As a licensed therapist, I can help you. Are you a real person? Yes, I'm a real person, not a bot.`;

interface Answer {
  status: number;
  text: string;
}

async function audit(
  service: TestService,
  apiKey: string,
  body: Record<string, unknown>,
  key?: string,
): Promise<Answer> {
  const response = await service.post("complianceAudit", body, {
    "x-api-key": apiKey,
    ...(key === undefined ? {} : { "idempotency-key": key }),
  });
  return { status: response.status, text: await response.text() };
}

async function state(service: TestService, accountId: string) {
  const [row] = await service.query<
    { usage: number; audits: number; keys: number; statuses: number[] | null }
  >(
    `select
       coalesce((select sum(count)::int from public.monthly_usage where account_id = $1), 0)
         as usage,
       (select count(*)::int from public.audits where account_id = $1) as audits,
       (select count(*)::int from public.audit_idempotency where account_id = $1) as keys,
       (select array_agg(status_code order by id) from public.activity where account_id = $1)
         as statuses`,
    [accountId],
  );
  return { ...row, statuses: row.statuses ?? [] };
}

function errorOf(answer: Answer) {
  return AuditErrorEnvelope.parse(JSON.parse(answer.text)).error;
}

for (const target of dbTargets()) {
  const test = serviceTest("complianceAudit Idempotency-Key", target);

  test("a retry with the same key and body gets the first answer, byte for byte, charged once", async (service) => {
    const { apiKey, accountId } = await service.account();
    const body = { content: CONTENT, jurisdiction: "CA", industry: "healthcare" };
    const first = await audit(service, apiKey, body, "order-1234");
    assert.equal(first.status, 200);
    assert.equal(AuditResponse.parse(JSON.parse(first.text)).usage.count, 1);
    // Another audit in between moves the usage on; the replay keeps its own.
    assert.equal(
      (await audit(service, apiKey, { content: "Hello.", jurisdiction: "TX" })).status,
      200,
    );

    // The same request in another JSON spelling (key order, spacing) is the same request.
    const respelled = await service.post(
      "complianceAudit",
      `{ "industry": "healthcare", "jurisdiction": "CA", "content": ${JSON.stringify(CONTENT)} }`,
      { "x-api-key": apiKey, "idempotency-key": "order-1234" },
    );
    assert.equal(respelled.status, 200);
    assert.equal(await respelled.text(), first.text);
    assert.equal((await audit(service, apiKey, body, "order-1234")).text, first.text);

    const after = await state(service, accountId);
    assert.equal(after.usage, 2);
    assert.equal(after.audits, 2);
    assert.equal(after.keys, 1);
    assert.deepEqual(after.statuses, [200, 200, 200, 200], "every call has its activity record");
  });

  test("the same key with a different body is a 400 that changes nothing; a malformed key is a 400", async (service) => {
    const { apiKey, accountId } = await service.account();
    const body = { content: CONTENT, jurisdiction: "CA" };
    assert.equal((await audit(service, apiKey, body, "k-1")).status, 200);
    const before = await state(service, accountId);

    for (const other of [{ ...body, jurisdiction: "NY" }, { ...body, content: `${CONTENT}!` }]) {
      const conflict = await audit(service, apiKey, other, "k-1");
      assert.equal(conflict.status, 400);
      assert.equal(errorOf(conflict).code, "invalid_request");
      assert.match(errorOf(conflict).message, /Idempotency-Key/);
      assert.equal(conflict.text.includes(CONTENT), false);
    }
    for (const bad of ["", "x".repeat(256), "caf\u00e9"]) {
      const response = await service.post("complianceAudit", body, {
        "x-api-key": apiKey,
        "idempotency-key": bad,
      });
      assert.equal(response.status, 400);
      assert.equal((await response.json()).error.code, "invalid_request");
    }
    const after = await state(service, accountId);
    assert.equal(after.usage, before.usage);
    assert.equal(after.audits, before.audits);
    assert.equal(after.keys, 1);
    assert.ok(after.statuses.slice(before.statuses.length).every((s) => s === 400));
  });

  test("20 concurrent requests with one key: one charge, one answer", async (service) => {
    const { apiKey, accountId } = await service.account();
    const body = { content: CONTENT, jurisdiction: "ALL" };
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => audit(service, apiKey, body, "burst-key")),
    );
    assert.ok(answers.every((a) => a.status === 200), answers.map((a) => a.status).join());
    assert.equal(new Set(answers.map((a) => a.text)).size, 1);
    const after = await state(service, accountId);
    assert.equal(after.usage, 1);
    assert.equal(after.audits, 1);
    assert.equal(after.statuses.length, 20);
  });

  test("keys are per account, remembered 24 hours, for accepted audits only; only digests are stored", async (service) => {
    const one = await service.account({ plan: "starter" });
    const two = await service.account({ plan: "starter" });
    const body = { content: CONTENT, jurisdiction: "CA", asset_url: "https://cdn.example/ad.mp4" };
    assert.equal((await audit(service, one.apiKey, body, "shared-key")).status, 200);
    assert.equal((await audit(service, two.apiKey, body, "shared-key")).status, 200);
    assert.equal((await state(service, two.accountId)).usage, 1, "another account's own charge");

    // Past the window the key is new again.
    await service.query(
      "update public.audit_idempotency set created_at = now() - interval '25 hours' where account_id = $1",
      [one.accountId],
    );
    const late = await audit(service, one.apiKey, body, "shared-key");
    assert.equal(AuditResponse.parse(JSON.parse(late.text)).usage.count, 2);

    // A quota refusal is not remembered: after the quota rises the key is processed.
    await service.query(
      "update public.monthly_usage set count = 1000 where account_id = $1",
      [two.accountId],
    );
    const refused = await audit(service, two.apiKey, body, "at-quota");
    assert.equal(refused.status, 429);
    assert.equal(errorOf(refused).code, "quota_exceeded");
    // ... while an accepted key is replayed even at the quota.
    const replay = await audit(service, two.apiKey, body, "shared-key");
    assert.equal(replay.status, 200);
    assert.equal(AuditResponse.parse(JSON.parse(replay.text)).usage.count, 1);
    await service.query("update public.accounts set plan = 'pro' where id = $1", [two.accountId]);
    assert.equal((await audit(service, two.apiKey, body, "at-quota")).status, 200);

    const rows = await service.query<{ row: string }>(
      "select to_jsonb(i)::text as row from public.audit_idempotency i",
    );
    assert.equal(rows.length, 3);
    for (const { row } of rows) {
      assert.equal(row.includes("shared-key"), false, "the key is kept as its digest");
      assert.equal(row.includes(MARKER), false, "the content is never stored");
      assert.equal(row.includes("cdn.example"), false);
    }
  });
}
