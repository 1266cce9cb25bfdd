/**
 * agentSubscribe end to end over real HTTP: every row of contract 7.2 and
 * every field of 2.8, on PGlite and (with TEST_DATABASE_URL) PostgreSQL.
 */
import assert from "node:assert/strict";
import Papa from "papaparse";
import {
  AccountErrorEnvelope,
  ACTIVITY_CSV_COLUMNS,
  LogsResponse,
  VerifyResponse,
} from "../shared/contract/account.ts";
import { activityCsv } from "../shared/handlers/agent_subscribe.ts";
import { dbTargets } from "./support/db.ts";
import { serviceTest, type TestService } from "./support/service.ts";

async function errorOf(response: Response): Promise<string> {
  return AccountErrorEnvelope.parse(await response.json()).error;
}

async function activity(service: TestService, accountId: string) {
  return await service.query<{ endpoint_queried: string; status_code: number; is_agent: boolean }>(
    "select endpoint_queried, status_code, is_agent from public.activity where account_id = $1 order by id",
    [accountId],
  );
}

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

  test("takes the key from the body when the header is absent; the header wins when both are sent", async (service) => {
    const a = await service.account({ plan: "starter" });
    const b = await service.account({ plan: "enterprise" });
    const viaBody = await service.post("agentSubscribe", { action: "verify", api_key: a.apiKey });
    assert.equal(viaBody.status, 200);
    assert.equal((await viaBody.json()).plan, "starter");

    const both = await service.post("agentSubscribe", { action: "verify", api_key: a.apiKey }, {
      "x-api-key": b.apiKey,
    });
    assert.equal(both.status, 200);
    assert.equal((await both.json()).plan, "enterprise");

    const badHeaderGoodBody = await service.post("agentSubscribe", {
      action: "verify",
      api_key: a.apiKey,
    }, {
      "x-api-key": "cas_live_" + "x".repeat(43),
    });
    assert.equal(badHeaderGoodBody.status, 401);
    await badHeaderGoodBody.body?.cancel();

    // is_agent: false only on the dashboard's body-key path.
    assert.deepEqual(
      (await activity(service, a.accountId)).map((r) => [r.endpoint_queried, r.is_agent]),
      [
        ["agentSubscribe.verify", false],
      ],
    );
    assert.deepEqual(
      (await activity(service, b.accountId)).map((r) => [r.endpoint_queried, r.is_agent]),
      [
        ["agentSubscribe.verify", true],
      ],
    );
  });

  test("answers 401 for a missing or invalid key and 402 for an inactive account", async (service) => {
    for (const action of ["verify", "get_logs", "export_audit"]) {
      const missing = await service.post("agentSubscribe", { action });
      assert.equal(missing.status, 401);
      assert.match(await errorOf(missing), /key/i);
      const invalid = await service.post("agentSubscribe", { action, api_key: "cas_live_nope" });
      assert.equal(invalid.status, 401);
      await invalid.body?.cancel();
    }
    for (const status of ["past_due", "canceled"] as const) {
      const { apiKey, accountId } = await service.account({ status });
      for (const action of ["verify", "get_logs", "export_audit"]) {
        const response = await service.post("agentSubscribe", { action }, { "x-api-key": apiKey });
        assert.equal(response.status, 402);
        assert.equal(typeof await errorOf(response), "string");
      }
      assert.deepEqual(
        (await activity(service, accountId)).map((r) => [r.endpoint_queried, r.status_code]),
        [
          ["agentSubscribe.verify", 402],
          ["agentSubscribe.get_logs", 402],
          ["agentSubscribe.export_audit", 402],
        ],
      );
    }
  });

  test("answers 400 for unknown fields, unknown or missing actions and wrong types", async (service) => {
    const { apiKey, accountId } = await service.account();
    const headers = { "x-api-key": apiKey };
    const bad: unknown[] = [
      { action: "verify", extra: true },
      { action: "get_logs", month: "2026-01" },
      { action: "delete_account" },
      {},
      { action: 7 },
      { action: "verify", api_key: 12 },
      { action: "verify", api_key: "" },
      { action: "export_audit", month: 202601 },
      { action: "export_audit", month: "2026-13" },
      { action: "export_audit", month: "2026-1" },
      { action: "export_audit", month: "26-01" },
      [],
      "verify",
    ];
    for (const body of bad) {
      const response = await service.post("agentSubscribe", JSON.stringify(body), headers);
      assert.equal(response.status, 400, `expected 400 for ${JSON.stringify(body)}`);
      assert.equal(typeof await errorOf(response), "string");
    }
    const malformed = await service.post("agentSubscribe", "{nope", headers);
    assert.equal(malformed.status, 400);
    await malformed.body?.cancel();
    const textPlain = await fetch(`${service.baseUrl}/agentSubscribe`, {
      method: "POST",
      headers: { ...headers, "content-type": "text/plain" },
      body: JSON.stringify({ action: "verify" }),
    });
    assert.equal(textPlain.status, 400);
    await textPlain.body?.cancel();
    // Nothing but the activity records of the authenticated, parsed requests was written.
    const rows = await activity(service, accountId);
    assert.equal(rows.length, bad.length);
    assert.ok(rows.every((r) => r.status_code === 400));
    assert.equal(rows.find((r) => r.endpoint_queried === "agentSubscribe")?.status_code, 400);
    const audits = await service.query("select 1 from public.audits");
    assert.equal(audits.length, 0);
  });

  test("verify is limited to 30 requests per minute per client IP, before the key is checked", async (service) => {
    const { apiKey } = await service.account();
    const statuses: number[] = [];
    for (let i = 0; i < 30; i++) {
      // Guesses count too: every other request carries a wrong key.
      const key = i % 2 === 0 ? apiKey : "cas_live_" + "g".repeat(43);
      const response = await service.post("agentSubscribe", { action: "verify" }, {
        "x-api-key": key,
      });
      statuses.push(response.status);
      await response.body?.cancel();
    }
    assert.deepEqual(statuses, Array.from({ length: 30 }, (_, i) => (i % 2 === 0 ? 200 : 401)));
    const limited = await service.post("agentSubscribe", { action: "verify" }, {
      "x-api-key": apiKey,
    });
    assert.equal(limited.status, 429);
    assert.ok(Number(limited.headers.get("retry-after")) >= 1);
    assert.equal(typeof await errorOf(limited), "string");
    const guess = await service.post("agentSubscribe", { action: "verify" }, {
      "x-api-key": "cas_live_" + "h".repeat(43),
    });
    assert.equal(guess.status, 429);
    await guess.body?.cancel();
    // get_logs is not under the verify limit.
    const logs = await service.post("agentSubscribe", { action: "get_logs" }, {
      "x-api-key": apiKey,
    });
    assert.equal(logs.status, 200);
    await logs.body?.cancel();
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

  test("export_audit of a month without records is the header row alone", async (service) => {
    const { apiKey } = await service.account();
    const response = await service.post("agentSubscribe", {
      action: "export_audit",
      month: "2019-02",
    }, {
      "x-api-key": apiKey,
    });
    assert.equal(response.status, 200);
    assert.equal(
      response.headers.get("content-disposition"),
      'attachment; filename="activity-2019-02.csv"',
    );
    assert.equal(await response.text(), ACTIVITY_CSV_COLUMNS.join(",") + "\r\n");
  });

  test("answers 500 with no internals when the database fails", async (service) => {
    const { apiKey } = await service.account();
    await service.db.close();
    const response = await service.post("agentSubscribe", { action: "get_logs" }, {
      "x-api-key": apiKey,
    });
    assert.equal(response.status, 500);
    const body = await response.json();
    assert.deepEqual(Object.keys(body), ["error"]);
    assert.equal(body.error, "The account operation failed");
  });

  test("answers 500 when the verify limiter fails (fails closed)", async (service) => {
    const { apiKey } = await service.account();
    const response = await service.post("agentSubscribe", { action: "verify" }, {
      "x-api-key": apiKey,
    });
    assert.equal(response.status, 500);
    assert.equal(await errorOf(response), "The account operation failed");
  }, { limiter: { limit: () => Promise.reject(new Error("down")) } });

  test("a failing activity write neither fails nor changes the answer", async (service) => {
    const { apiKey } = await service.account({ plan: "pro" });
    for (const action of ["verify", "get_logs", "export_audit"]) {
      const response = await service.post("agentSubscribe", { action }, { "x-api-key": apiKey });
      assert.equal(response.status, 200, action);
      await response.body?.cancel();
    }
    const audit = await service.post("complianceAudit", { content: "x", jurisdiction: "XX" }, {
      "x-api-key": apiKey,
    });
    assert.equal(audit.status, 400);
    await audit.body?.cancel();
    const warnings = service.logLines.map((line) => JSON.parse(line)).filter((line) =>
      line.msg === "activity record not written"
    );
    assert.equal(warnings.length, 4);
  }, {
    wrapDb: (db) => ({
      rpc: (name, args) =>
        name === "activity_record"
          ? Promise.reject(new Error("activity store down"))
          : db.rpc(name, args),
      close: () => db.close(),
    }),
  });

  test("keeps keys out of responses and logs", async (service) => {
    const { apiKey } = await service.account();
    const responses = await Promise.all([
      service.post("agentSubscribe", { action: "verify" }, { "x-api-key": apiKey }),
      service.post("agentSubscribe", { action: "get_logs", api_key: apiKey }),
      service.post("agentSubscribe", { action: "verify", api_key: apiKey, extra: apiKey }),
      service.post("agentSubscribe", { action: "get_logs", [apiKey]: 1 }, { "x-api-key": apiKey }),
    ]);
    assert.deepEqual(responses.map((r) => r.status), [200, 200, 400, 400]);
    const texts = await Promise.all(responses.map((r) => r.text()));
    assert.match(texts[3], /Unknown field/);
    for (const text of [...texts, ...service.logLines]) assert.equal(text.includes(apiKey), false);
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
