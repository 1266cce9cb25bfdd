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

/** The floor on the whole corpus; the target is 0.95 on both. */
const FLOOR = { recall: 0.90, specificity: 0.90 };

const cases = await loadCorpus();
const seed = await loadSeedRulebook();
const compiled = compileRulebook(seed);
const measurement = measure(compiled, cases);

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

Deno.test("every rule in force is found on a violation and passed on a compliant case", () => {
  const inForce = new Map(seed.statutes.map((s) => [s.id, s.effective <= "2026-11-22"]));
  for (const rule of seed.rules) {
    const tally = measurement.byRule.get(rule.rule_key)!;
    if (inForce.get(rule.statute_ids![0])) {
      assert.ok(tally.found >= 1, `${rule.rule_key} finds no violation case`);
      assert.ok(tally.passedCompliant >= 1, `${rule.rule_key} passes no compliant case`);
    }
  }
});

Deno.test(`recall and specificity on the whole corpus are at least ${FLOOR.recall} (as of ${CORPUS_AS_OF.toISOString().slice(0, 10)})`, () => {
  const { recall, specificity } = rates(measurement.overall);
  assert.ok(recall >= FLOOR.recall, `recall ${recall.toFixed(3)}`);
  assert.ok(specificity >= FLOOR.specificity, `specificity ${specificity.toFixed(3)}`);
});
