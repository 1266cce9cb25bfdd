import assert from "node:assert/strict";
import { accountUpdate, apiKeyAccount } from "../../shared/db/accounts.ts";
import { auditRecord } from "../../shared/db/audits.ts";
import { type Db, DbError } from "../../shared/db/db.ts";
import { rulebookActive } from "../../shared/db/rulebooks.ts";

function recordingDb(answer: unknown) {
  const calls: Array<[string, Record<string, unknown> | undefined]> = [];
  const db: Db = {
    rpc: <T>(name: string, args?: Record<string, unknown>) => {
      calls.push([name, args]);
      return Promise.resolve(answer as T);
    },
    close: () => Promise.resolve(),
  };
  return { db, calls };
}

Deno.test("typed RPCs send the Postgres function's named arguments", async () => {
  const { db, calls } = recordingDb({
    account_id: "00000000-0000-4000-8000-000000000000",
    plan: "pro",
    status: "active",
    billing_interval: "month",
    price_per_month_usd: null,
    trial_end: null,
    created_at: "2026-01-01T00:00:00.000Z",
  });
  await accountUpdate(db, { accountId: "00000000-0000-4000-8000-000000000000", trialEnd: null });
  assert.deepEqual(calls, [["account_update", {
    p_account_id: "00000000-0000-4000-8000-000000000000",
    p_plan: null,
    p_status: null,
    p_trial_end: null,
    p_clear_trial_end: true,
  }]]);
  const none = recordingDb(null);
  assert.equal(await rulebookActive(none.db), null);
  assert.deepEqual(none.calls, [["rulebook_active", {}]]);
});

Deno.test("typed RPCs refuse a result of the wrong shape with a DbError that repeats no value", async () => {
  const { db } = recordingDb({ accepted: "SECRET-VALUE", usage_count: 1, monthly_limit: null });
  await assert.rejects(
    auditRecord(db, {
      accountId: "a",
      contentSha256: "0".repeat(64),
      contentLength: 1,
      jurisdiction: "CA",
      industry: null,
      assetUrl: null,
      verdict: "GREEN",
      riskScore: 0,
      penaltyExposureUsd: 0,
      rulebookVersion: 1,
      endpoint: "complianceAudit",
      latencyMs: 1,
      isAgent: true,
    }),
    (error: unknown) => {
      assert.ok(error instanceof DbError);
      assert.match(error.message, /^audit_record returned an unexpected result at accepted$/);
      return true;
    },
  );
  const wrongPlan = recordingDb({ account_id: "x", plan: "gold" });
  await assert.rejects(apiKeyAccount(wrongPlan.db, "0".repeat(64)), DbError);
});
