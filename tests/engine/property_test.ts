import assert from "node:assert/strict";
import fc from "fast-check";
import {
  compileRulebook,
  evaluate,
  JURISDICTIONS,
  loadSeedRulebook,
  SURFACES,
} from "../../shared/engine/mod.ts";
import { SEED_RULE_CASES } from "./seed_rule_cases.ts";

const compiled = compileRulebook(await loadSeedRulebook(1));
const triggerTexts = Object.values(SEED_RULE_CASES).map((c) => c.triggers);

const content = fc.oneof(
  fc.string({ maxLength: 30_000 }),
  fc.string({ maxLength: 2_000, unit: "grapheme" }),
  fc.array(
    fc.oneof(
      fc.constantFrom(...triggerTexts),
      fc.constantFrom("<p>", "</div>", "<img alt='", "<script>", "\n\n", " ", "’"),
    ),
    {
      maxLength: 200,
    },
  ).map((parts) => parts.join("").slice(0, 30_000)),
);

Deno.test("evaluate() never throws and keeps risk_score within 0..100 for arbitrary content", () => {
  fc.assert(
    fc.property(
      content,
      fc.constantFrom(...JURISDICTIONS),
      fc.constantFrom(...SURFACES),
      (text, jurisdiction, surface) => {
        const result = evaluate(compiled, { content: text, jurisdiction, surface });
        assert.ok(result.risk_score >= 0 && result.risk_score <= 100);
        assert.ok(result.penalty_exposure_usd >= 0);
        assert.ok(["GREEN", "YELLOW", "RED"].includes(result.verdict));
        assert.equal(result.verdict === "GREEN", result.findings.length === 0);
      },
    ),
    { numRuns: 200 },
  );
});
