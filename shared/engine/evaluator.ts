/**
 * Evaluates content against a compiled rulebook.
 *
 * The text (HTML is first reduced to its readable text) is lower-cased and
 * tokenized once; one pass over the words looks each word up in the
 * first-word phrase index and verifies the following words. Patterns run
 * lazily, at most once per evaluation, on the text with whitespace collapsed
 * and curly quotes straightened, and only for candidate rules that need them:
 * a rule's `all` and `none` matchers are only consulted after its `any` matched.
 *
 * @module
 */
import { candidateKey, type CompiledGroup, type CompiledRulebook } from "./compiler.ts";
import { excerptAround } from "./evidence_excerpt.ts";
import { extractHtmlText, looksLikeHtml } from "./html_text.ts";
import type {
  Industry,
  Jurisdiction,
  Rule,
  Severity,
  Surface,
  TierKey,
} from "./rulebook_schema.ts";
import { compareFindings, type Score, scoreRules } from "./scoring.ts";
import { tokenize } from "./text_tokens.ts";

/** What to evaluate. */
export interface EvaluationInput {
  /** Plain text, HTML, a script or an asset description (the contract allows up to 30,000 characters). */
  content: string;
  /** A state, or "ALL" for the rules of every jurisdiction. */
  jurisdiction: Jurisdiction;
  /** Restricts to rules for this industry (or for every industry); omitted means all rules. */
  industry?: Industry;
  /** Which rules apply: those written for content, websites or transcripts. */
  surface: Surface;
}

/** One piece of evidence: the matched text in its context. */
export interface Evidence {
  type: "phrase" | "pattern";
  match: string;
  excerpt: string;
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
  evidence: Evidence[];
}

/** The result of an evaluation: the score plus the findings behind it. */
export interface EvaluationResult extends Score {
  findings: Finding[];
}

/** Most evidence items kept per finding. */
export const MAX_EVIDENCE_PER_FINDING = 3;

interface MatchSpan {
  start: number;
  end: number;
}

/** Evaluates content against a compiled rulebook; never throws for any string content. */
export function evaluate(compiled: CompiledRulebook, input: EvaluationInput): EvaluationResult {
  const text = looksLikeHtml(input.content) ? extractHtmlText(input.content) : input.content;
  const candidates = compiled.candidates.get(
    candidateKey(input.surface, input.jurisdiction, input.industry),
  ) ?? [];
  if (candidates.length === 0 || text.length === 0) return scored([]);

  const lowered = text.toLowerCase();
  // Offsets into `lowered` map onto `text` unless lower-casing changed the length.
  const excerptSource = lowered.length === text.length ? text : lowered;
  const phraseSpans = matchPhrases(compiled, lowered);

  let patternText: string | null = null;
  const patternSpans: (MatchSpan | null | undefined)[] = new Array(compiled.patterns.length);
  function patternSpan(id: number): MatchSpan | null {
    const known = patternSpans[id];
    if (known !== undefined) return known;
    patternText ??= patternView(text);
    const match = compiled.patterns[id].regex.exec(patternText);
    const span = match === null ? null : { start: match.index, end: match.index + match[0].length };
    patternSpans[id] = span;
    return span;
  }
  function groupMatches(group: CompiledGroup): boolean {
    for (const id of group.phrases) if (phraseSpans[id] !== null) return true;
    for (const id of group.patterns) if (patternSpan(id) !== null) return true;
    return false;
  }
  function groupMatchesEvery(group: CompiledGroup): boolean {
    for (const id of group.phrases) if (phraseSpans[id] === null) return false;
    for (const id of group.patterns) if (patternSpan(id) === null) return false;
    return true;
  }

  const triggered: Triggered[] = [];
  for (const candidate of candidates) {
    if (!groupMatches(candidate.any)) continue;
    if (!groupMatchesEvery(candidate.all)) continue;
    if (groupMatches(candidate.none)) continue;
    const evidence: Evidence[] = [];
    for (const id of candidate.any.phrases) {
      const span = phraseSpans[id];
      if (span === null || evidence.length >= MAX_EVIDENCE_PER_FINDING) continue;
      evidence.push({
        type: "phrase",
        match: excerptSource.slice(span.start, span.end),
        excerpt: excerptAround(excerptSource, span.start, span.end),
      });
    }
    for (const id of candidate.any.patterns) {
      if (evidence.length >= MAX_EVIDENCE_PER_FINDING) break;
      const span = patternSpans[id];
      if (span === null || span === undefined || patternText === null) continue;
      evidence.push({
        type: "pattern",
        match: (patternText as string).slice(span.start, span.end),
        excerpt: excerptAround(patternText, span.start, span.end),
      });
    }
    const rule = candidate.rule;
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
        evidence,
      },
    });
  }
  return scored(triggered);
}

interface Triggered {
  rule: Rule;
  finding: Finding;
}

function scored(triggered: Triggered[]): EvaluationResult {
  triggered.sort((a, b) => compareFindings(a.finding, b.finding));
  const score = scoreRules(triggered.map((entry) => entry.rule));
  return { ...score, findings: triggered.map((entry) => entry.finding) };
}

/**
 * The text patterns see: whitespace runs collapsed to one space, curly quotes
 * straightened. Only non-space whitespace and runs are replaced, which keeps
 * the common case (single spaces) cheap.
 */
function patternView(text: string): string {
  const collapsed = text.replace(/\s{2,}|[^\S ]/g, " ");
  return CURLY_QUOTES.test(collapsed)
    ? collapsed.replace(/[\u2018\u2019]/g, "'").replace(/[\u201c\u201d]/g, '"')
    : collapsed;
}

const CURLY_QUOTES = /[\u2018\u2019\u201c\u201d]/;

/** First occurrence of every phrase of the rulebook in the text, or null. */
function matchPhrases(compiled: CompiledRulebook, lowered: string): (MatchSpan | null)[] {
  const spans: (MatchSpan | null)[] = new Array(compiled.phrases.length).fill(null);
  const { words, starts, ends, hardBefore } = tokenize(lowered);
  const count = words.length;
  const index = compiled.phrasesByFirstWord;
  for (let t = 0; t < count; t += 1) {
    const entries = index.get(words[t]);
    if (entries === undefined) continue;
    for (const phrase of entries) {
      if (spans[phrase.id] !== null) continue;
      const length = phrase.words.length;
      if (t + length > count) continue;
      let matched = true;
      for (let k = 1; k < length; k += 1) {
        if (hardBefore[t + k] === 1 || words[t + k] !== phrase.words[k]) {
          matched = false;
          break;
        }
      }
      if (matched) spans[phrase.id] = { start: starts[t], end: ends[t + length - 1] };
    }
  }
  return spans;
}
