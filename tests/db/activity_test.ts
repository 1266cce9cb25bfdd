import assert from "node:assert/strict";
import { dbTargets, type TestDatabase } from "../support/db.ts";

interface Activity {
  timestamp: string;
  endpoint_queried: string;
  status_code: number;
  response_latency_ms: number | null;
  plan: string;
  is_agent: boolean;
}

async function createAccount(t: TestDatabase): Promise<string> {
  const account = await t.db.rpc<{ account_id: string }>("account_create", {
    p_plan: "pro",
    p_status: "trialing",
    p_trial_end: null,
    p_price_per_month_usd: null,
  });
  return account.account_id;
}

/** Inserts an activity row at an exact instant, labelled by its endpoint. */
async function insertAt(
  t: TestDatabase,
  accountId: string,
  at: string,
  endpoint: string,
): Promise<void> {
  await t.query(
    `insert into public.activity
       (account_id, created_at, endpoint_queried, status_code, response_latency_ms, plan, is_agent)
     values ($1, $2::timestamptz, $3, 200, null, 'pro', false)`,
    [accountId, at, endpoint],
  );
}

for (const target of dbTargets()) {
  Deno.test(`activity_record() appends a row with the account's plan [${target.name}]`, async () => {
    const t = await target.open();
    try {
      const accountId = await createAccount(t);
      const result = await t.db.rpc("activity_record", {
        p_account_id: accountId,
        p_endpoint: "agentSubscribe:verify",
        p_status_code: 200,
        p_latency_ms: null,
        p_is_agent: false,
      });
      assert.deepEqual(result, { recorded: true });
      const [log] = await t.db.rpc<Activity[]>("activity_recent", {
        p_account_id: accountId,
        p_limit: 5,
      });
      assert.equal(log.plan, "pro");
      assert.equal(log.response_latency_ms, null);
      assert.equal(log.endpoint_queried, "agentSubscribe:verify");
      await assert.rejects(
        t.db.rpc("activity_record", {
          p_account_id: crypto.randomUUID(),
          p_endpoint: "x",
          p_status_code: 200,
          p_latency_ms: 1,
          p_is_agent: false,
        }),
        { name: "DbError", code: "P0002" },
      );
    } finally {
      await t.close();
    }
  });

  Deno.test(`activity_recent() is newest first, limited and clamped [${target.name}]`, async () => {
    const t = await target.open();
    try {
      const accountId = await createAccount(t);
      const other = await createAccount(t);
      assert.deepEqual(
        await t.db.rpc("activity_recent", { p_account_id: accountId, p_limit: 10 }),
        [],
      );
      await insertAt(t, accountId, "2026-01-01T00:00:01.000Z", "a");
      await insertAt(t, accountId, "2026-01-01T00:00:03.000Z", "c1");
      await insertAt(t, accountId, "2026-01-01T00:00:03.000Z", "c2");
      await insertAt(t, accountId, "2026-01-01T00:00:02.000Z", "b");
      await insertAt(t, other, "2026-01-01T00:00:04.000Z", "other");
      const recent = async (limit: number) =>
        (await t.db.rpc<Activity[]>("activity_recent", { p_account_id: accountId, p_limit: limit }))
          .map((a) => a.endpoint_queried);
      assert.deepEqual(await recent(10), ["c2", "c1", "b", "a"]);
      assert.deepEqual(await recent(2), ["c2", "c1"]);
      assert.deepEqual(await recent(0), ["c2"], "a limit below 1 is clamped to 1");
      assert.deepEqual(await recent(5000), ["c2", "c1", "b", "a"]);
      const [newest] = await t.db.rpc<Activity[]>("activity_recent", {
        p_account_id: accountId,
        p_limit: 1,
      });
      assert.deepEqual(Object.keys(newest).sort(), [
        "endpoint_queried",
        "is_agent",
        "plan",
        "response_latency_ms",
        "status_code",
        "timestamp",
      ]);
      assert.equal(newest.timestamp, "2026-01-01T00:00:03.000Z");
    } finally {
      await t.close();
    }
  });

  Deno.test(`activity_month() holds exactly the UTC month, oldest first [${target.name}]`, async () => {
    const t = await target.open();
    try {
      const accountId = await createAccount(t);
      await insertAt(t, accountId, "2026-02-28T23:59:59.999Z", "feb-last");
      await insertAt(t, accountId, "2026-03-31T23:59:59.999Z", "mar-last");
      await insertAt(t, accountId, "2026-03-01T00:00:00.000Z", "mar-first");
      await insertAt(t, accountId, "2026-03-15T12:00:00.000Z", "mar-mid-1");
      await insertAt(t, accountId, "2026-03-15T12:00:00.000Z", "mar-mid-2");
      await insertAt(t, accountId, "2026-04-01T00:00:00.000Z", "apr-first");
      const expected = [
        ["2026-03-01T00:00:00.000Z", "mar-first"],
        ["2026-03-15T12:00:00.000Z", "mar-mid-1"],
        ["2026-03-15T12:00:00.000Z", "mar-mid-2"],
        ["2026-03-31T23:59:59.999Z", "mar-last"],
      ];
      const march = await t.db.rpc<Activity[]>("activity_month", {
        p_account_id: accountId,
        p_month: "2026-03",
      });
      assert.deepEqual(march.map((a) => [a.timestamp, a.endpoint_queried]), expected);
      // A session time zone with a DST change in March must not move the range.
      await t.query("set timezone to 'America/New_York'");
      try {
        const [{ result }] = await t.query<{ result: Activity[] }>(
          "select public.activity_month($1, '2026-03') as result",
          [accountId],
        );
        const parsed = typeof result === "string" ? JSON.parse(result) as Activity[] : result;
        assert.deepEqual(parsed.map((a) => [a.timestamp, a.endpoint_queried]), expected);
      } finally {
        await t.query("reset timezone");
      }
      assert.deepEqual(
        await t.db.rpc("activity_month", { p_account_id: accountId, p_month: "2026-05" }),
        [],
      );
      const feb = await t.db.rpc<Activity[]>("activity_month", {
        p_account_id: accountId,
        p_month: "2026-02",
      });
      assert.deepEqual(feb.map((a) => a.endpoint_queried), ["feb-last"]);
    } finally {
      await t.close();
    }
  });

  Deno.test(`activity_month() raises 22023 for a malformed month [${target.name}]`, async () => {
    const t = await target.open();
    try {
      const accountId = await createAccount(t);
      for (const month of ["2026-13", "2026-00", "2026-1", "26-01", "2026-01-01", "", "x"]) {
        await assert.rejects(
          t.db.rpc("activity_month", { p_account_id: accountId, p_month: month }),
          { name: "DbError", code: "22023" },
          month,
        );
      }
    } finally {
      await t.close();
    }
  });
}
