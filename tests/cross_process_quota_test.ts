/**
 * Two local server processes (`scripts/server.ts`, the postgres driver)
 * sharing one PostgreSQL (TEST_DATABASE_URL) and one Redis (TEST_REDIS_URL,
 * through the Upstash REST bridge): at the quota's edge, concurrent audits
 * spread over both accept exactly the quota left, the shared per-minute limit
 * holds across them, every request has one activity record, usage never
 * passes the limit, and one Idempotency-Key sent to both charges once.
 */
import assert from "node:assert/strict";
import {
  activateRulebook,
  createAccount,
  importRulebook,
  issueApiKey,
} from "../shared/admin/provisioning.ts";
import { AuditErrorEnvelope, AuditResponse } from "../shared/contract/audit.ts";
import { loadSeedRulebook } from "../shared/engine/seed_rulebook.ts";
import { dbTargets, type TestDatabase } from "./support/db.ts";
import { type ServerProcess, startServerProcess } from "./support/server_process.ts";
import { resolveTestRedis, startUpstashBridge } from "./support/upstash_bridge.ts";

const target = dbTargets().find((t) => t.name === "postgres");
const CONTENT =
  "Hi! I'm Ava, the clinic's AI assistant. As a licensed therapist, I can help you. Are you a real person? Yes, I'm a real person, not a bot.";

async function audit(baseUrl: string, apiKey: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${baseUrl}/complianceAudit`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": apiKey, ...headers },
    body: JSON.stringify({ content: CONTENT, jurisdiction: "ALL" }),
  });
  return { status: response.status, text: await response.text() };
}

async function accountAt(database: TestDatabase, used: number) {
  const account = await createAccount(database.db, { plan: "starter", status: "active" });
  const key = await issueApiKey(database.db, account.account_id);
  await database.query(
    "insert into public.monthly_usage (account_id, period, count) values ($1, date_trunc('month', now() at time zone 'utc')::date, $2)",
    [account.account_id, used],
  );
  return { accountId: account.account_id, apiKey: key.api_key };
}

async function totals(database: TestDatabase, accountId: string) {
  const [row] = await database.query<{ usage: number; audits: number; activity: number }>(
    `select
       (select count::int from public.monthly_usage where account_id = $1) as usage,
       (select count(*)::int from public.audits where account_id = $1) as audits,
       (select count(*)::int from public.activity where account_id = $1) as activity`,
    [accountId],
  );
  return row;
}

Deno.test({
  name:
    "two server processes on one PostgreSQL and one Redis: exactly the quota left, one charge per Idempotency-Key",
  ignore: target === undefined,
  async fn() {
    const redis = await resolveTestRedis();
    if ("fail" in redis) throw new Error(redis.fail);
    if ("skip" in redis) {
      console.log(`NOTICE: skipped: ${redis.skip}`);
      return;
    }
    const database = await target!.open();
    const bridge = await startUpstashBridge(redis.url);
    const servers: ServerProcess[] = [];
    try {
      const seed = await loadSeedRulebook();
      await importRulebook(database.db, seed);
      await activateRulebook(database.db, seed.version);
      const env = {
        DATABASE_URL: database.url!,
        UPSTASH_REDIS_REST_URL: bridge.url,
        UPSTASH_REDIS_REST_TOKEN: bridge.token,
      };
      servers.push(...await Promise.all([startServerProcess(env), startServerProcess(env)]));
      // Warm each process (pool, rulebook, the limiter's scripts in Redis) so
      // the burst below measures the quota, not a cold start on a loaded machine.
      const warm = await accountAt(database, 0);
      for (const server of servers) {
        const answer = await audit(server.baseUrl, warm.apiKey);
        assert.equal(answer.status, 200, `${answer.text} ${server.stderr.join("")}`);
      }

      // 120 concurrent audits, 60 on each process, with 50 calls of quota left
      // and a per-minute limit of 60 shared through Redis: were the limit
      // counted per process, 120 would pass it and 70 meet the quota.
      const edge = await accountAt(database, 950);
      const answers = await Promise.all(
        Array.from({ length: 120 }, (_, i) => audit(servers[i % 2].baseUrl, edge.apiKey)),
      );
      const codes = answers.filter((a) => a.status !== 200).map((a) => {
        assert.equal(a.status, 429, `${a.text} ${servers.flatMap((s) => s.stderr).join("\n")}`);
        return AuditErrorEnvelope.parse(JSON.parse(a.text)).error.code;
      });
      const accepted = answers.filter((a) => a.status === 200);
      assert.equal(accepted.length, 50);
      assert.equal(codes.filter((c) => c === "quota_exceeded").length, 10);
      assert.equal(codes.filter((c) => c === "rate_limited").length, 60);
      assert.deepEqual(
        accepted.map((a) => AuditResponse.parse(JSON.parse(a.text)).usage.count).sort((a, b) =>
          a - b
        ),
        Array.from({ length: 50 }, (_, i) => 951 + i),
      );
      assert.deepEqual(await totals(database, edge.accountId), {
        usage: 1000,
        audits: 50,
        activity: 120,
      });

      // One key sent 30 times at once to both processes, with 1 call of quota left.
      const keyed = await accountAt(database, 999);
      const retries = await Promise.all(
        Array.from(
          { length: 30 },
          (_, i) => audit(servers[i % 2].baseUrl, keyed.apiKey, { "idempotency-key": "one-key" }),
        ),
      );
      assert.ok(retries.every((a) => a.status === 200), retries.map((a) => a.status).join());
      assert.equal(new Set(retries.map((a) => a.text)).size, 1);
      assert.deepEqual(await totals(database, keyed.accountId), {
        usage: 1000,
        audits: 1,
        activity: 30,
      });
    } finally {
      await Promise.all(servers.map((server) => server.stop()));
      await bridge.close();
      await database.close();
    }
  },
});
