import assert from "node:assert/strict";
import {
  compileRulebook,
  evaluate,
  INDUSTRIES,
  JURISDICTIONS,
  loadSeedRulebook,
  SURFACES,
} from "../../shared/engine/mod.ts";
import { SEED_RULE_CASES } from "./seed_rule_cases.ts";

const seed = await loadSeedRulebook(1);
const compiled = compileRulebook(seed);

Deno.test("loadSeedRulebook() returns a valid version 1 rulebook of at least 44 rules", () => {
  assert.equal(seed.version, 1);
  assert.ok(seed.rules.length >= 44, `only ${seed.rules.length} rules`);
});

Deno.test("seed rulebook covers every jurisdiction, industry and surface", () => {
  for (const jurisdiction of JURISDICTIONS) {
    const count = seed.rules.filter((rule) => rule.jurisdictions.includes(jurisdiction)).length;
    assert.ok(count >= 1, `no rule for ${jurisdiction}`);
  }
  for (const industry of INDUSTRIES) {
    const count = seed.rules.filter((rule) => rule.industries.includes(industry)).length;
    assert.ok(count >= 1, `no rule names industry ${industry}`);
  }
  for (const surface of SURFACES) {
    const count = seed.rules.filter((rule) => rule.applies_to.includes(surface)).length;
    assert.ok(count >= 5, `only ${count} rules for surface ${surface}`);
  }
});

Deno.test("seed rulebook has the three cross-state ALL rules", () => {
  const allRules = seed.rules.filter((rule) => rule.jurisdictions.includes("ALL"));
  const keys = allRules.map((rule) => rule.rule_key);
  for (
    const key of [
      "all_ai_denies_being_ai",
      "all_ai_persona_licensed_credentials",
      "all_political_ai_media_unlabeled",
    ]
  ) {
    assert.ok(keys.includes(key), `missing ${key}`);
  }
});

Deno.test("seed rulebook marks unverified penalties in the explanation", () => {
  for (const rule of seed.rules) {
    if (rule.tier_key === "tier4_licensing" && rule.penalty_usd === 0) {
      assert.match(rule.plain_english, /\$0/, `${rule.rule_key} does not explain its $0 penalty`);
    }
  }
});

Deno.test("every seed rule has a test case and every case names a seed rule", () => {
  const keys = new Set(seed.rules.map((rule) => rule.rule_key));
  for (const key of keys) assert.ok(key in SEED_RULE_CASES, `no case for ${key}`);
  for (const key of Object.keys(SEED_RULE_CASES)) {
    assert.ok(keys.has(key), `case for unknown ${key}`);
  }
});

for (const rule of seed.rules) {
  Deno.test(`seed rule ${rule.rule_key} triggers on its case and not on the clean text`, () => {
    const cases = SEED_RULE_CASES[rule.rule_key];
    assert.ok(cases !== undefined, `no case for ${rule.rule_key}`);
    const base = {
      jurisdiction: rule.jurisdictions[0],
      industry: rule.industries[0],
      surface: rule.applies_to[0],
    };
    const hit = evaluate(compiled, { ...base, content: cases.triggers });
    const finding = hit.findings.find((f) => f.rule_key === rule.rule_key);
    assert.ok(finding, `${rule.rule_key} did not trigger on: ${cases.triggers}`);
    assert.ok(finding.evidence.length > 0, `${rule.rule_key} has no evidence`);
    assert.notEqual(hit.verdict, "GREEN");
    const clean = evaluate(compiled, { ...base, content: cases.clean });
    assert.ok(
      !clean.findings.some((f) => f.rule_key === rule.rule_key),
      `${rule.rule_key} triggered on clean text: ${cases.clean}`,
    );
  });
}

const BENIGN = [
  "Preheat the oven to 180C. Whisk the eggs with sugar, fold in the flour and bake for 25 minutes.",
  "She said the quarterly report was ready and that the team would present it on Monday.",
  "Our store opens at 9am. Free shipping on orders over $50. Returns accepted within 30 days.",
  "Hi! I'm an AI assistant for Acme Bank. I can help you check balances or reach a human agent.",
  "The city council met on Tuesday to discuss the new bike lanes on Main Street.",
  "Our support team answers emails within one business day. Call us at 555-0100.",
  "Join our team as a warehouse associate. Competitive pay, health benefits and paid time off.",
  "This article explains how photosynthesis turns sunlight, water and carbon dioxide into sugar.",
  "Thanks for your order! Your package ships tomorrow and should arrive by Friday.",
  "Mindfulness tip: take three slow breaths before you open your inbox each morning.",
  "I'm not a robot, I just like routines. Said the runner, laughing, after the race.",
  "Our clinic is open Monday to Friday. To book an appointment, call the front desk.",
];

Deno.test("ordinary benign text is GREEN for every surface under ALL jurisdictions", () => {
  for (const content of BENIGN) {
    for (const surface of SURFACES) {
      const result = evaluate(compiled, { content, jurisdiction: "ALL", surface });
      assert.equal(
        result.verdict,
        "GREEN",
        `${surface}: ${content} -> ${result.findings.map((f) => f.rule_key).join(", ")}`,
      );
    }
  }
});
