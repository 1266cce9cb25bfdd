/**
 * export_audit streams a month in keyset pages (activity_month_page); the
 * streamed file is byte for byte the contract's CSV of the whole month read
 * at once (activity_month, written by activityCsv), whatever the page
 * boundaries: records sharing a millisecond (or a microsecond) across a
 * boundary, a month that ends exactly on one, values that need quoting or
 * formula escaping, null latencies.
 */
import assert from "node:assert/strict";
import type { Activity } from "../shared/contract/account.ts";
import { activityCsv } from "../shared/handlers/agent_subscribe.ts";
import { dbTargets } from "./support/db.ts";
import { serviceTest, type TestService } from "./support/service.ts";

const PAGE_ROWS = 4;

/** Inserts `count` records for March 2026, with ties, awkward values and null latencies. */
async function fillMarch(service: TestService, accountId: string, count: number): Promise<void> {
  const endpoints = [
    "agentSubscribe.get_logs",
    'complianceAudit, "quoted"',
    '=HYPERLINK("x")',
    "line\nbreak",
    "agentSubscribe.verify",
  ];
  for (let i = 0; i < count; i += 1) {
    // Groups of three share one millisecond (and two of them one microsecond),
    // so page boundaries fall inside ties that only the cursor's full
    // precision and the id separate.
    const group = Math.floor(i / 3);
    const micros = i % 3 === 2 ? 457 : 456;
    const createdAt = `2026-03-${String(1 + (group % 28)).padStart(2, "0")} 10:00:${
      String(group % 60).padStart(2, "0")
    }.123${micros}+00`;
    await service.query(
      `insert into public.activity
         (account_id, created_at, endpoint_queried, status_code, response_latency_ms, plan, is_agent)
       values ($1, $2::text::timestamptz, $3, $4, $5, 'starter', $6)`,
      [
        accountId,
        createdAt,
        endpoints[i % endpoints.length],
        i % 7 === 0 ? 429 : 200,
        i % 5 === 0 ? null : (i * 1.25).toString(),
        i % 2 === 0,
      ],
    );
  }
  // Outside the export: the next month, the previous one, another account.
  await service.query(
    `insert into public.activity (account_id, created_at, endpoint_queried, status_code, plan)
     values ($1, '2026-04-01 00:00:00+00', 'agentSubscribe.verify', 200, 'starter'),
            ($1, '2026-02-28 23:59:59.999+00', 'agentSubscribe.verify', 200, 'starter')`,
    [accountId],
  );
}

async function exportMonth(service: TestService, apiKey: string, month: string) {
  const response = await service.post("agentSubscribe", { action: "export_audit", month }, {
    "x-api-key": apiKey,
  });
  assert.equal(response.status, 200);
  return new Uint8Array(await response.arrayBuffer());
}

for (const target of dbTargets()) {
  const test = serviceTest("export_audit streaming", target);

  for (const count of [0, 3, PAGE_ROWS, 3 * PAGE_ROWS, 3 * PAGE_ROWS + 1, 29]) {
    test(
      `a month of ${count} records streams in pages of ${PAGE_ROWS} byte-identical to the whole-month CSV`,
      async (service) => {
        const { apiKey, accountId } = await service.account();
        const other = await service.account();
        await fillMarch(service, accountId, count);
        await fillMarch(service, other.accountId, 5);

        const whole = await service.db.rpc<Activity[]>("activity_month", {
          p_account_id: accountId,
          p_month: "2026-03",
        });
        assert.equal(whole.length, count);
        const expected = new TextEncoder().encode(activityCsv(whole));
        const streamed = await exportMonth(service, apiKey, "2026-03");
        assert.equal(streamed.byteLength, expected.byteLength);
        assert.deepEqual(streamed, expected);
      },
      { limits: { exportPageRows: PAGE_ROWS } },
    );
  }

  test(
    "an export of the current month leaves out what is written while it streams",
    async (service) => {
      const { apiKey, accountId } = await service.account();
      const month = new Date().toISOString().slice(0, 7);
      for (let i = 0; i < 2 * PAGE_ROWS + 1; i += 1) {
        await service.query(
          `insert into public.activity (account_id, endpoint_queried, status_code, plan)
           values ($1, 'agentSubscribe.get_logs', 200, 'starter')`,
          [accountId],
        );
      }
      const lines = (bytes: Uint8Array) =>
        new TextDecoder().decode(bytes).split("\r\n").filter((line) => line !== "").length;
      // The first export's own activity record is written before its later
      // pages are read; it is in the second export, not the first.
      assert.equal(lines(await exportMonth(service, apiKey, month)), 1 + 2 * PAGE_ROWS + 1);
      assert.equal(lines(await exportMonth(service, apiKey, month)), 1 + 2 * PAGE_ROWS + 2);
    },
    { limits: { exportPageRows: PAGE_ROWS } },
  );

  test("activity_month_page refuses a malformed month and a half cursor", async (service) => {
    const { accountId } = await service.account();
    for (
      const args of [
        { p_account_id: accountId, p_month: "2026-13" },
        {
          p_account_id: accountId,
          p_month: "2026-03",
          p_after_id: 1,
        },
      ]
    ) {
      await assert.rejects(service.db.rpc("activity_month_page", args), { code: "22023" });
    }
  });
}
