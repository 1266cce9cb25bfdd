/**
 * `deno task corpus`: measures the newest seed rulebook (or `--rulebook
 * <file>`) against the labeled corpus and prints recall, specificity and
 * accuracy overall, for the tuning two thirds and for the held-out third, and
 * per jurisdiction, hard form, statute, surface and rule.
 *
 * `--failures` lists the cases of the tuning split that the rulebook gets
 * wrong. Failures of the held-out third are never listed: tune on what you
 * may look at, and read the held-out figures only as the honest estimate.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { compileRulebook } from "../shared/engine/compiler.ts";
import { validateRulebook } from "../shared/engine/rulebook_validation.ts";
import { loadSeedRulebook } from "../shared/engine/seed_rulebook.ts";
import { loadCorpus } from "./load.ts";
import { measure, rates, type Tally } from "./measure.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    rulebook: { type: "string" },
    failures: { type: "boolean" },
  },
});

const rulebook = values.rulebook === undefined
  ? await loadSeedRulebook()
  : validateRulebook(JSON.parse(await Deno.readTextFile(values.rulebook)));
const compiled = compileRulebook(rulebook);
const cases = await loadCorpus();
const whole = measure(compiled, cases);
const tuning = measure(compiled, cases.filter((c) => !c.heldOut));
const heldOut = measure(compiled, cases.filter((c) => c.heldOut));

const pct = (x: number) => Number.isNaN(x) ? "   -  " : x.toFixed(3).padStart(6);
function line(label: string, t: Tally): string {
  const r = rates(t);
  return `${label.padEnd(34)} recall ${pct(r.recall)} (${t.found}/${t.violations})  specificity ${
    pct(r.specificity)
  } (${t.cleared}/${t.compliant})  accuracy ${pct(r.accuracy)}`;
}
function section(title: string, map: Map<string, Tally>): void {
  console.log(`\n${title}`);
  for (const [key, tally] of [...map].sort(([a], [b]) => a.localeCompare(b))) {
    console.log(line(`  ${key}`, tally));
  }
}

console.log(
  `Rulebook v${compiled.version} (format ${compiled.format}, ${compiled.rules.length} rules) against ${cases.length} cases, as of 2026-11-22`,
);
console.log(line("whole corpus", whole.overall));
console.log(line("tuning split (two thirds)", tuning.overall));
console.log(line("held-out third", heldOut.overall));
section("Per jurisdiction (whole corpus)", whole.byJurisdiction);
section("Per hard form (whole corpus)", whole.byForm);
section("Per surface (whole corpus)", whole.bySurface);
section("Per expected statute, violations only (whole corpus)", whole.byStatute);
console.log("\nPer rule (whole corpus): violations found / compliant cases passed / false alarms");
for (const [key, r] of [...whole.byRule].sort(([a], [b]) => a.localeCompare(b))) {
  console.log(
    `  ${key.padEnd(44)} ${String(r.found).padStart(3)} / ${
      String(r.passedCompliant).padStart(3)
    } / ${String(r.falseAlarms).padStart(3)}`,
  );
}
section("Held-out third, per jurisdiction", heldOut.byJurisdiction);
section("Held-out third, per hard form", heldOut.byForm);
section("Held-out third, per surface", heldOut.bySurface);
section("Held-out third, per expected statute", heldOut.byStatute);

if (values.failures) {
  console.log("\nTuning-split failures (held-out failures are never listed):");
  for (const r of tuning.results) {
    if (r.correct) continue;
    console.log(
      `  ${r.case.id} [${r.case.file}] ${r.case.label} ${r.case.surface} ${r.case.jurisdiction}/${
        r.case.industry ?? "-"
      } expect ${r.case.expect.join(",") || "-"} got ${r.statutes.join(",") || "none"} (${
        r.triggered.join(",") || "no rule"
      })`,
    );
  }
}
