/**
 * The labeled corpus measures the newest seed rulebook: its size and shape
 * (issue 6), every rule exercised both ways, and recall and specificity on
 * the whole corpus above the floor.
 */
import assert from "node:assert/strict";
import { HARD_FORMS } from "../corpus/case_schema.ts";
import { loadCorpus } from "../corpus/load.ts";
import { CORPUS_AS_OF, measure, rates } from "../corpus/measure.ts";
import { compileRulebook, loadSeedRulebook } from "../shared/engine/mod.ts";

/**
 * The floor on the whole corpus: issue 6's 0.90 recall (target 0.95), and
 * specificity at its measured level, which no rule change may lower. History:
 * 0.87 / 0.95 on the 1,239 cases of rounds 1 to 3; 0.840 / 0.949 once rounds 4
 * to 6 added 989 harder cases written blind; round 7 (480 cases written blind
 * and kept out of the corpus while seed rulebook version 4's statute work went
 * on) scored 0.747 / 0.753 before any tuning on it, and version 4 then measured
 * 0.900 / 0.963 on 2,708 cases; round 8 (400 cases written blind, aimed at the
 * weakest statutes and forms) scored 0.701 / 0.836 the first time version 4 met
 * it; retuned on its tuning two thirds, version 4 measures 0.902 / 0.963 on all
 * 3,108 (held-out third 0.752 / 0.903).
 */
const FLOOR = { recall: 0.9, specificity: 0.96 };

const cases = await loadCorpus();
const seed = await loadSeedRulebook();
const compiled = compileRulebook(seed);
const measurement = measure(compiled, cases);
const AS_OF = CORPUS_AS_OF.toISOString().slice(0, 10);

Deno.test("the corpus: at least 400 cases, 60% in twin pairs, 25 of each hard form, a held-out third", () => {
  assert.ok(cases.length >= 400, `${cases.length} cases`);
  const paired = cases.filter((c) => c.pair !== null).length;
  assert.ok(paired / cases.length >= 0.6, `${paired} of ${cases.length} in pairs`);
  for (const form of HARD_FORMS) {
    const n = cases.filter((c) => c.forms.includes(form)).length;
    assert.ok(n >= 25, `${form}: ${n} cases`);
  }
  const heldOut = cases.filter((c) => c.heldOut).length / cases.length;
  assert.ok(heldOut > 0.28 && heldOut < 0.39, `held out: ${heldOut}`);
  const pairs = new Map<string, boolean[]>();
  for (const c of cases) {
    if (c.pair !== null) pairs.set(c.pair, [...pairs.get(c.pair) ?? [], c.heldOut]);
  }
  for (const [pair, split] of pairs) assert.equal(new Set(split).size, 1, `${pair} is split`);
});

Deno.test("every rule in force has a violation case citing it and a compliant case it passes", () => {
  const inForce = new Map(seed.statutes.map((s) => [s.id, s.effective <= AS_OF]));
  for (const rule of seed.rules) {
    if (!inForce.get(rule.statute_ids![0])) continue;
    const jurisdiction = rule.jurisdictions[0];
    const violation = cases.some((c) =>
      c.label === "violation" && rule.applies_to.includes(c.surface) &&
      (jurisdiction === "ALL" || c.jurisdiction === jurisdiction) &&
      c.expect.some((id) => rule.statute_ids!.includes(id))
    );
    assert.ok(violation, `${rule.rule_key} has no violation case citing its statute`);
    const tally = measurement.byRule.get(rule.rule_key)!;
    assert.ok(tally.passedCompliant >= 1, `${rule.rule_key} passes no compliant case`);
  }
});

Deno.test("most rules in force find at least one of their violation cases", () => {
  // Reported per rule by `deno task corpus`; a rule that finds none is listed here.
  const inForce = new Map(seed.statutes.map((s) => [s.id, s.effective <= AS_OF]));
  const silent = seed.rules.filter((rule) =>
    inForce.get(rule.statute_ids![0]) && measurement.byRule.get(rule.rule_key)!.found === 0
  ).map((rule) => rule.rule_key);
  assert.ok(silent.length <= 4, `rules that find no violation case: ${silent.join(", ")}`);
});

Deno.test(`recall and specificity on the whole corpus are at least ${FLOOR.recall} (as of ${CORPUS_AS_OF.toISOString().slice(0, 10)})`, () => {
  const { recall, specificity } = rates(measurement.overall);
  assert.ok(recall >= FLOOR.recall, `recall ${recall.toFixed(3)}`);
  assert.ok(specificity >= FLOOR.specificity, `specificity ${specificity.toFixed(3)}`);
});
