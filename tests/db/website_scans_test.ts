import assert from "node:assert/strict";
import { DbError } from "../../shared/db/db.ts";
import { type WebsiteScanEntry, websiteScanRecord } from "../../shared/db/website_scans.ts";
import { dbTargets, seedRulebook } from "../support/db.ts";

const entry = (version: number): WebsiteScanEntry => ({
  targetOrigin: "https://shop.example.test",
  statusCode: 200,
  score: 60,
  grade: "D",
  criticalCount: 1,
  warningCount: 2,
  passedCount: 3,
  advisoryCount: 1,
  pagesScanned: 4,
  triggeredRules: ["rule_a", "rule_b"],
  rulebookVersion: version,
  engineVersion: "2.0.0",
  durationMs: 812.25,
});

for (const target of dbTargets()) {
  Deno.test(`website_scan_record() stores a scan without an account, pinned to its rulebook [${target.name}]`, async () => {
    const t = await target.open();
    try {
      const version = await seedRulebook(t.db, 3);
      const stored = await websiteScanRecord(t.db, entry(version));
      assert.match(stored.scan_id, /^[0-9a-f-]{36}$/);
      assert.match(stored.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      const rows = await t.query(
        `select target_origin, status_code, score::float8 as score, grade, critical_count,
           warning_count, passed_count, advisory_count, pages_scanned, triggered_rules,
           rulebook_version, engine_version, duration_ms::float8 as duration_ms
         from public.website_scans`,
      );
      assert.deepEqual(rows.map((row) => ({ ...row })), [{
        target_origin: "https://shop.example.test",
        status_code: 200,
        score: 60,
        grade: "D",
        critical_count: 1,
        warning_count: 2,
        passed_count: 3,
        advisory_count: 1,
        pages_scanned: 4,
        triggered_rules: ["rule_a", "rule_b"],
        rulebook_version: 3,
        engine_version: "2.0.0",
        duration_ms: 812.25,
      }]);
      const [columns] = await t.query<{ names: string }>(
        `select string_agg(column_name, ',' order by column_name) as names
         from information_schema.columns where table_schema = 'public' and table_name = 'website_scans'`,
      );
      assert.doesNotMatch(columns.names, /account|ip|url|path|excerpt|content/);
    } finally {
      await t.close();
    }
  });

  Deno.test(`website_scan_record() refuses an unknown rulebook version, a bad grade or a path in the origin [${target.name}]`, async () => {
    const t = await target.open();
    try {
      const version = await seedRulebook(t.db);
      const bad: Partial<WebsiteScanEntry>[] = [
        { rulebookVersion: version + 41 },
        { grade: "E" as "D" },
        { score: 101 },
        { targetOrigin: "https://shop.example.test/account?token=x" },
        { targetOrigin: "file:///etc/passwd" },
      ];
      for (const change of bad) {
        await assert.rejects(websiteScanRecord(t.db, { ...entry(version), ...change }), DbError);
      }
      const [{ n }] = await t.query<{ n: number }>(
        "select count(*)::int as n from public.website_scans",
      );
      assert.equal(n, 0);
    } finally {
      await t.close();
    }
  });
}
