import assert from "node:assert/strict";
import { dbTargets, sampleRule, type TestDatabase } from "../support/db.ts";

const RULE_FIELDS = [
  "applies_to",
  "category",
  "citation",
  "detector",
  "industries",
  "jurisdictions",
  "penalty_usd",
  "plain_english",
  "remediation",
  "remediation_title",
  "rule_key",
  "severity",
  "statute_codes",
  "tier_key",
  "title",
  "weight",
];

async function activeVersions(t: TestDatabase): Promise<number[]> {
  const rows = await t.query<{ version: number }>(
    "select version from public.rulebooks where status = 'active' order by version",
  );
  return rows.map((r) => r.version);
}

for (const target of dbTargets()) {
  Deno.test(`rulebook_import() stores a draft with its rules [${target.name}]`, async () => {
    const t = await target.open();
    try {
      assert.equal(await t.db.rpc("rulebook_active"), null);
      assert.deepEqual(await t.db.rpc("rulebook_list"), []);
      const rules = [
        sampleRule("b_rule", { statute_codes: ["CA-17941"], penalty_usd: 2500.5 }),
        sampleRule("a_rule", { applies_to: ["website", "transcript"], industries: ["hr"] }),
      ];
      delete rules[1].statute_codes;
      const imported = await t.db.rpc("rulebook_import", { p_version: 3, p_rules: rules });
      assert.deepEqual(imported, { version: 3, rule_count: 2, status: "draft" });
      const book = await t.db.rpc<
        { version: number; status: string; published_at: null; rules: Record<string, unknown>[] }
      >("rulebook_get", { p_version: 3 });
      assert.equal(book.status, "draft");
      assert.equal(book.published_at, null);
      assert.deepEqual(book.rules.map((r) => r.rule_key), ["a_rule", "b_rule"]);
      for (const rule of book.rules) assert.deepEqual(Object.keys(rule).sort(), RULE_FIELDS);
      assert.deepEqual(book.rules[1], rules[0]);
      assert.deepEqual(book.rules[0], { ...rules[1], statute_codes: null });
      assert.equal(await t.db.rpc("rulebook_get", { p_version: 99 }), null);
      assert.equal(await t.db.rpc("rulebook_active"), null, "a draft is not active");
    } finally {
      await t.close();
    }
  });

  Deno.test(`rulebook_import() refuses bad input and stores nothing [${target.name}]`, async () => {
    const t = await target.open();
    try {
      await t.db.rpc("rulebook_import", { p_version: 1, p_rules: [sampleRule("r")] });
      const refuse = (version: number, rules: unknown, code: string) =>
        assert.rejects(
          t.db.rpc("rulebook_import", { p_version: version, p_rules: rules }),
          { name: "DbError", code },
          JSON.stringify(rules).slice(0, 80),
        );
      await refuse(1, [sampleRule("r")], "23505");
      await refuse(2, [], "22023");
      await refuse(2, { rule_key: "r" }, "22023");
      await refuse(2, [sampleRule("r", { regex: ".*" })], "22023");
      await refuse(2, [sampleRule("r"), sampleRule("r")], "23505");
      await refuse(2, [sampleRule("r", { title: null })], "23502");
      await refuse(2, [sampleRule("r", { applies_to: ["email"] })], "23514");
      await refuse(0, [sampleRule("r")], "22023");
      const list = await t.db.rpc<{ version: number }[]>("rulebook_list");
      assert.deepEqual(list.map((b) => b.version), [1]);
    } finally {
      await t.close();
    }
  });

  Deno.test(`rulebook_activate() keeps exactly one version active [${target.name}]`, async () => {
    const t = await target.open();
    try {
      for (const version of [1, 2]) {
        await t.db.rpc("rulebook_import", { p_version: version, p_rules: [sampleRule("r")] });
      }
      assert.deepEqual(await t.db.rpc("rulebook_activate", { p_version: 1 }), {
        version: 1,
        status: "active",
        previous_version: null,
      });
      assert.deepEqual(await t.db.rpc("rulebook_active"), { version: 1 });
      assert.deepEqual(await t.db.rpc("rulebook_activate", { p_version: 2 }), {
        version: 2,
        status: "active",
        previous_version: 1,
      });
      assert.deepEqual(await activeVersions(t), [2]);
      assert.deepEqual(await t.db.rpc("rulebook_active"), { version: 2 });
      await assert.rejects(
        t.db.rpc("rulebook_activate", { p_version: 7 }),
        { name: "DbError", code: "P0002" },
      );
      assert.deepEqual(await activeVersions(t), [2], "a failed activation changes nothing");
      const list = await t.db.rpc<
        { version: number; status: string; published_at: string | null; rule_count: number }[]
      >("rulebook_list");
      assert.deepEqual(
        list.map(({ version, status, rule_count }) => ({ version, status, rule_count })),
        [
          { version: 1, status: "retired", rule_count: 1 },
          { version: 2, status: "active", rule_count: 1 },
        ],
      );
      for (const book of list) {
        assert.match(String(book.published_at), /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      }
      // The partial unique index refuses a second active version outright.
      await assert.rejects(
        t.query("update public.rulebooks set status = 'active' where version = 1"),
        (error: unknown) => (error as { code?: string }).code === "23505",
      );
      // Rolling back to a retired version is an activation like any other.
      assert.deepEqual(await t.db.rpc("rulebook_activate", { p_version: 1 }), {
        version: 1,
        status: "active",
        previous_version: 2,
      });
      assert.deepEqual(await activeVersions(t), [1]);
    } finally {
      await t.close();
    }
  });

  Deno.test(`rulebook_activate() run concurrently leaves one active [${target.name}]`, async () => {
    const t = await target.open();
    try {
      const versions = [1, 2, 3, 4, 5, 6];
      for (const version of versions) {
        await t.db.rpc("rulebook_import", { p_version: version, p_rules: [sampleRule("r")] });
      }
      await Promise.all(versions.map((v) => t.db.rpc("rulebook_activate", { p_version: v })));
      assert.equal((await activeVersions(t)).length, 1);
    } finally {
      await t.close();
    }
  });
}
