/**
 * Measures a rulebook against the labeled corpus.
 *
 * A violation case is found when a triggered rule names one of the case's
 * expected statute ids: the right verdict for the right reason. A compliant
 * case is cleared when no rule triggers at all. Recall is found violations
 * over violations; specificity is cleared compliant cases over compliant
 * cases; accuracy is both over all cases.
 *
 * @module
 */
import type { CompiledRulebook } from "../shared/engine/compiler.ts";
import { evaluate } from "../shared/engine/evaluator.ts";
// Cases may be HTML: load the HTML reader (linkedom) with the evaluator.
import "../shared/engine/document/html.ts";
import type { LoadedCase } from "./load.ts";

/** The date the corpus labels hold on: statutes in force then decide them. */
export const CORPUS_AS_OF = new Date("2026-11-22T12:00:00Z");

/** The outcome of one case. */
export interface CaseResult {
  case: LoadedCase;
  correct: boolean;
  /** Rule keys that triggered. */
  triggered: string[];
  /** Statute ids of the triggered rules. */
  statutes: string[];
  /** Rule keys that applied and passed, or whose exemption the content meets. */
  passed: string[];
  verdict: string;
}

/** Counts of one slice of the corpus. */
export interface Tally {
  violations: number;
  found: number;
  compliant: number;
  cleared: number;
}

/** Recall, specificity and accuracy of a tally (NaN where a slice has no case of the kind). */
export function rates(t: Tally): { recall: number; specificity: number; accuracy: number } {
  return {
    recall: t.found / t.violations,
    specificity: t.cleared / t.compliant,
    accuracy: (t.found + t.cleared) / (t.violations + t.compliant),
  };
}

function emptyTally(): Tally {
  return { violations: 0, found: 0, compliant: 0, cleared: 0 };
}

function add(tally: Tally, result: CaseResult): void {
  if (result.case.label === "violation") {
    tally.violations += 1;
    if (result.correct) tally.found += 1;
  } else {
    tally.compliant += 1;
    if (result.correct) tally.cleared += 1;
  }
}

/** Evaluates one case. */
export function runCase(compiled: CompiledRulebook, c: LoadedCase): CaseResult {
  const result = evaluate(compiled, {
    ...(c.messages === undefined ? { content: c.text ?? "" } : { messages: c.messages }),
    jurisdiction: c.jurisdiction,
    ...(c.industry === null ? {} : { industry: c.industry }),
    surface: c.surface,
    at: CORPUS_AS_OF,
  });
  const statutes = [...new Set(result.findings.flatMap((f) => f.statute_ids))];
  const correct = c.label === "violation"
    ? c.expect.some((id) => statutes.includes(id))
    : result.findings.length === 0;
  return {
    case: c,
    correct,
    triggered: result.findings.map((f) => f.rule_key),
    statutes,
    passed: result.outcomes.filter((o) =>
      o.status === "passed" || (o.status === "not_applicable" && o.reason === "exempt")
    ).map((o) => o.rule_key),
    verdict: result.verdict,
  };
}

/** Tallies of a run: overall, and by jurisdiction, hard form, statute, surface and rule. */
export interface Measurement {
  results: CaseResult[];
  overall: Tally;
  byJurisdiction: Map<string, Tally>;
  byForm: Map<string, Tally>;
  byStatute: Map<string, Tally>;
  bySurface: Map<string, Tally>;
  /** Per rule: violation cases it found, compliant cases it passed, and compliant cases it fired on. */
  byRule: Map<string, { found: number; passedCompliant: number; falseAlarms: number }>;
}

/** Runs every case and tallies the results. */
export function measure(compiled: CompiledRulebook, cases: readonly LoadedCase[]): Measurement {
  const m: Measurement = {
    results: [],
    overall: emptyTally(),
    byJurisdiction: new Map(),
    byForm: new Map(),
    byStatute: new Map(),
    bySurface: new Map(),
    byRule: new Map(
      compiled.rules.map((
        r,
      ) => [r.rule.rule_key, { found: 0, passedCompliant: 0, falseAlarms: 0 }]),
    ),
  };
  const slice = (map: Map<string, Tally>, key: string, result: CaseResult) => {
    let tally = map.get(key);
    if (tally === undefined) map.set(key, tally = emptyTally());
    add(tally, result);
  };
  for (const c of cases) {
    const result = runCase(compiled, c);
    m.results.push(result);
    add(m.overall, result);
    slice(m.byJurisdiction, c.jurisdiction, result);
    slice(m.bySurface, c.surface, result);
    for (const form of c.forms) slice(m.byForm, form, result);
    if (c.label === "violation") slice(m.byStatute, c.expect[0], result);
    for (const key of result.triggered) {
      const entry = m.byRule.get(key);
      if (entry === undefined) continue;
      if (c.label === "compliant") entry.falseAlarms += 1;
      else if (c.expect.some((id) => statuteIdsOf(compiled, key).includes(id))) entry.found += 1;
    }
    if (c.label === "compliant") {
      for (const key of result.passed) {
        const entry = m.byRule.get(key);
        if (entry !== undefined) entry.passedCompliant += 1;
      }
    }
  }
  return m;
}

function statuteIdsOf(compiled: CompiledRulebook, ruleKey: string): string[] {
  return compiled.rules.find((r) => r.rule.rule_key === ruleKey)?.rule.statute_ids ?? [];
}
