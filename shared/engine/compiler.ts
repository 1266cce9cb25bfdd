/**
 * Compiles a validated rulebook (either format) into what the evaluator
 * needs: one lexicon holding every concept and inline term, each rule's
 * detector as compiled expressions, and the candidate rules of every
 * (surface, jurisdiction, industry) combination.
 *
 * Format-1 detectors (`{ any, all, none }` of phrases and patterns) are
 * compiled into the same expressions: a phrase is an inline term, a pattern a
 * regular-expression atom (checked safe at import) run on the content's text.
 *
 * Which rules are candidates:
 * - format 1: the rules of the surface listing the jurisdiction or `ALL`
 *   (jurisdiction `ALL`: every rule), for the industry (or every industry);
 * - format 2: for a state, the rules listing that state; for `ALL`, every
 *   rule, the cross-state rules included. Cross-state rules (jurisdictions
 *   `["ALL"]`) never answer for a single state: a state's content is judged
 *   by that state's own statutes.
 *
 * @module
 */
import { type CompiledExpression, ExpressionCompiler } from "./expression.ts";
import { Lexicon, type LexiconView } from "./lexicon.ts";
import {
  type Detector,
  INDUSTRIES,
  type Industry,
  type Jurisdiction,
  JURISDICTIONS,
  type Matcher,
  type Rule,
  type Rulebook,
  type Surface,
  SURFACES,
} from "./rulebook_schema.ts";
import type { DetectorV2 } from "./detector_schema.ts";

/** How a rule relates to others of the same concern (format 2). */
export type Layer = "specific" | "backstop" | "cross_state";

/** A format-1 pattern, compiled. */
export interface CompiledPattern {
  readonly id: number;
  readonly source: string;
  readonly regex: RegExp;
}

/** A rule ready for evaluation. */
export interface CompiledRule {
  readonly rule: Rule;
  readonly applies?: CompiledExpression;
  readonly exempt?: CompiledExpression;
  readonly violation: CompiledExpression;
  readonly layer: Layer;
  /** First day in force of the rule's statute (ISO date), or null when unknown (format 1). */
  readonly effective: string | null;
  /** The lexicon entries its expressions read (definitions included), in increasing order. */
  readonly entries: readonly number[];
}

/** A rulebook ready for evaluation; immutable and shareable across requests. */
export interface CompiledRulebook {
  readonly version: number;
  readonly format: 1 | 2;
  readonly rules: readonly CompiledRule[];
  readonly lexicon: Lexicon;
  /** Atoms numbered by the expression compiler: an evaluation's memo size. */
  readonly slots: number;
  readonly patterns: readonly CompiledPattern[];
  /** Candidate rules keyed by `candidateKey(surface, jurisdiction, industry)`. */
  readonly candidates: ReadonlyMap<string, readonly CompiledRule[]>;
}

/** Key of the candidate index for a surface, a jurisdiction and an optional industry. */
export function candidateKey(
  surface: Surface,
  jurisdiction: Jurisdiction,
  industry: Industry | undefined,
): string {
  return `${surface}|${jurisdiction}|${industry ?? "*"}`;
}

/** Compiles a validated rulebook; call `validateRulebook` first on untrusted input. */
export function compileRulebook(rulebook: Rulebook): CompiledRulebook {
  const lexicon = new Lexicon();
  const concepts = new Map<string, number>();
  for (const [name, concept] of Object.entries(rulebook.concepts)) {
    const entry = "terms" in concept
      ? lexicon.add(concept.terms)
      : lexicon.add([concept.statement], { literal: true });
    concepts.set(name, entry);
  }
  const expressions = new ExpressionCompiler(lexicon, concepts, rulebook.definitions);
  const patterns: CompiledPattern[] = [];
  const patternIds = new Map<string, CompiledPattern>();
  const statutes = new Map(rulebook.statutes.map((statute) => [statute.id, statute]));

  const rules: CompiledRule[] = rulebook.rules.map((rule) => {
    if (isV2(rule.detector)) {
      const statute = statutes.get(rule.statute_ids?.[0] ?? "");
      const layer: Layer = rule.jurisdictions.includes("ALL")
        ? "cross_state"
        : statute?.backstop
        ? "backstop"
        : "specific";
      const compiled = {
        rule,
        ...(rule.detector.applies === undefined
          ? {}
          : { applies: expressions.compile(rule.detector.applies) }),
        ...(rule.detector.exempt === undefined
          ? {}
          : { exempt: expressions.compile(rule.detector.exempt) }),
        violation: expressions.compile(rule.detector.violation),
        layer,
        effective: statute?.effective ?? null,
      };
      return {
        ...compiled,
        entries: entriesOf([compiled.applies, compiled.exempt, compiled.violation]),
      };
    }
    const violation = compileV1(rule.detector);
    return {
      rule,
      violation,
      layer: "specific",
      effective: null,
      entries: entriesOf([violation]),
    };
  });

  function matcher(m: Matcher): CompiledExpression {
    // Format 1 never read hidden elements: its phrases match everywhere else.
    if (typeof m === "string") {
      return {
        op: "has",
        atom: expressions.atom({ terms: [m], where: ["text", "attribute", "meta", "tiny"] }),
      };
    }
    let pattern = patternIds.get(m.pattern);
    if (pattern === undefined) {
      pattern = { id: patterns.length, source: m.pattern, regex: new RegExp(m.pattern, "i") };
      patterns.push(pattern);
      patternIds.set(m.pattern, pattern);
    }
    return { op: "pattern", id: pattern.id, regex: pattern.regex };
  }

  function compileV1(detector: Detector): CompiledExpression {
    const items: CompiledExpression[] = [{ op: "any", items: detector.any.map(matcher) }];
    if (detector.all !== undefined && detector.all.length > 0) {
      items.push({ op: "all", items: detector.all.map(matcher) });
    }
    if (detector.none !== undefined && detector.none.length > 0) {
      items.push({ op: "not", item: { op: "any", items: detector.none.map(matcher) } });
    }
    return { op: "all", items };
  }

  const candidates = new Map<string, CompiledRule[]>();
  for (const surface of SURFACES) {
    for (const jurisdiction of JURISDICTIONS) {
      for (const industry of [undefined, ...INDUSTRIES]) {
        candidates.set(
          candidateKey(surface, jurisdiction, industry),
          rules.filter((compiled) =>
            applies(compiled, rulebook.format, surface, jurisdiction, industry)
          ),
        );
      }
    }
  }

  return {
    version: rulebook.version,
    format: rulebook.format,
    rules,
    lexicon,
    slots: expressions.slots,
    patterns,
    candidates,
  };
}

/**
 * The lexicon view for a list of candidate rules: only the entries those rules
 * read, so that matching skips the terms of every rule that cannot apply
 * (null: they read the whole lexicon). Built once per rulebook and candidate
 * key.
 */
export function candidateView(
  compiled: CompiledRulebook,
  key: string,
): LexiconView | null {
  let views = viewCache.get(compiled);
  if (views === undefined) {
    views = new Map();
    viewCache.set(compiled, views);
  }
  let view = views.get(key);
  if (view === undefined) {
    const candidates = compiled.candidates.get(key) ?? [];
    view = compiled.lexicon.view(candidates.flatMap((rule) => rule.entries));
    views.set(key, view);
  }
  return view;
}
const viewCache = new WeakMap<CompiledRulebook, Map<string, LexiconView | null>>();

/** The lexicon entries that compiled expressions read, definitions' bodies included. */
function entriesOf(expressions: readonly (CompiledExpression | undefined)[]): number[] {
  const entries = new Set<number>();
  const seenDefinitions = new Set<number>();
  const visit = (node: CompiledExpression): void => {
    switch (node.op) {
      case "has":
      case "count":
      case "gap":
        entries.add(node.atom.entry);
        return;
      case "near":
        entries.add(node.a.entry);
        entries.add(node.b.entry);
        return;
      case "window":
        entries.add(node.event.entry);
        return;
      case "reply":
        entries.add(node.to.entry);
        visit(node.check);
        return;
      case "all":
      case "any":
        for (const item of node.items) visit(item);
        return;
      case "not":
      case "in":
        visit(node.item);
        return;
      case "use":
        if (seenDefinitions.has(node.id)) return;
        seenDefinitions.add(node.id);
        visit(node.item);
        return;
      case "is":
      case "pattern":
        return;
    }
  };
  for (const expression of expressions) if (expression !== undefined) visit(expression);
  return [...entries].sort((a, b) => a - b);
}

function isV2(detector: Detector | DetectorV2): detector is DetectorV2 {
  return "kind" in detector && detector.kind === "v2";
}

function applies(
  compiled: CompiledRule,
  format: 1 | 2,
  surface: Surface,
  jurisdiction: Jurisdiction,
  industry: Industry | undefined,
): boolean {
  const rule = compiled.rule;
  if (!rule.applies_to.includes(surface)) return false;
  if (jurisdiction !== "ALL") {
    const listed = rule.jurisdictions.includes(jurisdiction);
    if (format === 2 ? !listed : !listed && !rule.jurisdictions.includes("ALL")) return false;
  }
  return industry === undefined || rule.industries.length === 0 ||
    rule.industries.includes(industry);
}
