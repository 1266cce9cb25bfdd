import assert from "node:assert/strict";
import {
  patternSafetyProblem,
  type Rule,
  RulebookError,
  validateRulebook,
} from "../../shared/engine/mod.ts";

function rule(overrides: Partial<Rule> = {}): Rule {
  return {
    rule_key: "sample_rule",
    applies_to: ["content"],
    jurisdictions: ["CA"],
    industries: [],
    detector: { any: ["trigger phrase"] },
    severity: "warning",
    weight: 10,
    tier_key: "tier3_standard",
    citation: "Sample Code §1",
    penalty_usd: 1000,
    statute_codes: null,
    title: "Sample",
    plain_english: "Sample rule.",
    category: "ai_disclosure",
    remediation_title: "Fix it",
    remediation: "Do the fix.",
    ...overrides,
  };
}

function refusal(input: unknown): RulebookError {
  try {
    validateRulebook(input);
  } catch (error) {
    assert.ok(error instanceof RulebookError, `not a RulebookError: ${error}`);
    return error;
  }
  assert.fail("validateRulebook() accepted the rulebook");
}

Deno.test("validateRulebook() accepts a minimal rulebook", () => {
  const rulebook = validateRulebook({ version: 1, rules: [rule()] });
  assert.equal(rulebook.rules[0].rule_key, "sample_rule");
});

for (
  const pattern of ["(a+)+$", "(x|x)*y", "(.*a){20}", "(a|aa){2,10}b", "\\w+x", "([a-z]{1,5}){1,5}"]
) {
  Deno.test(`validateRulebook() refuses the catastrophic pattern ${pattern} naming the rule`, () => {
    const error = refusal({
      version: 1,
      rules: [
        rule(),
        rule({ rule_key: "evil_rule", detector: { any: ["x"], none: [{ pattern }] } }),
      ],
    });
    assert.equal(error.ruleKey, "evil_rule");
    assert.match(error.message, /evil_rule/);
    assert.ok(error.message.includes(JSON.stringify(pattern)), error.message);
  });
}

Deno.test("validateRulebook() refuses backreferences, lookaround and invalid regexes", () => {
  for (
    const pattern of ["(a)\\1", "(?<n>a)\\k<n>", "foo(?=bar)", "(?<!x)y", "(?!a)b", "[a-", "(?i:x)"]
  ) {
    const error = refusal({ version: 1, rules: [rule({ detector: { any: [{ pattern }] } })] });
    assert.match(error.message, /sample_rule/);
  }
});

Deno.test("patternSafetyProblem() accepts bounded, unambiguous patterns", () => {
  for (
    const pattern of [
      "\\bi(?:'m| am) not an? (?:ai|bot)\\b",
      "\\$\\d{1,6}",
      "(?:ab){1,3}c",
      "[+*]{0,2}x",
      "a{2}",
      "(?<word>cat|dog)s?",
    ]
  ) {
    assert.equal(patternSafetyProblem(pattern), null, pattern);
  }
  assert.match(patternSafetyProblem("a".repeat(301)) ?? "", /longer/);
  assert.match(patternSafetyProblem("\\w{0,40} \\w{0,40} \\w{0,40}") ?? "", /costly/);
  assert.match(patternSafetyProblem("a{1,500}") ?? "", /exceeds/);
  assert.match(patternSafetyProblem("a{3,}") ?? "", /unbounded/);
});

Deno.test("validateRulebook() refuses duplicate rule keys", () => {
  const error = refusal({ version: 1, rules: [rule(), rule()] });
  assert.match(error.message, /Duplicate rule_key "sample_rule"/);
});

Deno.test("validateRulebook() refuses unknown fields, naming the rule", () => {
  const error = refusal({
    version: 1,
    rules: [{ ...rule({ rule_key: "extra_rule" }), colour: "red" }],
  });
  assert.match(error.message, /extra_rule/);
  const top = refusal({ version: 1, rules: [rule()], extra: true });
  assert.match(top.message, /top level|extra/);
  const detector = refusal({
    version: 1,
    rules: [rule({ detector: { any: ["x"], sometimes: ["y"] } as never })],
  });
  assert.match(detector.message, /sample_rule/);
});

Deno.test("validateRulebook() refuses malformed fields", () => {
  const cases: unknown[] = [
    { version: 0, rules: [rule()] },
    { version: 1, rules: [] },
    { version: 1, rules: [rule({ rule_key: "Bad-Key" })] },
    { version: 1, rules: [rule({ applies_to: [] })] },
    { version: 1, rules: [rule({ jurisdictions: ["WA" as never] })] },
    { version: 1, rules: [rule({ industries: ["banking" as never] })] },
    { version: 1, rules: [rule({ detector: { any: [] } })] },
    { version: 1, rules: [rule({ detector: { any: ["50% off"] } })] },
    { version: 1, rules: [rule({ weight: 101 })] },
    { version: 1, rules: [rule({ weight: 1.5 })] },
    { version: 1, rules: [rule({ penalty_usd: -1 })] },
    { version: 1, rules: [rule({ tier_key: "tier9" as never })] },
    { version: 1, rules: [rule({ severity: "info" as never })] },
    "not a rulebook",
  ];
  for (const input of cases) refusal(input);
});

Deno.test("validateRulebook() refuses a tier that contradicts the penalty", () => {
  const error = refusal({
    version: 1,
    rules: [rule({ rule_key: "tier_rule", tier_key: "tier3_standard", penalty_usd: 5000 })],
  });
  assert.match(error.message, /tier_rule.*tier3_standard/);
  refusal({ version: 1, rules: [rule({ tier_key: "tier2_significant", penalty_usd: 100 })] });
});
