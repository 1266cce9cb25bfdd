/**
 * Import validation of a rulebook, either format.
 *
 * Format 1 (`{ version, rules }`): structure (zod), unique rule keys, safe
 * patterns, and tier keys consistent with the penalty amounts.
 *
 * Format 2 (`{ version, format: 2, statutes, concepts, rules }`): structure;
 * unique rule keys and statute ids; every concept's terms parse and stay
 * within their expansion bound; every rule names known statutes and concepts,
 * lists exactly its first statute's jurisdiction, stays within the expression
 * size and depth bounds, and agrees with its statute on citation, tier and
 * penalty (which it may omit: they are filled in from the statute). Format 2
 * holds no regular expression, so what passes runs in time linear in the
 * content.
 *
 * @module
 */
import {
  type Atom,
  type Expression,
  MAX_EXPRESSION_DEPTH,
  MAX_EXPRESSION_NODES,
} from "./detector_schema.ts";
import { expandTerm, TermError } from "./lexicon.ts";
import { patternSafetyProblem } from "./pattern_safety.ts";
import {
  type Matcher,
  type Rule,
  type Rulebook,
  rulebookSchema,
  rulebookV2Schema,
  type RuleV1,
  type RuleV2Document,
  type Statute,
  type TierKey,
} from "./rulebook_schema.ts";
import { RulebookError } from "./rulebook_error.ts";

export { RulebookError };

/** Parses and checks a rulebook import document, throwing `RulebookError` on the first problem. */
export function validateRulebook(input: unknown): Rulebook {
  const format = (input as { format?: unknown } | null)?.format;
  if (format === 2) return validateV2(input);
  if (format !== undefined && format !== 1) {
    throw new RulebookError("Invalid rulebook at format: must be 1 or 2");
  }
  const document = format === 1 ? withoutFormat(input) : input;
  const parsed = rulebookSchema.safeParse(document);
  if (!parsed.success) throw schemaError(parsed.error.issues[0], document);
  const rulebook = parsed.data;
  checkUniqueKeys(rulebook.rules);
  for (const rule of rulebook.rules) {
    checkMatchers(rule);
    checkTier(rule.rule_key, rule.tier_key, rule.penalty_usd);
  }
  return {
    version: rulebook.version,
    format: 1,
    statutes: [],
    concepts: {},
    definitions: {},
    rules: rulebook.rules,
  };
}

/**
 * A format-1 document as the import schema knows it: without `format`, and
 * without the empty statutes, concepts and definitions a validated format-1
 * rulebook carries (so validating a validated rulebook succeeds).
 */
function withoutFormat(input: unknown): unknown {
  const { format: _format, ...rest } = input as Record<string, unknown>;
  for (const key of ["statutes", "concepts", "definitions"]) {
    const value = rest[key];
    const empty = (Array.isArray(value) && value.length === 0) ||
      (value !== null && typeof value === "object" && !Array.isArray(value) &&
        Object.keys(value).length === 0);
    if (empty) delete rest[key];
  }
  return rest;
}

function schemaError(
  issue: { path: PropertyKey[]; message: string },
  input: unknown,
): RulebookError {
  const path = issue.path;
  let ruleKey: string | null = null;
  let where = path.map(String).join(".");
  if (path[0] === "rules" && typeof path[1] === "number") {
    ruleKey = ruleKeyAt(input, path[1]);
    const label = ruleKey === null ? `rules[${path[1]}]` : `rule "${ruleKey}"`;
    where = [label, ...path.slice(2).map(String)].join(".");
  }
  return new RulebookError(
    `Invalid rulebook at ${where || "top level"}: ${issue.message}`,
    ruleKey,
  );
}

function ruleKeyAt(input: unknown, index: number): string | null {
  const rules = (input as { rules?: unknown })?.rules;
  if (!Array.isArray(rules)) return null;
  const key = (rules[index] as { rule_key?: unknown } | undefined)?.rule_key;
  return typeof key === "string" ? key : null;
}

function checkUniqueKeys(rules: readonly { rule_key: string }[]): void {
  const seen = new Set<string>();
  for (const rule of rules) {
    if (seen.has(rule.rule_key)) {
      throw new RulebookError(`Duplicate rule_key "${rule.rule_key}"`, rule.rule_key);
    }
    seen.add(rule.rule_key);
  }
}

function checkMatchers(rule: RuleV1): void {
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

function checkTier(
  owner: string,
  tier: TierKey,
  penalty: number,
  ruleKey: string | null = owner,
): void {
  const inconsistent = (tier === "tier2_significant" && (penalty < 2_500 || penalty >= 10_000)) ||
    (tier === "tier3_standard" && penalty >= 2_500);
  if (inconsistent) {
    throw new RulebookError(
      `${
        ruleKey === null ? `Statute "${owner}"` : `Rule "${owner}"`
      }: tier_key ${tier} does not fit penalty_usd ${penalty}`,
      ruleKey,
    );
  }
}

function validateV2(input: unknown): Rulebook {
  const parsed = rulebookV2Schema.safeParse(input);
  if (!parsed.success) throw schemaError(parsed.error.issues[0], input);
  const document = parsed.data;
  checkUniqueKeys(document.rules);
  const statutes = new Map<string, Statute>();
  for (const statute of document.statutes) {
    if (statutes.has(statute.id)) throw new RulebookError(`Duplicate statute id "${statute.id}"`);
    checkTier(statute.id, statute.tier_key, statute.penalty_usd, null);
    statutes.set(statute.id, statute);
  }
  for (const [name, concept] of Object.entries(document.concepts)) {
    try {
      if ("terms" in concept) { for (const term of concept.terms) expandTerm(term); }
      else expandTerm(concept.statement, { literal: true });
    } catch (error) {
      if (error instanceof TermError) {
        throw new RulebookError(`Concept "${name}": ${error.message}`);
      }
      throw error;
    }
  }
  const concepts = new Set(Object.keys(document.concepts));
  const sources = document.definitions ?? {};
  const definitions = new Set(Object.keys(sources));
  for (const [name, expression] of Object.entries(sources)) {
    checkExpression(expression, {
      concepts,
      definitions,
      fail: (message) => {
        throw new RulebookError(`Definition "${name}": ${message}`);
      },
    }, "");
  }
  checkNoCycle(sources);
  const rules: Rule[] = document.rules.map((rule) =>
    resolveRule(rule, statutes, { concepts, definitions })
  );
  return {
    version: document.version,
    format: 2,
    statutes: document.statutes,
    concepts: document.concepts,
    definitions: document.definitions ?? {},
    rules,
  };
}

interface Names {
  concepts: ReadonlySet<string>;
  definitions: ReadonlySet<string>;
}

/** Checks the names, bounds and terms of an expression; `fail` throws. */
function checkExpression(
  root: Expression,
  context: Names & { fail: (message: string) => never },
  label: string,
): void {
  const { fail } = context;
  let nodes = 0;
  const check = (expression: Expression, depth: number, path: string) => {
    nodes += 1;
    if (depth > MAX_EXPRESSION_DEPTH) fail(`${path} nests deeper than ${MAX_EXPRESSION_DEPTH}`);
    if (nodes > MAX_EXPRESSION_NODES) {
      fail(`${label || "expression"} has more than ${MAX_EXPRESSION_NODES} expression nodes`);
    }
    const atom = (a: Atom, where: string) =>
      checkAtom(a, context.concepts, (m) => fail(`${where}: ${m}`));
    if ("has" in expression) atom(expression.has, `${path}.has`);
    else if ("count" in expression) atom(expression.count, `${path}.count`);
    else if ("near" in expression) {
      atom(expression.near[0], `${path}.near[0]`);
      atom(expression.near[1], `${path}.near[1]`);
    } else if ("all" in expression) {
      expression.all.forEach((e, i) => check(e, depth + 1, `${path}.all[${i}]`));
    } else if ("any" in expression) {
      expression.any.forEach((e, i) => check(e, depth + 1, `${path}.any[${i}]`));
    } else if ("not" in expression) check(expression.not, depth + 1, `${path}.not`);
    else if ("use" in expression) {
      if (!context.definitions.has(expression.use)) {
        fail(
          `${path}.use: unknown definition "${expression.use}" (a definition may use only earlier ones)`,
        );
      }
    } else if ("in" in expression) check(expression.test, depth + 1, `${path}.in`);
    else if ("reply" in expression) {
      atom(expression.reply.to, `${path}.reply.to`);
      check(
        (expression.reply.lacks ?? expression.reply.has) as Expression,
        depth + 1,
        `${path}.reply`,
      );
    } else if ("gap" in expression) atom(expression.gap.atom, `${path}.gap`);
    else if ("window" in expression) atom(expression.window.event, `${path}.window.event`);
  };
  check(root, 1, label);
}

/** The definitions each expression uses, directly. */
function usesOf(expression: Expression, into: Set<string> = new Set()): Set<string> {
  if ("use" in expression) into.add(expression.use);
  else if ("all" in expression) { for (const e of expression.all) usesOf(e, into); }
  else if ("any" in expression) { for (const e of expression.any) usesOf(e, into); }
  else if ("not" in expression) usesOf(expression.not, into);
  else if ("in" in expression) usesOf(expression.test, into);
  else if ("reply" in expression) {
    usesOf((expression.reply.lacks ?? expression.reply.has) as Expression, into);
  }
  return into;
}

/** Refuses definitions that use themselves, directly or through others, naming the cycle. */
function checkNoCycle(sources: Record<string, Expression>): void {
  const state = new Map<string, "visiting" | "done">();
  const visit = (name: string, path: string[]) => {
    if (state.get(name) === "done") return;
    if (state.get(name) === "visiting") {
      throw new RulebookError(
        `Definitions use each other in a cycle: ${[...path, name].join(" -> ")}`,
      );
    }
    state.set(name, "visiting");
    const source = sources[name];
    if (source !== undefined) { for (const used of usesOf(source)) visit(used, [...path, name]); }
    state.set(name, "done");
  };
  for (const name of Object.keys(sources)) visit(name, []);
}

function resolveRule(
  rule: RuleV2Document,
  statutes: ReadonlyMap<string, Statute>,
  names: Names,
): Rule {
  const key = rule.rule_key;
  const fail = (message: string): never => {
    throw new RulebookError(`Rule "${key}": ${message}`, key);
  };
  for (const id of rule.statute_ids) {
    if (!statutes.has(id)) fail(`unknown statute id "${id}"`);
  }
  const statute = statutes.get(rule.statute_ids[0]) as Statute;
  if (rule.jurisdictions.length !== 1 || rule.jurisdictions[0] !== statute.jurisdiction) {
    fail(`jurisdictions must be ["${statute.jurisdiction}"], the jurisdiction of ${statute.id}`);
  }
  if (rule.citation !== undefined && rule.citation !== statute.citation) {
    fail(`citation differs from statute ${statute.id}'s; omit it or copy it exactly`);
  }
  if (rule.penalty_usd !== undefined && rule.penalty_usd !== statute.penalty_usd) {
    fail(
      `penalty_usd ${rule.penalty_usd} differs from statute ${statute.id}'s ${statute.penalty_usd}`,
    );
  }
  if (rule.tier_key !== undefined && rule.tier_key !== statute.tier_key) {
    fail(`tier_key ${rule.tier_key} differs from statute ${statute.id}'s ${statute.tier_key}`);
  }
  const context = { ...names, fail };
  if (rule.detector.applies !== undefined) {
    checkExpression(rule.detector.applies, context, "detector.applies");
  }
  if (rule.detector.exempt !== undefined) {
    checkExpression(rule.detector.exempt, context, "detector.exempt");
  }
  checkExpression(rule.detector.violation, context, "detector.violation");
  return {
    ...rule,
    tier_key: statute.tier_key,
    citation: statute.citation,
    penalty_usd: statute.penalty_usd,
  };
}

function checkAtom(atom: Atom, concepts: ReadonlySet<string>, fail: (message: string) => never) {
  const name = typeof atom === "string" ? atom : "concept" in atom ? atom.concept : null;
  if (name !== null) {
    if (!concepts.has(name)) fail(`unknown concept "${name}"`);
    return;
  }
  try {
    for (const term of (atom as { terms: string[] }).terms) expandTerm(term);
  } catch (error) {
    if (error instanceof TermError) fail(error.message);
    throw error;
  }
}
