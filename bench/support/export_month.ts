/** The month export_audit's benchmark exports: 10,000 activity records of one account. */
import { createAccount, issueApiKey } from "../../shared/admin/provisioning.ts";
import type { BenchDb } from "./databases.ts";

/** Creates an account and `count` activity records in `month` ('YYYY-MM'), spread over it. */
export async function fillExportMonth(
  bench: BenchDb,
  month: string,
  count: number,
): Promise<{ accountId: string; apiKey: string }> {
  const account = await createAccount(bench.db, {
    plan: "enterprise",
    status: "active",
    trialEnd: null,
    pricePerMonthUsd: null,
  });
  const key = await issueApiKey(bench.db, account.account_id);
  await bench.sql(
    `insert into public.activity
       (account_id, created_at, endpoint_queried, status_code, response_latency_ms, plan, is_agent)
     select $1::uuid,
            ($3::text || '-01')::timestamptz + (i * interval '4 minutes') + (i % 1000) * interval '1 microsecond',
            case i % 3 when 0 then 'complianceAudit' when 1 then 'agentSubscribe.get_logs'
                       else 'agentSubscribe.verify' end,
            case when i % 17 = 0 then 429 else 200 end,
            case when i % 11 = 0 then null else round((i % 997) * 0.37, 2) end,
            'enterprise', i % 2 = 0
     from pg_catalog.generate_series(1, $2::integer) as i`,
    [account.account_id, count, month],
  );
  return { accountId: account.account_id, apiKey: key.api_key };
}
