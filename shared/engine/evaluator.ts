/**
 * Evaluates content against a compiled rulebook.
 *
 * The content becomes a document once (document/read.ts); one pass of the
 * rulebook's lexicon finds every concept's matches; then each candidate rule
 * is decided from those matches:
 *
 * - `not_applicable` when its statute is not in force on the evaluation date,
 *   when its `applies` expression is false, when its `exempt` expression is
 *   true, or when a rule that takes precedence triggered on the same concern;
 * - `triggered` when its `violation` expression is true;
 * - `passed` otherwise.
 *
 * Precedence within a concern: for a state, a specific statute's rule comes
 * before the state's consumer-protection backstop; for jurisdiction ALL, a
 * cross-state rule (whose citation names the states' statutes) comes before
 * both. So one violation is counted once, under the most specific citation.
 *
 * @module
 */
import {
  candidateKey,
  candidateView,
  type CompiledRule,
  type CompiledRulebook,
  type Layer,
} from "./compiler.ts";
import type { Document, Role, Where } from "./document/document.ts";
import { type DialogueMessage, readContent, readMessages } from "./document/read.ts";
import { excerptAround } from "./evidence_excerpt.ts";
import { Evaluation, type EvidenceSpan } from "./expression.ts";
import type { Matches } from "./lexicon.ts";
import type {
  Industry,
  Jurisdiction,
  Rule,
  Severity,
  Surface,
  TierKey,
} from "./rulebook_schema.ts";
import { compareFindings, type Score, scoreRules } from "./scoring.ts";

/** What to evaluate: content, transcript messages, or a document already read. */
export interface EvaluationInput {
  /** Plain text, HTML, a script or an asset description (up to 30,000 characters). */
  content?: string;
  /** A transcript's messages (webhookIngest). */
  messages?: readonly DialogueMessage[];
  /** A document already read (the website scanner reads each page once). */
  document?: Document;
  /** A state, or "ALL" for the rules of every jurisdiction. */
  jurisdiction: Jurisdiction;
  /** Restricts to rules for this industry (or for every industry); omitted means all rules. */
  industry?: Industry;
  /** Which rules apply: those written for content, websites or transcripts. */
  surface: Surface;
  /** The evaluation date, for statutes' effective dates; default now. */
  at?: Date;
}

/** One piece of evidence: an excerpt of the original text and where it was found. */
export interface Evidence {
  /** Where the words sit: visible text, an attribute, a meta tag, hidden or tiny text. */
  where: Where;
  /** The attribute or meta name, for `attribute` and `meta`. */
  label?: string;
  /** The words matched, as written. */
  match: string;
  /** The match with some context, at most 160 characters. */
  excerpt: string;
  /** Offset of the match in its source text (the content, for plain text). */
  offset: number;
  /** For a dialogue: the turn (from 0) and its speaker. */
  turn?: number;
  speaker?: Role;
}

/** The decision on one candidate rule. */
export type RuleStatus = "triggered" | "passed" | "not_applicable";

/** One candidate rule's outcome, with the evidence behind it. */
export interface RuleOutcome {
  rule_key: string;
  status: RuleStatus;
  /** Why a rule was not applicable. */
  reason?: string;
  evidence: Evidence[];
}

/** A triggered rule. */
export interface Finding {
  rule_key: string;
  severity: Severity;
  weight: number;
  title: string;
  plain_english: string;
  category: string;
  tier_key: TierKey;
  citation: string;
  penalty_usd: number;
  statute_codes: string[] | null;
  statute_ids: string[];
  evidence: Evidence[];
}

/** The result of an evaluation: the score, the findings behind it, and every candidate's outcome. */
export interface EvaluationResult extends Score {
  findings: Finding[];
  outcomes: RuleOutcome[];
  /** The document that was evaluated. */
  document: Document;
}

/**
 * The lexicon's matches of a document passed in, once per document and
 * rulebook: a transcript evaluated under several jurisdictions
 * (webhookIngest) or a page under several rule sets is matched once, against
 * the whole lexicon. Content read by `evaluate` itself is matched against the
 * view of its candidate rules only, and never cached: a cache entry would
 * keep the document alive through the next minor garbage collections, so
 * that every request's document would be promoted to the old generation.
 */
const matchCache = new WeakMap<Document, { lexicon: object; matches: Matches[] }>();
function documentMatches(compiled: CompiledRulebook, doc: Document): Matches[] {
  const cached = matchCache.get(doc);
  if (cached !== undefined && cached.lexicon === compiled.lexicon) return cached.matches;
  const matches = compiled.lexicon.match(doc);
  matchCache.set(doc, { lexicon: compiled.lexicon, matches });
  return matches;
}

/**
 * How the rule layers rank on a shared concern, lowest first (see the module
 * comment): for jurisdiction ALL, cross-state, then specific, then backstop;
 * for a state, specific and cross-state alike, then backstop. Callers that
 * merge several evaluations (the website scan) rank with the same table.
 */
export function layerPrecedence(
  jurisdiction: Jurisdiction,
): Readonly<Record<Layer, number>> {
  return jurisdiction === "ALL" ? ALL_PRECEDENCE : STATE_PRECEDENCE;
}
const ALL_PRECEDENCE = { cross_state: 0, specific: 1, backstop: 2 } as const;
const STATE_PRECEDENCE = { cross_state: 0, specific: 0, backstop: 1 } as const;

/** Most evidence items kept per outcome. */
export const MAX_EVIDENCE_PER_FINDING = 3;

/** Evaluates content against a compiled rulebook; never throws for any string content. */
export function evaluate(compiled: CompiledRulebook, input: EvaluationInput): EvaluationResult {
  const doc = input.document ??
    (input.messages !== undefined
      ? readMessages(input.messages)
      : readContent(input.content ?? ""));
  const key = candidateKey(input.surface, input.jurisdiction, input.industry);
  const candidates = compiled.candidates.get(key) ?? [];
  // A document read here is evaluated once: only what its candidate rules read is matched.
  // A document passed in may be evaluated again under other rules: it is matched whole, once.
  const matches = input.document === undefined
    ? compiled.lexicon.match(doc, candidateView(compiled, key))
    : documentMatches(compiled, doc);
  const evaluation = new Evaluation(doc, matches, compiled.slots);
  const today = (input.at ?? new Date()).toISOString().slice(0, 10);
  const precedence = layerPrecedence(input.jurisdiction);

  // Rules of higher precedence first, so that their concerns are known.
  const ordered = byPrecedence(candidates, precedence);
  // Outcomes by the candidate's position, in the candidates' order.
  const outcomes: RuleOutcome[] = new Array(candidates.length);
  const covered = new Map<string, { level: number; ruleKey: string }>();
  const triggered: { rule: Rule; finding: Finding }[] = [];
  for (let k = 0; k < ordered.length; k += 1) {
    const position = ordered[k];
    const candidate = candidates[position];
    const rule = candidate.rule;
    const level = precedence[candidate.layer];
    const outcome = decide(candidate, evaluation, today, doc);
    if (outcome.status === "triggered" && rule.concern !== undefined) {
      const cover = covered.get(rule.concern);
      if (cover !== undefined && cover.level < level) {
        outcome.status = "not_applicable";
        outcome.reason = `covered by ${cover.ruleKey}`;
      } else if (cover === undefined) {
        covered.set(rule.concern, { level, ruleKey: rule.rule_key });
      }
    }
    outcomes[position] = outcome;
    if (outcome.status === "triggered") {
      triggered.push({
        rule,
        finding: {
          rule_key: rule.rule_key,
          severity: rule.severity,
          weight: rule.weight,
          title: rule.title,
          plain_english: rule.plain_english,
          category: rule.category,
          tier_key: rule.tier_key,
          citation: rule.citation,
          penalty_usd: rule.penalty_usd,
          statute_codes: rule.statute_codes === null ? null : [...rule.statute_codes],
          statute_ids: [...(rule.statute_ids ?? [])],
          evidence: outcome.evidence,
        },
      });
    }
  }
  triggered.sort((a, b) => compareFindings(a.finding, b.finding));
  const score = scoreRules(triggered.map((entry) => entry.rule));
  return {
    ...score,
    findings: triggered.map((entry) => entry.finding),
    outcomes,
    document: doc,
  };
}

/** Candidate lists in order of precedence, per list and precedence table (sorted once). */
const orderedCache = new WeakMap<
  readonly CompiledRule[],
  Map<Readonly<Record<Layer, number>>, readonly number[]>
>();

/**
 * The candidates' positions, rules of higher precedence first (a stable sort:
 * otherwise in order).
 */
function byPrecedence(
  candidates: readonly CompiledRule[],
  precedence: Readonly<Record<Layer, number>>,
): readonly number[] {
  let byTable = orderedCache.get(candidates);
  if (byTable === undefined) {
    byTable = new Map();
    orderedCache.set(candidates, byTable);
  }
  let ordered = byTable.get(precedence);
  if (ordered === undefined) {
    ordered = candidates.map((_, position) => position).sort((a, b) =>
      precedence[candidates[a].layer] - precedence[candidates[b].layer]
    );
    byTable.set(precedence, ordered);
  }
  return ordered;
}

function decide(
  candidate: CompiledRule,
  evaluation: Evaluation,
  today: string,
  doc: Document,
): RuleOutcome {
  const rule_key = candidate.rule.rule_key;
  if (candidate.effective !== null && candidate.effective > today) {
    return {
      rule_key,
      status: "not_applicable",
      reason: `not in force until ${candidate.effective}`,
      evidence: [],
    };
  }
  // Evidence of each test in its own list (no list is cut back or emptied between tests).
  const scope: EvidenceSpan[] = [];
  evaluation.evidence = scope;
  try {
    if (candidate.applies !== undefined && !evaluation.test(candidate.applies)) {
      return {
        rule_key,
        status: "not_applicable",
        reason: "outside the statute's scope",
        evidence: [],
      };
    }
    if (candidate.exempt !== undefined) {
      const exempting: EvidenceSpan[] = [];
      evaluation.evidence = exempting;
      if (evaluation.test(candidate.exempt)) {
        return {
          rule_key,
          status: "not_applicable",
          reason: "exempt",
          evidence: toEvidence(doc, exempting),
        };
      }
    }
    // What the violation test found comes first: it is what the finding is about; what
    // brought the rule into scope follows, if there is room.
    const spans: EvidenceSpan[] = [];
    evaluation.evidence = spans;
    const violated = evaluation.test(candidate.violation);
    for (let k = 0; k < scope.length; k += 1) spans.push(scope[k]);
    return {
      rule_key,
      status: violated ? "triggered" : "passed",
      evidence: toEvidence(doc, spans),
    };
  } finally {
    evaluation.evidence = null;
  }
}

function toEvidence(doc: Document, spans: readonly EvidenceSpan[]): Evidence[] {
  const out: Evidence[] = [];
  // First tokens already quoted (at most MAX_EVIDENCE_PER_FINDING: a list beats a Set).
  const seen: number[] = [];
  for (const span of spans) {
    if (out.length >= MAX_EVIDENCE_PER_FINDING) break;
    if (span.first >= doc.length || seen.includes(span.first)) continue;
    seen.push(span.first);
    const pieceIndex = doc.piece[span.first];
    const piece = doc.pieces[pieceIndex];
    const last = Math.max(span.first, span.end - 1);
    const start = doc.start[span.first];
    const end = doc.piece[last] === pieceIndex ? doc.end[last] : doc.end[span.first];
    const turn = doc.blockTurn[doc.block[span.first]];
    out.push({
      where: piece.where,
      ...(piece.label === undefined ? {} : { label: piece.label }),
      match: piece.text.slice(start, end),
      // Markup nobody sees (a comment, a script's source, a data-* value) is quoted by its
      // matched words only: the text around them can be configuration, keys included.
      excerpt: piece.where === "hidden" && piece.label !== undefined
        ? piece.text.slice(start, end)
        : excerptAround(piece.text, start, end),
      offset: start,
      ...(turn < 0 ? {} : { turn, speaker: doc.turns[turn].role }),
    });
  }
  return out;
}
