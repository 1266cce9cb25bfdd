/**
 * Compiles a validated rulebook into the structures the evaluator needs:
 * deduplicated phrases (tokenized, indexed by first word), deduplicated
 * case-insensitive RegExps, and the candidate rules of every
 * (surface, jurisdiction, industry) combination.
 *
 * @module
 */
import {
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
import { tokenize } from "./text_tokens.ts";

/** One distinct phrase of a compiled rulebook. */
export interface CompiledPhrase {
  readonly id: number;
  readonly text: string;
  readonly words: readonly string[];
}

/** One distinct pattern of a compiled rulebook. */
export interface CompiledPattern {
  readonly id: number;
  readonly source: string;
  readonly regex: RegExp;
}

/** Matchers of one detector group, split into phrase ids and pattern ids. */
export interface CompiledGroup {
  readonly phrases: readonly number[];
  readonly patterns: readonly number[];
}

/** A rule with its detector resolved to phrase and pattern ids. */
export interface CompiledRule {
  readonly rule: Rule;
  readonly any: CompiledGroup;
  readonly all: CompiledGroup;
  readonly none: CompiledGroup;
}

/** A rulebook ready for evaluation; immutable and shareable across requests. */
export interface CompiledRulebook {
  readonly version: number;
  readonly rules: readonly CompiledRule[];
  readonly phrases: readonly CompiledPhrase[];
  readonly patterns: readonly CompiledPattern[];
  /** Phrases keyed by their first word. */
  readonly phrasesByFirstWord: ReadonlyMap<string, readonly CompiledPhrase[]>;
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
  const phrases: CompiledPhrase[] = [];
  const phraseIds = new Map<string, number>();
  const patterns: CompiledPattern[] = [];
  const patternIds = new Map<string, number>();

  function compileGroup(matchers: readonly Matcher[] | undefined): CompiledGroup {
    const phraseList: number[] = [];
    const patternList: number[] = [];
    for (const matcher of matchers ?? []) {
      if (typeof matcher === "string") {
        const words = tokenize(matcher.toLowerCase()).words;
        if (words.length === 0) continue;
        const key = words.join(" ");
        let id = phraseIds.get(key);
        if (id === undefined) {
          id = phrases.length;
          phrases.push({ id, text: key, words });
          phraseIds.set(key, id);
        }
        phraseList.push(id);
      } else {
        let id = patternIds.get(matcher.pattern);
        if (id === undefined) {
          id = patterns.length;
          patterns.push({ id, source: matcher.pattern, regex: new RegExp(matcher.pattern, "i") });
          patternIds.set(matcher.pattern, id);
        }
        patternList.push(id);
      }
    }
    return { phrases: phraseList, patterns: patternList };
  }

  const rules: CompiledRule[] = rulebook.rules.map((rule) => ({
    rule,
    any: compileGroup(rule.detector.any),
    all: compileGroup(rule.detector.all),
    none: compileGroup(rule.detector.none),
  }));

  const phrasesByFirstWord = new Map<string, CompiledPhrase[]>();
  for (const phrase of phrases) {
    const list = phrasesByFirstWord.get(phrase.words[0]);
    if (list === undefined) phrasesByFirstWord.set(phrase.words[0], [phrase]);
    else list.push(phrase);
  }

  const candidates = new Map<string, CompiledRule[]>();
  for (const surface of SURFACES) {
    for (const jurisdiction of JURISDICTIONS) {
      for (const industry of [undefined, ...INDUSTRIES]) {
        candidates.set(
          candidateKey(surface, jurisdiction, industry),
          rules.filter((compiled) => applies(compiled.rule, surface, jurisdiction, industry)),
        );
      }
    }
  }

  return {
    version: rulebook.version,
    rules,
    phrases,
    patterns,
    phrasesByFirstWord,
    candidates,
  };
}

function applies(
  rule: Rule,
  surface: Surface,
  jurisdiction: Jurisdiction,
  industry: Industry | undefined,
): boolean {
  if (!rule.applies_to.includes(surface)) return false;
  if (
    jurisdiction !== "ALL" && !rule.jurisdictions.includes(jurisdiction) &&
    !rule.jurisdictions.includes("ALL")
  ) {
    return false;
  }
  return industry === undefined || rule.industries.length === 0 ||
    rule.industries.includes(industry);
}
