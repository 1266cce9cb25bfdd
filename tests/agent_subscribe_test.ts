/**
 * agentSubscribe end to end over real HTTP: every row of contract 7.2 and
 * every field of 2.8, on PGlite and (with TEST_DATABASE_URL) PostgreSQL.
 */
import assert from "node:assert/strict";
import Papa from "papaparse";
import { ACTIVITY_CSV_COLUMNS, LogsResponse, VerifyResponse } from "../shared/contract/account.ts";
import { activityCsv } from "../shared/handlers/agent_subscribe.ts";
import { dbTargets } from "./support/db.ts";
import { serviceTest } from "./support/service.ts";

function thisMonth(): string {
  return new Date().toISOString().slice(0, 7);
}

for (const target of dbTargets()) {
  const test = serviceTest("agentSubscribe", target);

  test("verify returns exactly the verification fields", async (service) => {
    const { apiKey, accountId } = await service.account({ plan: "pro", price: 99 });
    await service.query(
      "insert into public.monthly_usage (account_id, period, count) values ($1, date_trunc('month', now() at time zone 'utc')::date, 7)",
      [accountId],
    );
    const response = await service.post("agentSubscribe", { action: "verify" }, {
      "x-api-key": apiKey,
    });
    assert.equal(response.status, 200);
    const body = await response.json();
    assert.deepEqual(Object.keys(body).sort(), [
      "billing_interval",
      "plan",
      "price_per_month_usd",
      "status",
      "trial_end",
      "usage_count",
      "valid",
    ]);
    assert.deepEqual(VerifyResponse.parse(body), {
      valid: true,
      plan: "pro",
      billing_interval: "month",
      price_per_month_usd: 99,
      status: "active",
      usage_count: 7,
      trial_end: null,
    });

    const trial = await service.account({
      plan: "starter",
      status: "trialing",
      trialEnd: "2999-01-31T12:00:00Z",
    });
    const trialBody = VerifyResponse.parse(
      await (await service.post("agentSubscribe", { action: "verify" }, {
        "x-api-key": trial.apiKey,
      })).json(),
    );
    assert.equal(trialBody.status, "trialing");
    assert.equal(trialBody.price_per_month_usd, null);
    assert.equal(Date.parse(trialBody.trial_end!), Date.parse("2999-01-31T12:00:00Z"));
  });

  test("verify's usage_count is the quota's counter of accepted audits", async (service) => {
    const { apiKey } = await service.account();
    for (let i = 0; i < 3; i++) {
      const audit = await service.post("complianceAudit", {
        content: "Hello there.",
        jurisdiction: "CA",
      }, {
        "x-api-key": apiKey,
      });
      assert.equal(audit.status, 200);
      await audit.body?.cancel();
    }
    const rejected = await service.post("complianceAudit", { content: "", jurisdiction: "CA" }, {
      "x-api-key": apiKey,
    });
    assert.equal(rejected.status, 400);
    await rejected.body?.cancel();
    const body = VerifyResponse.parse(
      await (await service.post("agentSubscribe", { action: "verify" }, { "x-api-key": apiKey }))
        .json(),
    );
    assert.equal(body.usage_count, 3);
  });

  test("get_logs returns exactly logs and account_id, newest first, capped", async (service) => {
    const { apiKey, accountId } = await service.account({ plan: "pro" });
    await service.query(
      `insert into public.activity (account_id, created_at, endpoint_queried, status_code, response_latency_ms, plan, is_agent)
       select $1, timestamptz '2026-01-01T00:00:00Z' + (i || ' minutes')::interval, 'complianceAudit', 200, i, 'pro', true
       from generate_series(1, 120) as i`,
      [accountId],
    );
    await service.query(
      `insert into public.activity (account_id, created_at, endpoint_queried, status_code, response_latency_ms, plan, is_agent)
       values ($1, timestamptz '2026-01-02T00:00:00Z', 'agentSubscribe.verify', 401, null, 'pro', false)`,
      [accountId],
    );
    const response = await service.post("agentSubscribe", { action: "get_logs" }, {
      "x-api-key": apiKey,
    });
    assert.equal(response.status, 200);
    const body = await response.json();
    assert.deepEqual(Object.keys(body).sort(), ["account_id", "logs"]);
    const parsed = LogsResponse.parse(body);
    assert.equal(parsed.account_id, accountId);
    assert.equal(parsed.logs.length, 100);
    for (const log of parsed.logs) {
      assert.deepEqual(Object.keys(log).sort(), [
        "endpoint_queried",
        "is_agent",
        "plan",
        "response_latency_ms",
        "status_code",
        "timestamp",
      ]);
    }
    assert.deepEqual(parsed.logs[0], {
      timestamp: "2026-01-02T00:00:00.000Z",
      endpoint_queried: "agentSubscribe.verify",
      status_code: 401,
      response_latency_ms: null,
      plan: "pro",
      is_agent: false,
    });
    assert.equal(parsed.logs[1].response_latency_ms, 120);
    const times = parsed.logs.map((l) => Date.parse(l.timestamp));
    assert.deepEqual(times, [...times].sort((a, b) => b - a));
    // Another account's records never show.
    const other = await service.account();
    const otherLogs = LogsResponse.parse(
      await (await service.post("agentSubscribe", { action: "get_logs" }, {
        "x-api-key": other.apiKey,
      })).json(),
    );
    assert.deepEqual(otherLogs.logs, []);
  });

  test("export_audit returns the month as RFC 4180 CSV that matches get_logs", async (service) => {
    const { apiKey, accountId } = await service.account({ plan: "starter" });
    for (const content of ["Hello there.", "I am a human, not an AI."]) {
      const audit = await service.post("complianceAudit", { content, jurisdiction: "CA" }, {
        "x-api-key": apiKey,
      });
      await audit.body?.cancel();
    }
    const invalid = await service.post("complianceAudit", { content: "x", jurisdiction: "nope" }, {
      "x-api-key": apiKey,
    });
    await invalid.body?.cancel();
    const viaBody = await service.post("agentSubscribe", { action: "verify", api_key: apiKey });
    await viaBody.body?.cancel();
    // A record of the previous month stays out of this month's export.
    await service.query(
      `insert into public.activity (account_id, created_at, endpoint_queried, status_code, response_latency_ms, plan, is_agent)
       values ($1, date_trunc('month', now()) - interval '1 millisecond', 'complianceAudit', 200, 5, 'starter', true)`,
      [accountId],
    );

    const logs = LogsResponse.parse(
      await (await service.post("agentSubscribe", { action: "get_logs" }, { "x-api-key": apiKey }))
        .json(),
    ).logs.filter((log) => log.timestamp.startsWith(thisMonth()));

    const response = await service.post("agentSubscribe", { action: "export_audit" }, {
      "x-api-key": apiKey,
    });
    assert.equal(response.status, 200);
    assert.match(response.headers.get("content-type") ?? "", /^text\/csv/);
    assert.equal(
      response.headers.get("content-disposition"),
      `attachment; filename="activity-${thisMonth()}.csv"`,
    );
    const csv = await response.text();
    assert.ok(csv.includes("\r\n"));
    const parsed = Papa.parse<string[]>(csv.trimEnd(), { header: false });
    assert.deepEqual(parsed.errors, []);
    const [header, ...rows] = parsed.data;
    assert.deepEqual(header, [...ACTIVITY_CSV_COLUMNS]);
    // The export also holds the record of the get_logs call just made.
    assert.equal(rows.length, logs.length + 1);
    const expected = [...logs].reverse().map((log) => [
      log.timestamp,
      log.endpoint_queried,
      String(log.status_code),
      log.response_latency_ms === null ? "" : String(log.response_latency_ms),
      log.plan,
      String(log.is_agent),
    ]);
    assert.deepEqual(rows.slice(0, -1), expected);
    assert.equal(rows.at(-1)![1], "agentSubscribe.get_logs");
    assert.ok(rows.some((row) => row[5] === "false"));

    const explicit = await service.post("agentSubscribe", {
      action: "export_audit",
      month: thisMonth(),
    }, {
      "x-api-key": apiKey,
    });
    const explicitRows = Papa.parse<string[]>((await explicit.text()).trimEnd()).data;
    assert.equal(explicitRows.length, rows.length + 2); // header, and the export just above is recorded now
  });
}

Deno.test("activityCsv() quotes per RFC 4180 and leaves a null latency empty", () => {
  const csv = activityCsv([
    {
      timestamp: "2026-11-01T00:00:00.000Z",
      endpoint_queried: 'odd,"name"',
      status_code: 200,
      response_latency_ms: null,
      plan: "pro",
      is_agent: true,
    },
  ]);
  assert.equal(
    csv,
    'timestamp,endpoint_queried,status_code,response_latency_ms,plan,is_agent\r\n2026-11-01T00:00:00.000Z,"odd,""name""",200,,pro,true\r\n',
  );
});
