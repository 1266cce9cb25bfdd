import { type Grade, gradeRisk } from "../contract/grade.ts";
import type { ScanEvidence, ScanFinding } from "../contract/website_audit.ts";
import {
  compareFindings,
  type CompiledRule,
  type CompiledRulebook,
  type Document,
  evaluate,
  type Evidence,
  layerPrecedence,
  type RuleOutcome,
  scoreRules,
} from "../engine/mod.ts";
import { pageAddress } from "./target_url.ts";

/** The engine version a scan reports in `scan_meta.engine_version` (shared/engine/mod.ts). */
export { ENGINE_VERSION } from "../engine/mod.ts";

/**
 * A website has no jurisdiction of its own: anyone anywhere can visit it, so
 * a scan applies the website rules of every jurisdiction and every industry.
 */
export const WEBSITE_JURISDICTION = "ALL";

/** Most evidence items per finding, over all pages. */
export const MAX_SCAN_EVIDENCE = 5;

/** A page to judge: its final URL and its document. */
export interface ReportPage {
  url: string;
  document: Document;
}

/** The findings of a site, scored and graded. */
export interface SiteReport {
  /** 0 to 100, 100 clean: 100 minus the engine's risk score of the triggered rules. */
  score: number;
  /** The grade of the score, capped at D by a critical finding (shared/contract/grade.ts). */
  grade: Grade;
  critical: ScanFinding[];
  warnings: ScanFinding[];
  passed: ScanFinding[];
  /** Rule keys of the triggered rules, in finding order. */
  triggered: string[];
}

type PageOutcome = { url: string; outcome: RuleOutcome };

/**
 * Evaluates each page against the website rules of the rulebook
 * (jurisdiction ALL, every industry) and joins the outcomes into one report:
 *
 * - a rule is **triggered** when it triggered on any page; its evidence comes
 *   from those pages, each item naming its page in `source_url` by origin and
 *   path (never the query or fragment, where a redirect may have put a
 *   session id);
 * - a rule is **passed** when it passed on at least one page and triggered on
 *   none; a rule not applicable on every page is left out;
 * - as the engine does within a page, a triggered rule gives way to a
 *   triggered rule of higher precedence on the same concern found on another
 *   page (cross-state, then a specific statute, then a backstop), so one
 *   violation counts once, under the most specific citation;
 * - the score and grade are `gradeRisk()`'s (shared/contract/grade.ts) for
 *   the engine's risk score of the triggered rules (the sum of their
 *   weights, at most 100) and the number of critical findings.
 */
export function reportSite(
  compiled: CompiledRulebook,
  pages: readonly ReportPage[],
  options: { at?: Date } = {},
): SiteReport {
  const byKey = new Map(compiled.rules.map((rule) => [rule.rule.rule_key, rule]));
  const triggered = new Map<string, PageOutcome[]>();
  const passed = new Map<string, PageOutcome[]>();
  for (const page of pages) {
    const result = evaluate(compiled, {
      document: page.document,
      jurisdiction: WEBSITE_JURISDICTION,
      surface: "website",
      at: options.at,
    });
    for (const outcome of result.outcomes) {
      const into = outcome.status === "triggered"
        ? triggered
        : outcome.status === "passed"
        ? passed
        : undefined;
      if (into === undefined) continue;
      into.set(outcome.rule_key, [...(into.get(outcome.rule_key) ?? []), {
        url: page.url,
        outcome,
      }]);
    }
  }
  for (const key of givenWay([...triggered.keys()], byKey)) {
    triggered.delete(key);
    passed.delete(key);
  }
  for (const key of triggered.keys()) passed.delete(key);

  const rules = (keys: Iterable<string>) =>
    [...keys].map((key) => byKey.get(key) as CompiledRule).sort((a, b) =>
      compareFindings(a.rule, b.rule)
    );
  const fired = rules(triggered.keys());
  const finding = (rule: CompiledRule, from: PageOutcome[]) =>
    toFinding(
      rule,
      from.flatMap(({ url, outcome }) => outcome.evidence.map((e) => toEvidence(e, url))),
    );
  const critical = fired.filter((r) => r.rule.severity === "critical").map((r) =>
    finding(r, triggered.get(r.rule.rule_key) ?? [])
  );
  const { score, grade } = gradeRisk({
    riskScore: scoreRules(fired.map((r) => r.rule)).risk_score,
    critical: critical.length,
  });
  return {
    score,
    grade,
    critical,
    warnings: fired.filter((r) => r.rule.severity !== "critical").map((r) =>
      finding(r, triggered.get(r.rule.rule_key) ?? [])
    ),
    passed: rules(passed.keys()).map((r) => finding(r, passed.get(r.rule.rule_key) ?? [])),
    triggered: fired.map((r) => r.rule.rule_key),
  };
}

/**
 * Whether the rulebook finds something to judge on a page: some website rule
 * (jurisdiction ALL, every industry, as in {@linkcode reportSite}) applies
 * and points at words of the page, i.e. its outcome is not `not_applicable`
 * and carries evidence. A rule with no `applies` expression passes on any
 * page, an empty one too, so "not every outcome is `not_applicable`" would
 * judge every empty page; evidence is what shows that the rules saw
 * something there (a chat widget's script, a form field, a claim).
 */
export function judgesPage(
  compiled: CompiledRulebook,
  document: Document,
  options: { at?: Date } = {},
): boolean {
  const result = evaluate(compiled, {
    document,
    jurisdiction: WEBSITE_JURISDICTION,
    surface: "website",
    at: options.at,
  });
  return result.outcomes.some((outcome) =>
    outcome.status !== "not_applicable" && outcome.evidence.length > 0
  );
}

/** Precedence of a rule's layer for jurisdiction ALL, as in the evaluator: lower wins. */
/** Pages are evaluated under jurisdiction ALL, so layers rank as the engine ranks them there. */
const LAYER_LEVEL = layerPrecedence(WEBSITE_JURISDICTION);

/** Triggered rules that give way to a triggered rule of higher precedence on their concern. */
function givenWay(keys: string[], byKey: Map<string, CompiledRule>): string[] {
  const best = new Map<string, number>();
  for (const key of keys) {
    const rule = byKey.get(key) as CompiledRule;
    if (rule.rule.concern === undefined) continue;
    const level = LAYER_LEVEL[rule.layer];
    best.set(rule.rule.concern, Math.min(best.get(rule.rule.concern) ?? level, level));
  }
  return keys.filter((key) => {
    const rule = byKey.get(key) as CompiledRule;
    const concern = rule.rule.concern;
    return concern !== undefined && LAYER_LEVEL[rule.layer] > (best.get(concern) ?? 0);
  });
}

function toFinding(rule: CompiledRule, evidence: ScanEvidence[]): ScanFinding {
  const r = rule.rule;
  return {
    rule_key: r.rule_key,
    title: r.title,
    plain_english: r.plain_english,
    category: r.category,
    statute_ref: r.citation,
    // Only a rule the rulebook maps to statute codes explicitly carries them.
    ...(r.statute_codes === null ? {} : { statute_codes: [...r.statute_codes] }),
    evidence: evidence.slice(0, MAX_SCAN_EVIDENCE),
  };
}

/**
 * The evidence `type`: the page fact a piece of hidden text comes from
 * (`script`, `iframe`), `form` for a form field's placeholder, else where the
 * words sit (`text`, `attribute`, `meta`, `hidden`, `tiny`).
 */
export function evidenceType(evidence: Evidence): string {
  if (evidence.label === "script" || evidence.label === "iframe") return evidence.label;
  if (evidence.where === "attribute" && evidence.label === "placeholder") return "form";
  return evidence.where;
}

function toEvidence(evidence: Evidence, url: string): ScanEvidence {
  return { type: evidenceType(evidence), excerpt: evidence.excerpt, source_url: pageAddress(url) };
}
