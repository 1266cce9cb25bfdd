/**
 * The rulebook import document: zod schemas and the types inferred from them.
 *
 * A rulebook is data (`{ version, rules }`); its rule fields are also the
 * columns of the `rules` table. Structural checks live here; the checks that
 * need the whole document (unique rule keys, safe patterns, tier consistency)
 * live in `rulebook_validation.ts`.
 *
 * Tier keys (`tier_key`), decided in this order:
 *
 * | tier_key | meaning |
 * | --- | --- |
 * | `tier1_severe` | criminal exposure, or a statutory civil maximum of $10,000 or more per violation (or per day) |
 * | `tier4_licensing` | the statute names no dollar amount: licence or board discipline, injunction, or private relief only |
 * | `tier2_significant` | civil maximum from $2,500 up to (not including) $10,000 per violation |
 * | `tier3_standard` | civil maximum below $2,500 per violation |
 *
 * @module
 */
import { z } from "zod";
import { INDUSTRIES, JURISDICTIONS } from "../contract/vocabulary.ts";

/** Surfaces a rule can apply to. */
export const SURFACES = ["content", "website", "transcript"] as const;
/** Jurisdictions and industries are the contract's (an empty list on a rule means every industry). */
export { INDUSTRIES, JURISDICTIONS };
/** Penalty tiers, most severe first (see the module documentation). */
export const TIER_KEYS = [
  "tier1_severe",
  "tier2_significant",
  "tier3_standard",
  "tier4_licensing",
] as const;
/** Rule severities. */
export const SEVERITIES = ["critical", "warning"] as const;

/** Longest accepted phrase, in characters. */
export const MAX_PHRASE_CHARS = 120;
/** Longest accepted pattern source, in characters. */
export const MAX_PATTERN_CHARS = 300;

export const surfaceSchema = z.enum(SURFACES);
export const jurisdictionSchema = z.enum(JURISDICTIONS);
export const industrySchema = z.enum(INDUSTRIES);
export const tierKeySchema = z.enum(TIER_KEYS);

/** A phrase: words, digits, spaces, hyphens and apostrophes only (punctuation needs a pattern). */
export const phraseSchema = z
  .string()
  .min(1)
  .max(MAX_PHRASE_CHARS)
  .regex(
    /^[\p{L}\p{N}][\p{L}\p{N} '\u2019-]*$/u,
    "a phrase may hold only letters, digits, spaces, hyphens and apostrophes, and must start with a letter or digit",
  );

/** A pattern matcher; its safety is checked by `validateRulebook`. */
export const patternMatcherSchema = z.strictObject({
  pattern: z.string().min(1).max(MAX_PATTERN_CHARS),
});

/** One matcher: a phrase, or `{ pattern }`. */
export const matcherSchema = z.union([phraseSchema, patternMatcherSchema]);

/** The declarative detector: some `any`, every `all`, no `none`. */
export const detectorSchema = z.strictObject({
  any: z.array(matcherSchema).min(1).max(200),
  all: z.array(matcherSchema).max(20).optional(),
  none: z.array(matcherSchema).max(200).optional(),
});

/** One rule of a rulebook. */
export const ruleSchema = z.strictObject({
  rule_key: z.string().min(1).max(100).regex(/^[a-z0-9_]+$/),
  applies_to: z.array(surfaceSchema).min(1),
  jurisdictions: z.array(jurisdictionSchema).min(1),
  industries: z.array(industrySchema),
  detector: detectorSchema,
  severity: z.enum(SEVERITIES),
  weight: z.int().min(1).max(100),
  tier_key: tierKeySchema,
  citation: z.string().min(1).max(500),
  penalty_usd: z.number().min(0).finite(),
  statute_codes: z.array(z.string().min(1).max(100)).nullable(),
  title: z.string().min(1).max(200),
  plain_english: z.string().min(1).max(2000),
  category: z.string().min(1).max(60).regex(/^[a-z0-9_]+$/),
  remediation_title: z.string().min(1).max(200),
  remediation: z.string().min(1).max(2000),
});

/** A rulebook import document. */
export const rulebookSchema = z.strictObject({
  version: z.int().min(1),
  rules: z.array(ruleSchema).min(1),
});

export type Surface = z.infer<typeof surfaceSchema>;
export type Jurisdiction = z.infer<typeof jurisdictionSchema>;
export type Industry = z.infer<typeof industrySchema>;
export type TierKey = z.infer<typeof tierKeySchema>;
export type Severity = (typeof SEVERITIES)[number];
export type Matcher = z.infer<typeof matcherSchema>;
export type Detector = z.infer<typeof detectorSchema>;
export type Rule = z.infer<typeof ruleSchema>;
export type Rulebook = z.infer<typeof rulebookSchema>;
