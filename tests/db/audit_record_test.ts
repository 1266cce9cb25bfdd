import assert from "node:assert/strict";
import {
  createTestAccount,
  dbTargets,
  seedRulebook,
  setUsage,
  type TestDatabase,
  usagePeriod,
} from "../support/db.ts";

interface AuditResult {
  accepted: boolean;
  usage_count: number;
  monthly_limit: number | null;
}

function auditArgs(accountId: string, version: number): Record<string, unknown> {
  return {
    p_account_id: accountId,
    p_content_sha256: "c".repeat(64),
    p_content_length: 42,
    p_jurisdiction: "CA",
    p_industry: "media",
    p_asset_url: "https://example.test/ad.mp4",
    p_verdict: "RED",
    p_risk_score: 87.5,
    p_penalty_exposure_usd: 2500,
    p_rulebook_version: version,
    p_endpoint: "complianceAudit",
    p_latency_ms: 12.25,
    p_is_agent: true,
  };
}

async function counts(t: TestDatabase, accountId: string) {
  const [row] = await t.query<
    { usage: number | null; audits: number; ok: number; refused: number; activity: number }
  >(
    `select
       (select count from public.monthly_usage where account_id = $1 and period = $2::date) as usage,
       (select count(*)::int from public.audits where account_id = $1) as audits,
       (select count(*)::int from public.activity where account_id = $1 and status_code = 200) as ok,
       (select count(*)::int from public.activity where account_id = $1 and status_code = 429)
         as refused,
       (select count(*)::int from public.activity where account_id = $1) as activity`,
    [accountId, usagePeriod()],
  );
  return row;
}

for (const target of dbTargets({ poolSize: 20 })) {
  Deno.test(`audit_record() stores the audit and a 200 activity row [${target.name}]`, async () => {
    const t = await target.open();
    try {
      const version = await seedRulebook(t.db);
      const accountId = await createTestAccount(t.db);
      const result = await t.db.rpc<AuditResult>("audit_record", auditArgs(accountId, version));
      assert.deepEqual(result, { accepted: true, usage_count: 1, monthly_limit: 1000 });
      const [audit] = await t.query<Record<string, unknown>>(
        `select content_sha256, content_length, jurisdiction, industry, asset_url, verdict,
           risk_score::float8 as risk_score, penalty_exposure_usd::float8 as penalty,
           rulebook_version from public.audits where account_id = $1`,
        [accountId],
      );
      assert.deepEqual(audit, {
        content_sha256: "c".repeat(64),
        content_length: 42,
        jurisdiction: "CA",
        industry: "media",
        asset_url: "https://example.test/ad.mp4",
        verdict: "RED",
        risk_score: 87.5,
        penalty: 2500,
        rulebook_version: version,
      });
      const logs = await t.db.rpc<unknown[]>("activity_recent", {
        p_account_id: accountId,
        p_limit: 10,
      });
      assert.equal(logs.length, 1);
      const [log] = logs as Record<string, unknown>[];
      assert.match(String(log.timestamp), /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      assert.deepEqual({ ...log, timestamp: "" }, {
        timestamp: "",
        endpoint_queried: "complianceAudit",
        status_code: 200,
        response_latency_ms: 12.25,
        plan: "starter",
        is_agent: true,
      });
      const columns = await t.query<{ name: string }>(
        `select column_name as name from information_schema.columns
         where table_schema = 'public' and table_name = 'audits'`,
      );
      assert.ok(!columns.some((c) => c.name === "content"), "raw content is never a column");
    } finally {
      await t.close();
    }
  });

  Deno.test(`audit_record() at the quota changes nothing and leaves the refusal to its caller [${target.name}]`, async () => {
    const t = await target.open();
    try {
      const version = await seedRulebook(t.db);
      const accountId = await createTestAccount(t.db);
      await setUsage(t, accountId, 1000);
      const result = await t.db.rpc<AuditResult>("audit_record", auditArgs(accountId, version));
      assert.deepEqual(result, { accepted: false, usage_count: 1000, monthly_limit: 1000 });
      assert.deepEqual(await counts(t, accountId), {
        usage: 1000,
        audits: 0,
        ok: 0,
        refused: 0,
        activity: 0,
      });
    } finally {
      await t.close();
    }
  });

  Deno.test(`audit_record() with a quota of 0 accepts nothing [${target.name}]`, async () => {
    const t = await target.open();
    try {
      const version = await seedRulebook(t.db);
      await t.query("update public.plans set monthly_quota = 0 where plan = 'starter'");
      const accountId = await createTestAccount(t.db);
      const result = await t.db.rpc<AuditResult>("audit_record", auditArgs(accountId, version));
      assert.deepEqual(result, { accepted: false, usage_count: 0, monthly_limit: 0 });
      assert.deepEqual(await counts(t, accountId), {
        usage: null,
        audits: 0,
        ok: 0,
        refused: 0,
        activity: 0,
      });
    } finally {
      await t.close();
    }
  });

  Deno.test(`audit_record() never limits an unlimited plan [${target.name}]`, async () => {
    const t = await target.open();
    try {
      const version = await seedRulebook(t.db);
      const accountId = await createTestAccount(t.db, "enterprise");
      await setUsage(t, accountId, 123456);
      const result = await t.db.rpc<AuditResult>("audit_record", auditArgs(accountId, version));
      assert.deepEqual(result, { accepted: true, usage_count: 123457, monthly_limit: null });
    } finally {
      await t.close();
    }
  });

  Deno.test(`audit_record() raises P0002 for an unknown account [${target.name}]`, async () => {
    const t = await target.open();
    try {
      const version = await seedRulebook(t.db);
      await assert.rejects(
        t.db.rpc("audit_record", auditArgs(crypto.randomUUID(), version)),
        { name: "DbError", code: "P0002" },
      );
    } finally {
      await t.close();
    }
  });

  Deno.test(
    `audit_record() accepts exactly the 50 left of 200 concurrent calls [${target.name}]`,
    async () => {
      const t = await target.open();
      try {
        const version = await seedRulebook(t.db);
        const accountId = await createTestAccount(t.db);
        await setUsage(t, accountId, 950);
        const results = await Promise.all(
          Array.from(
            { length: 200 },
            () => t.db.rpc<AuditResult>("audit_record", auditArgs(accountId, version)),
          ),
        );
        const accepted = results.filter((r) => r.accepted);
        assert.equal(accepted.length, 50);
        assert.deepEqual(
          accepted.map((r) => r.usage_count).sort((a, b) => a - b),
          Array.from({ length: 50 }, (_, i) => 951 + i),
          "each accepted call got its own unit of quota",
        );
        assert.ok(results.filter((r) => !r.accepted).every((r) => r.usage_count === 1000));
        assert.deepEqual(await counts(t, accountId), {
          usage: 1000,
          audits: 50,
          ok: 50,
          refused: 0,
          activity: 50,
        });
      } finally {
        await t.close();
      }
    },
  );
}
