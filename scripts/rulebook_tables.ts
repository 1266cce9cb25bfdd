/**
 * Prints the rule and statute tables of docs/rulebook.md from the newest seed
 * rulebook, or rewrites them in place with `--write`.
 *
 * Run: deno run --allow-read --allow-write scripts/rulebook_tables.ts --write
 *
 * @module
 */
import { loadSeedRulebook, NEWEST_SEED_VERSION } from "../shared/engine/seed_rulebook.ts";

const ORDER = ["ALL", "CA", "TX", "CO", "NY", "FL", "MA", "AZ", "UT", "OR", "TN"];
const DOC = new URL("../docs/rulebook.md", import.meta.url);
const usd = (n: number) => n.toLocaleString("en-US");

/** The two markdown tables. */
export async function rulebookTables(): Promise<{ rules: string; statutes: string }> {
  const rulebook = await loadSeedRulebook();
  const statutes = new Map(rulebook.statutes.map((s) => [s.id, s]));
  const rules = [...rulebook.rules].sort((a, b) =>
    ORDER.indexOf(a.jurisdictions[0]) - ORDER.indexOf(b.jurisdictions[0]) ||
    a.rule_key.localeCompare(b.rule_key)
  );
  const ruleRows = rules.map((rule) => {
    const statute = statutes.get(rule.statute_ids?.[0] ?? "");
    return `| ${rule.jurisdictions[0]} | \`${rule.rule_key}\` | ${
      rule.industries.join(", ") || "all"
    } | ${rule.applies_to.join(", ")} | ${rule.severity} | \`${rule.tier_key}\` | ${
      usd(rule.penalty_usd)
    } | ${statute?.id ?? ""} |`;
  });
  const statuteRows = rulebook.statutes.map((s) =>
    `| ${s.id} | ${s.jurisdiction} | ${s.citation} | ${s.effective} | ${
      usd(s.penalty_usd)
    } | \`${s.tier_key}\` | ${s.penalty_basis} |`
  );
  return {
    rules: [
      "| jurisdiction | rule_key | industries | surfaces | severity | tier_key | penalty (USD) | statute |",
      "| --- | --- | --- | --- | --- | --- | --- | --- |",
      ...ruleRows,
    ].join("\n"),
    statutes: [
      "| statute | jurisdiction | citation | in force from | penalty (USD) | tier_key | where the penalty comes from |",
      "| --- | --- | --- | --- | --- | --- | --- |",
      ...statuteRows,
    ].join("\n"),
  };
}

if (import.meta.main) {
  const tables = await rulebookTables();
  if (Deno.args.includes("--write")) {
    const doc = await Deno.readTextFile(DOC);
    const head = doc.slice(0, doc.indexOf("## Rules of the newest seed rulebook"));
    await Deno.writeTextFile(
      DOC,
      `${head}## Rules of the newest seed rulebook

Generated from the newest \`supabase/seed/rulebook_v<N>.json\` (version ${NEWEST_SEED_VERSION}) (\`deno run --allow-read --allow-write scripts/rulebook_tables.ts --write\`);
a test checks that every rule and statute is listed.

${tables.rules}

### Statutes

${tables.statutes}
`,
    );
  } else {
    console.log(tables.rules);
    console.log();
    console.log(tables.statutes);
  }
}
