/**
 * The rule engine: rulebook schema and validation, compiler, evaluator,
 * scoring, per-isolate cache and the seed rulebook loader.
 *
 * @example
 * ```ts
 * import { evaluate, getCompiledRulebook } from "./mod.ts";
 * const compiled = await getCompiledRulebook(version, (v) => loadRulebookFromDb(v));
 * const result = evaluate(compiled, { content, jurisdiction: "CA", surface: "content" });
 * ```
 *
 * @module
 */

/**
 * The engine's version, reported by scans and stored with their results: 2.x
 * is the engine of rulebook format 2 (document model, declarative detectors).
 */
export const ENGINE_VERSION = "2.0.0";

export * from "./rulebook_schema.ts";
export { RulebookError, validateRulebook } from "./rulebook_validation.ts";
export { MAX_PATTERN_COST, MAX_QUANTIFIER_BOUND, patternSafetyProblem } from "./pattern_safety.ts";
export * from "./detector_schema.ts";
export {
  candidateKey,
  type CompiledPattern,
  type CompiledRule,
  type CompiledRulebook,
  compileRulebook,
  type Layer,
} from "./compiler.ts";
export {
  evaluate,
  type EvaluationInput,
  type EvaluationResult,
  type Evidence,
  type Finding,
  layerPrecedence,
  MAX_EVIDENCE_PER_FINDING,
  type RuleOutcome,
  type RuleStatus,
} from "./evaluator.ts";
export { expandTerm, Lexicon, TermError, termWords } from "./lexicon.ts";
export { isNegated, NEGATION_REACH, NEGATORS } from "./expression.ts";
export type { Document, DocumentKind, Piece, Role, Turn, Where } from "./document/document.ts";
export { type DialogueMessage, readContent, readMessages, readText } from "./document/read.ts";
export { looksLikeHtml, type PageFacts, readHtml } from "./document/html.ts";
export {
  compareFindings,
  RED_SCORE,
  type Remediation,
  type Score,
  type ScoredRule,
  scoreRules,
  type StatuteExposure,
  type Verdict,
  YELLOW_SCORE,
} from "./scoring.ts";
export {
  clearRulebookCache,
  getCompiledRulebook,
  MAX_CACHED_VERSIONS,
  type RulebookLoader,
} from "./rulebook_cache.ts";
export {
  loadSeedRulebook,
  NEWEST_SEED_VERSION,
  SEED_RULEBOOK_URL,
  SEED_VERSIONS,
  seedRulebookUrl,
} from "./seed_rulebook.ts";
export { excerptAround, MAX_EXCERPT_CHARS } from "./evidence_excerpt.ts";
