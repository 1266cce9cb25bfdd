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
import {
  conceptNameSchema,
  conceptSchema,
  type DetectorV2,
  detectorV2Schema,
  type Expression,
  expressionSchema,
} from "./detector_schema.ts";

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

/** The format-1 detector: some `any`, every `all`, no `none`. */
export const detectorSchema = z.strictObject({
  any: z.array(matcherSchema).min(1).max(200),
  all: z.array(matcherSchema).max(20).optional(),
  none: z.array(matcherSchema).max(200).optional(),
});

const ruleKeySchema = z.string().min(1).max(100).regex(/^[a-z0-9_]+$/);
const categorySchema = z.string().min(1).max(60).regex(/^[a-z0-9_]+$/);
const statuteCodesSchema = z.array(z.string().min(1).max(100)).nullable();

/** What a rule says to people, in both formats: its finding and its fix. */
const ruleTextFields = {
  title: z.string().min(1).max(200),
  plain_english: z.string().min(1).max(2000),
  category: categorySchema,
  remediation_title: z.string().min(1).max(200),
  remediation: z.string().min(1).max(2000),
};

/** One rule of a format-1 rulebook. */
export const ruleSchema = z.strictObject({
  rule_key: ruleKeySchema,
  applies_to: z.array(surfaceSchema).min(1),
  jurisdictions: z.array(jurisdictionSchema).min(1),
  industries: z.array(industrySchema),
  detector: detectorSchema,
  severity: z.enum(SEVERITIES),
  weight: z.int().min(1).max(100),
  tier_key: tierKeySchema,
  citation: z.string().min(1).max(500),
  penalty_usd: z.number().min(0).finite(),
  statute_codes: statuteCodesSchema,
  ...ruleTextFields,
});

/** A format-1 rulebook import document. */
export const rulebookSchema = z.strictObject({
  version: z.int().min(1),
  rules: z.array(ruleSchema).min(1),
});

/** A statute id: upper case, digits and hyphens (`CA-BOT`, `ALL-AI-IDENTITY`). */
export const statuteIdSchema = z.string().regex(/^[A-Z][A-Z0-9-]{1,40}$/);

/**
 * A statute of a format-2 rulebook: what rules cite. Its penalty is the
 * statutory maximum per violation and `penalty_basis` says where that amount
 * comes from, so every penalty a verdict shows is traceable to a citation.
 * A `backstop` is a general consumer-protection law: its rules give way to a
 * rule of a specific statute that triggers on the same concern.
 */
export const statuteSchema = z.strictObject({
  id: statuteIdSchema,
  jurisdiction: jurisdictionSchema,
  citation: z.string().min(1).max(500),
  /** First day in force (ISO date); rules of a statute not yet in force are not applicable. */
  effective: z.iso.date(),
  penalty_usd: z.number().min(0).finite(),
  penalty_basis: z.string().min(1).max(800),
  tier_key: tierKeySchema,
  backstop: z.boolean().optional(),
});

/**
 * One rule of a format-2 rulebook. `tier_key`, `citation` and `penalty_usd`
 * come from its first statute and may be omitted; when given they must agree.
 */
export const ruleV2Schema = z.strictObject({
  rule_key: ruleKeySchema,
  applies_to: z.array(surfaceSchema).min(1),
  jurisdictions: z.array(jurisdictionSchema).min(1),
  industries: z.array(industrySchema),
  detector: detectorV2Schema,
  severity: z.enum(SEVERITIES),
  weight: z.int().min(1).max(100),
  statute_ids: z.array(statuteIdSchema).min(1).max(12),
  /** What the rule guards against; a backstop rule gives way to a triggered rule of the same concern. */
  concern: z.string().regex(/^[a-z][a-z0-9_]{1,40}$/),
  tier_key: tierKeySchema.optional(),
  citation: z.string().min(1).max(500).optional(),
  penalty_usd: z.number().min(0).finite().optional(),
  statute_codes: statuteCodesSchema,
  ...ruleTextFields,
});

/** A format-2 rulebook import document. */
export const rulebookV2Schema = z.strictObject({
  version: z.int().min(1),
  format: z.literal(2),
  statutes: z.array(statuteSchema).min(1).max(200),
  concepts: z.record(conceptNameSchema, conceptSchema),
  /** Named expressions rules share through `{ "use": name }`; they may use each other, never in a cycle. */
  definitions: z.record(conceptNameSchema, expressionSchema).optional(),
  rules: z.array(ruleV2Schema).min(1),
});

export type Surface = z.infer<typeof surfaceSchema>;
export type Jurisdiction = z.infer<typeof jurisdictionSchema>;
export type Industry = z.infer<typeof industrySchema>;
export type TierKey = z.infer<typeof tierKeySchema>;
export type Severity = (typeof SEVERITIES)[number];
export type Matcher = z.infer<typeof matcherSchema>;
export type Detector = z.infer<typeof detectorSchema>;
export type RuleV1 = z.infer<typeof ruleSchema>;
export type Statute = z.infer<typeof statuteSchema>;
export type RuleV2Document = z.infer<typeof ruleV2Schema>;
export type RulebookV2Document = z.infer<typeof rulebookV2Schema>;

/**
 * A rule as the engine uses it, of either format: format-2 rules carry their
 * statute ids and concern, and their citation, tier and penalty resolved from
 * their first statute.
 */
export type Rule = Omit<RuleV1, "detector"> & {
  detector: Detector | DetectorV2;
  statute_ids?: string[];
  concern?: string;
};

/** A validated rulebook of either format (format 1 has no statutes or concepts). */
export interface Rulebook {
  version: number;
  format: 1 | 2;
  statutes: Statute[];
  concepts: Record<string, z.infer<typeof conceptSchema>>;
  definitions: Record<string, Expression>;
  rules: Rule[];
}
