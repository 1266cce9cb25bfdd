/**
 * Group commit in the postgres adapter (shared/db/call_batcher.ts, migrations
 * 20261127000101 and 20261127000201): concurrent audit_record and
 * audit_key_account calls go to PostgreSQL together, as one statement, one
 * transaction and one commit, and each call is answered as if it had been
 * sent alone: exact at the quota, one charge per Idempotency-Key, an unknown
 * account failing its own call only, and a batch that fails failing every
 * call in it with nothing of them stored. PostgreSQL only (TEST_DATABASE_URL):
 * the other adapters send each call alone.
 */
import assert from "node:assert/strict";
import { generateApiKey } from "../../shared/auth/api_key.ts";
import type { Db } from "../../shared/db/db.ts";
import { createPostgresDb } from "../../shared/db/postgres_db.ts";
import {
  createTestAccount,
  dbTargets,
  seedRulebook,
  setUsage,
  type TestDatabase,
  usagePeriod,
} from "../support/db.ts";
import { startTcpProxy, type TcpProxy } from "../support/tcp_proxy.ts";

const postgres = dbTargets().find((target) => target.name === "postgres");

interface AuditResult {
  accepted: boolean;
  usage_count: number;
  monthly_limit: number | null;
  replayed?: true;
  conflict?: true;
  response?: Record<string, unknown>;
}

function auditArgs(accountId: string, version: number, extra: Record<string, unknown> = {}) {
  return {
    p_account_id: accountId,
    p_content_sha256: "c".repeat(64),
    p_content_length: 42,
    p_jurisdiction: "CA",
    p_industry: null,
    p_asset_url: null,
    p_verdict: "YELLOW",
    p_risk_score: 41.5,
    p_penalty_exposure_usd: 2500,
    p_rulebook_version: version,
    p_endpoint: "complianceAudit",
    p_latency_ms: 3.25,
    p_is_agent: true,
    ...extra,
  };
}

async function stored(t: TestDatabase, accountId: string) {
  const [row] = await t.query<{ usage: number | null; audits: number; activity: number }>(
    `select
       (select count from public.monthly_usage where account_id = $1 and period = $2::date) as usage,
       (select count(*)::int from public.audits where account_id = $1) as audits,
       (select count(*)::int from public.activity where account_id = $1) as activity`,
    [accountId, usagePeriod()],
  );
  return row;
}

/**
 * A postgres adapter through a counting proxy, one send in flight: while the
 * first call of a burst is out, every other call of it waits, and they go
 * together as the next send.
 */
function batchingDb(t: TestDatabase): { db: Db; proxy: TcpProxy } {
  const real = new URL(t.url!);
  const proxy = startTcpProxy({ hostname: real.hostname, port: Number(real.port) });
  const db = createPostgresDb(proxy.via(t.url!), { max: 4, groupCommit: { maxInFlight: 1 } });
  return { db, proxy };
}

/**
 * A test on a fresh PostgreSQL database, through a batching adapter and its
 * counting proxy (batchingDb); skipped without TEST_DATABASE_URL.
 */
function batchTest(
  name: string,
  fn: (t: TestDatabase, db: Db, proxy: TcpProxy) => Promise<void>,
): void {
  Deno.test({
    name,
    ignore: postgres === undefined,
    async fn() {
      const t = await postgres!.open();
      const { db, proxy } = batchingDb(t);
      try {
        await fn(t, db, proxy);
      } finally {
        await db.close();
        await proxy.close();
        await t.close();
      }
    },
  });
}

/** Round trips on the wire since `from`: Sync, simple Query and Flush messages. */
function roundTrips(proxy: TcpProxy, from: number): number {
  return proxy.frontendMessages().slice(from).filter((m) => m === "S" || m === "Q" || m === "H")
    .length;
}

batchTest(
  "concurrent audits share round trips and each gets its own unit of quota, exact at the limit",
  async (t, db, proxy) => {
    const version = await seedRulebook(t.db);
    const accountId = await createTestAccount(t.db);
    // A starter account (1,000 a month) with 20 audits left.
    await setUsage(t, accountId, 980);
    await db.rpc("service_ping"); // the connection and its statements, out of the count
    const before = proxy.frontendMessages().length;
    const results = await Promise.all(
      Array.from(
        { length: 60 },
        () => db.rpc<AuditResult>("audit_record", auditArgs(accountId, version)),
      ),
    );
    const accepted = results.filter((r) => r.accepted);
    assert.deepEqual(
      accepted.map((r) => r.usage_count).sort((a, b) => a - b),
      Array.from({ length: 20 }, (_, i) => 981 + i),
    );
    assert.ok(results.filter((r) => !r.accepted).every((r) => r.usage_count === 1000));
    assert.deepEqual(await stored(t, accountId), { usage: 1000, audits: 20, activity: 20 });
    const trips = roundTrips(proxy, before);
    assert.ok(trips < 30, `60 concurrent audits went in ${trips} round trips`);
  },
);

batchTest(
  "a batch of different accounts answers and stores what each call alone would",
  async (t, db, proxy) => {
    const version = await seedRulebook(t.db);
    await t.query("update public.plans set monthly_quota = 0 where plan = 'pro'");
    /** Accounts in every state a call can meet: one set batched, its twin sent call by call. */
    const accounts = async () => {
      const [lastUnit, atQuota, fresh, unlimited, noQuota] = [
        await createTestAccount(t.db),
        await createTestAccount(t.db),
        await createTestAccount(t.db),
        await createTestAccount(t.db, "enterprise"),
        await createTestAccount(t.db, "pro"),
      ];
      await setUsage(t, lastUnit, 999);
      await setUsage(t, atQuota, 1000);
      await setUsage(t, unlimited, 5000);
      return [lastUnit, atQuota, fresh, unlimited, noQuota, crypto.randomUUID()];
    };
    const batched = await accounts();
    const alone = await accounts();
    const outcome = (result: PromiseSettledResult<AuditResult>) =>
      result.status === "fulfilled"
        ? result.value
        : { failed: (result.reason as { code?: string }).code };
    // The first call goes alone; the six behind it, all of different accounts, together.
    const first = await createTestAccount(t.db);
    const before = proxy.frontendMessages().length;
    const together = await Promise.allSettled([
      db.rpc<AuditResult>("audit_record", auditArgs(first, version)),
      ...batched.map((id) => db.rpc<AuditResult>("audit_record", auditArgs(id, version))),
    ]);
    const trips = roundTrips(proxy, before);
    assert.ok(trips < 6, `seven calls, the last six together: ${trips} round trips`);
    const oneByOne: PromiseSettledResult<AuditResult>[] = [];
    for (const id of alone) {
      oneByOne.push(
        (await Promise.allSettled([
          t.db.rpc<AuditResult>("audit_record", auditArgs(id, version)),
        ]))[0],
      );
    }
    assert.deepEqual(together.slice(1).map(outcome), oneByOne.map(outcome));
    assert.deepEqual(together.slice(1).map(outcome), [
      { accepted: true, usage_count: 1000, monthly_limit: 1000 },
      { accepted: false, usage_count: 1000, monthly_limit: 1000 },
      { accepted: true, usage_count: 1, monthly_limit: 1000 },
      { accepted: true, usage_count: 5001, monthly_limit: null },
      { accepted: false, usage_count: 0, monthly_limit: 0 },
      { failed: "P0002" },
    ]);
    for (const [i, id] of batched.entries()) {
      assert.deepEqual(await stored(t, id), await stored(t, alone[i]));
    }
    const rows = (id: string) =>
      t.query(
        `select content_sha256, content_length, jurisdiction, industry, asset_url, verdict,
             risk_score::text, penalty_exposure_usd::text, rulebook_version,
             (select pg_catalog.jsonb_agg(pg_catalog.jsonb_build_array(endpoint_queried,
               status_code, response_latency_ms::text, plan, is_agent))
              from public.activity v where v.account_id = a.account_id) as activity
           from public.audits a where a.account_id = $1`,
        [id],
      );
    assert.deepEqual(await rows(batched[0]), await rows(alone[0]));
    assert.equal((await rows(batched[0])).length, 1);
  },
);

batchTest(
  "an Idempotency-Key sent twice in one batch is charged once and replayed to the second",
  async (t, db, _proxy) => {
    const version = await seedRulebook(t.db);
    const [first, other] = [await createTestAccount(t.db), await createTestAccount(t.db)];
    const keyed = (request: string) =>
      auditArgs(first, version, {
        p_idempotency_key_sha256: "a".repeat(64),
        p_request_sha256: request.repeat(64),
        p_response: { verdict: "YELLOW", risk_score: 41.5 },
      });
    // The other account's call goes alone; the three behind it go together.
    const results = await Promise.all([
      db.rpc<AuditResult>("audit_record", auditArgs(other, version)),
      db.rpc<AuditResult>("audit_record", keyed("b")),
      db.rpc<AuditResult>("audit_record", keyed("b")),
      db.rpc<AuditResult>("audit_record", keyed("d")),
    ]);
    assert.equal(results[0].accepted, true);
    assert.deepEqual(results[1], { accepted: true, usage_count: 1, monthly_limit: 1000 });
    assert.deepEqual(results[2], {
      accepted: true,
      replayed: true,
      usage_count: 1,
      monthly_limit: 1000,
      response: { verdict: "YELLOW", risk_score: 41.5 },
    });
    assert.deepEqual(results[3], {
      accepted: false,
      conflict: true,
      usage_count: 1,
      monthly_limit: 1000,
    });
    // One charge, one audit; a 200 activity row for the audit and its replay.
    assert.deepEqual(await stored(t, first), { usage: 1, audits: 1, activity: 2 });
  },
);

for (const twice of [true, false]) {
  batchTest(
    `an unknown account in a batch fails its own call only (${
      twice ? "an account twice" : "different accounts"
    })`,
    async (t, db, _proxy) => {
      const version = await seedRulebook(t.db);
      const accounts = [await createTestAccount(t.db), await createTestAccount(t.db)];
      const last = twice ? accounts[0] : await createTestAccount(t.db);
      const unknown = crypto.randomUUID();
      const results = await Promise.allSettled([
        db.rpc<AuditResult>("audit_record", auditArgs(accounts[0], version)),
        db.rpc<AuditResult>("audit_record", auditArgs(accounts[1], version)),
        db.rpc<AuditResult>("audit_record", auditArgs(unknown, version)),
        db.rpc<AuditResult>("audit_record", auditArgs(last, version)),
      ]);
      assert.deepEqual(results.map((r) => r.status), [
        "fulfilled",
        "fulfilled",
        "rejected",
        "fulfilled",
      ]);
      const refused = results[2] as PromiseRejectedResult;
      assert.equal(refused.reason.name, "DbError");
      assert.equal(refused.reason.code, "P0002");
      assert.deepEqual(
        await stored(t, accounts[0]),
        twice ? { usage: 2, audits: 2, activity: 2 } : { usage: 1, audits: 1, activity: 1 },
      );
      assert.deepEqual(await stored(t, accounts[1]), { usage: 1, audits: 1, activity: 1 });
      if (!twice) assert.deepEqual(await stored(t, last), { usage: 1, audits: 1, activity: 1 });
    },
  );
}

for (const twice of [true, false]) {
  batchTest(
    `a batch that fails fails every call in it, and stores nothing of them (${
      twice ? "an account twice" : "different accounts"
    })`,
    async (t, db, _proxy) => {
      const version = await seedRulebook(t.db);
      const [alone, batched] = [await createTestAccount(t.db), await createTestAccount(t.db)];
      const others = twice
        ? [batched, batched]
        : [await createTestAccount(t.db), await createTestAccount(t.db)];
      const results = await Promise.allSettled([
        db.rpc<AuditResult>("audit_record", auditArgs(alone, version)),
        db.rpc<AuditResult>("audit_record", auditArgs(others[0], version)),
        // A risk score the audits table refuses: the statement fails.
        db.rpc<AuditResult>("audit_record", auditArgs(batched, version, { p_risk_score: 101 })),
        db.rpc<AuditResult>("audit_record", auditArgs(others[1], version)),
      ]);
      assert.deepEqual(results.map((r) => r.status), [
        "fulfilled",
        "rejected",
        "rejected",
        "rejected",
      ]);
      for (const result of results.slice(1) as PromiseRejectedResult[]) {
        assert.equal(result.reason.name, "DbError");
        assert.equal(result.reason.code, "23514");
      }
      assert.deepEqual(await stored(t, alone), { usage: 1, audits: 1, activity: 1 });
      for (const id of new Set([batched, ...others])) {
        assert.deepEqual(await stored(t, id), { usage: null, audits: 0, activity: 0 });
      }
    },
  );
}

batchTest(
  "concurrent key lookups in one batch each answer for their own key",
  async (t, db, _proxy) => {
    await seedRulebook(t.db);
    const accounts = [await createTestAccount(t.db), await createTestAccount(t.db)];
    const keys = [await generateApiKey(), await generateApiKey()];
    for (const [i, key] of keys.entries()) {
      await t.db.rpc("api_key_create", {
        p_account_id: accounts[i],
        p_key_digest: key.digest,
        p_key_prefix: key.displayPrefix,
      });
    }
    const unknown = await generateApiKey();
    const lookups = [keys[0], keys[1], unknown, keys[0]].map((key) =>
      db.rpc<{ account_id: string; active_rulebook_version: number } | null>(
        "audit_key_account",
        { p_key_digest: key.digest },
      )
    );
    const answers = await Promise.all(lookups);
    assert.deepEqual(
      answers.map((a) => a?.account_id ?? null),
      [accounts[0], accounts[1], null, accounts[0]],
    );
    assert.ok(answers.every((a) => a === null || a.active_rulebook_version === 1));
  },
);
