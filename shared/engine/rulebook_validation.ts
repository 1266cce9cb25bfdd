/**
 * Import validation of a rulebook: structure (zod), unique rule keys, safe
 * patterns, and tier keys consistent with the penalty amounts.
 *
 * @module
 */
import { type Matcher, type Rule, type Rulebook, rulebookSchema } from "./rulebook_schema.ts";
import { patternSafetyProblem } from "./pattern_safety.ts";

/** A rulebook was refused; the message names the rule and the offending field or pattern. */
export class RulebookError extends Error {
  /** The rule_key of the offending rule, when one is known. */
  readonly ruleKey: string | null;

  constructor(message: string, ruleKey: string | null = null) {
    super(message);
    this.name = "RulebookError";
    this.ruleKey = ruleKey;
  }
}

/** Parses and checks a rulebook import document, throwing `RulebookError` on the first problem. */
export function validateRulebook(input: unknown): Rulebook {
  const parsed = rulebookSchema.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const path = issue.path;
    let ruleKey: string | null = null;
    let where = path.join(".");
    if (path[0] === "rules" && typeof path[1] === "number") {
      ruleKey = ruleKeyAt(input, path[1]);
      const label = ruleKey === null ? `rules[${path[1]}]` : `rule "${ruleKey}"`;
      where = [label, ...path.slice(2)].join(".");
    }
    throw new RulebookError(
      `Invalid rulebook at ${where || "top level"}: ${issue.message}`,
      ruleKey,
    );
  }
  const rulebook = parsed.data;
  const seen = new Set<string>();
  for (const rule of rulebook.rules) {
    if (seen.has(rule.rule_key)) {
      throw new RulebookError(`Duplicate rule_key "${rule.rule_key}"`, rule.rule_key);
    }
    seen.add(rule.rule_key);
    checkMatchers(rule);
    checkTier(rule);
  }
  return rulebook;
}

function ruleKeyAt(input: unknown, index: number): string | null {
  const rules = (input as { rules?: unknown })?.rules;
  if (!Array.isArray(rules)) return null;
  const key = (rules[index] as { rule_key?: unknown } | undefined)?.rule_key;
  return typeof key === "string" ? key : null;
}

function checkMatchers(rule: Rule): void {
  const groups: [string, Matcher[] | undefined][] = [
    ["any", rule.detector.any],
    ["all", rule.detector.all],
    ["none", rule.detector.none],
  ];
  for (const [group, matchers] of groups) {
    for (const [index, matcher] of (matchers ?? []).entries()) {
      if (typeof matcher === "string") continue;
      const problem = patternSafetyProblem(matcher.pattern);
      if (problem !== null) {
        throw new RulebookError(
          `Rule "${rule.rule_key}": detector.${group}[${index}] pattern ${
            JSON.stringify(matcher.pattern)
          } refused: ${problem}`,
          rule.rule_key,
        );
      }
    }
  }
}

function checkTier(rule: Rule): void {
  const penalty = rule.penalty_usd;
  const inconsistent = (rule.tier_key === "tier2_significant" &&
    (penalty < 2_500 || penalty >= 10_000)) ||
    (rule.tier_key === "tier3_standard" && penalty >= 2_500);
  if (inconsistent) {
    throw new RulebookError(
      `Rule "${rule.rule_key}": tier_key ${rule.tier_key} does not fit penalty_usd ${penalty}`,
      rule.rule_key,
    );
  }
}
