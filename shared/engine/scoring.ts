/**
 * Scoring of triggered rules.
 *
 * - `risk_score` = min(100, sum of the `weight` of every triggered rule); 0 when none.
 * - `verdict`:
 *   - `RED` when any triggered rule is `critical`, or `risk_score` >= 60;
 *   - `YELLOW` otherwise when any rule triggered (a `warning`), or `risk_score` >= 25;
 *   - `GREEN` when no rule triggered.
 * - `statutes`: one entry per distinct `citation` among the triggered rules, in
 *   the order of the findings; when several rules share a citation, the entry
 *   keeps the highest `penalty_usd` and the most severe `tier_key`.
 * - `penalty_exposure_usd` = sum of `penalty_usd` over those deduplicated statutes
 *   (a statutory maximum per violation, one violation per statute).
 * - `remediation`: one entry per triggered rule, in the order of the findings.
 * - Findings are ordered critical first, then by descending weight, then by rule_key.
 *
 * @module
 */
import { type Severity, TIER_KEYS, type TierKey } from "./rulebook_schema.ts";

/** Risk score at or above which the verdict is RED. */
export const RED_SCORE = 60;
/** Risk score at or above which the verdict is at least YELLOW. */
export const YELLOW_SCORE = 25;

/** Verdict of an evaluation. */
export type Verdict = "GREEN" | "YELLOW" | "RED";

/** A statute involved in the findings. */
export interface StatuteExposure {
  tier_key: TierKey;
  citation: string;
  penalty_usd: number;
}

/** Remediation advice for one triggered rule. */
export interface Remediation {
  rule_key: string;
  title: string;
  recommendation: string;
}

/** What scoring needs to know about a triggered rule. */
export interface ScoredRule {
  rule_key: string;
  severity: Severity;
  weight: number;
  tier_key: TierKey;
  citation: string;
  penalty_usd: number;
  remediation_title: string;
  remediation: string;
}

/** The scored summary of an evaluation. */
export interface Score {
  verdict: Verdict;
  risk_score: number;
  statutes: StatuteExposure[];
  penalty_exposure_usd: number;
  remediation: Remediation[];
}

/** Orders triggered rules: critical first, heavier first, then by rule_key. */
export function compareFindings(
  a: { severity: Severity; weight: number; rule_key: string },
  b: { severity: Severity; weight: number; rule_key: string },
): number {
  if (a.severity !== b.severity) return a.severity === "critical" ? -1 : 1;
  if (a.weight !== b.weight) return b.weight - a.weight;
  return a.rule_key < b.rule_key ? -1 : a.rule_key > b.rule_key ? 1 : 0;
}

/** The risk score of triggered rules: min(100, sum of their weights); 0 when none. */
export function riskScoreOf(triggered: readonly { weight: number }[]): number {
  return Math.min(100, triggered.reduce((sum, rule) => sum + rule.weight, 0));
}

/** Scores triggered rules, given in finding order. */
export function scoreRules(triggered: readonly ScoredRule[]): Score {
  let critical = false;
  const byCitation = new Map<string, StatuteExposure>();
  const remediation: Remediation[] = [];
  for (const rule of triggered) {
    critical ||= rule.severity === "critical";
    const known = byCitation.get(rule.citation);
    if (known === undefined) {
      byCitation.set(rule.citation, {
        tier_key: rule.tier_key,
        citation: rule.citation,
        penalty_usd: rule.penalty_usd,
      });
    } else {
      known.penalty_usd = Math.max(known.penalty_usd, rule.penalty_usd);
      if (TIER_KEYS.indexOf(rule.tier_key) < TIER_KEYS.indexOf(known.tier_key)) {
        known.tier_key = rule.tier_key;
      }
    }
    remediation.push({
      rule_key: rule.rule_key,
      title: rule.remediation_title,
      recommendation: rule.remediation,
    });
  }
  const risk_score = riskScoreOf(triggered);
  const verdict: Verdict = critical || risk_score >= RED_SCORE
    ? "RED"
    : triggered.length > 0 || risk_score >= YELLOW_SCORE
    ? "YELLOW"
    : "GREEN";
  const statutes = [...byCitation.values()];
  const penalty_exposure_usd = statutes.reduce((sum, statute) => sum + statute.penalty_usd, 0);
  return { verdict, risk_score, statutes, penalty_exposure_usd, remediation };
}
