/**
 * A transcript evaluated under an integration's settings: the transcript
 * rules of the active rulebook, through the engine's dialogue model, for each
 * of the integration's jurisdictions, merged into one result with its counts,
 * score and grade.
 *
 * @module
 */
import { type Graded, gradeRisk } from "../contract/grade.ts";
import type { Industry, Jurisdiction } from "../contract/vocabulary.ts";
import type { TranscriptMessage } from "../contract/webhook_ingest.ts";
import type { CompiledRulebook } from "../engine/compiler.ts";
import { readMessages } from "../engine/document/read.ts";
import { evaluate, type Finding } from "../engine/evaluator.ts";
import { compareFindings, riskScoreOf } from "../engine/scoring.ts";

/** What a transcript is evaluated under. */
export interface TranscriptSettings {
  /** `["ALL"]`, or one or more states: the rules of each apply. */
  jurisdictions: readonly Jurisdiction[];
  /** Restricts to rules of this industry (or of every industry); null means every rule. */
  industry: Industry | null;
  /** The evaluation date, for statutes' effective dates. */
  at: Date;
}

/** The merged result of a transcript's evaluation. */
export interface TranscriptEvaluation extends Graded {
  /** Triggered rules with their evidence, critical first (the engine's order). */
  findings: Finding[];
  /** Rules that applied and passed under every jurisdiction where they applied. */
  passed: string[];
  /** min(100, sum of the weights of the findings): the engine's risk score. */
  riskScore: number;
  criticalViolations: number;
  warnings: number;
  passedChecks: number;
}

/**
 * Evaluates transcript messages under the settings. A rule triggered under
 * any jurisdiction is a finding (once, with the evidence of its first
 * trigger); a rule is a passed check when it applied somewhere and triggered
 * nowhere; rules that did not apply count for neither.
 */
export function evaluateTranscript(
  compiled: CompiledRulebook,
  messages: readonly TranscriptMessage[],
  settings: TranscriptSettings,
): TranscriptEvaluation {
  const findings = new Map<string, Finding>();
  const passed = new Set<string>();
  // The dialogue is read once (turns, speakers, times) and judged under each jurisdiction.
  const document = readMessages(messages);
  for (const jurisdiction of settings.jurisdictions) {
    const result = evaluate(compiled, {
      document,
      jurisdiction,
      ...(settings.industry === null ? {} : { industry: settings.industry }),
      surface: "transcript",
      at: settings.at,
    });
    for (const finding of result.findings) {
      if (!findings.has(finding.rule_key)) findings.set(finding.rule_key, finding);
    }
    for (const outcome of result.outcomes) {
      if (outcome.status === "passed") passed.add(outcome.rule_key);
    }
  }
  for (const key of findings.keys()) passed.delete(key);
  const ordered = [...findings.values()].sort(compareFindings);
  const riskScore = riskScoreOf(ordered);
  const criticalViolations = ordered.filter((finding) => finding.severity === "critical").length;
  return {
    findings: ordered,
    passed: [...passed].sort(),
    riskScore,
    criticalViolations,
    warnings: ordered.length - criticalViolations,
    passedChecks: passed.size,
    ...gradeRisk({ riskScore, critical: criticalViolations }),
  };
}
