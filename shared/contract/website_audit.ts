import { z } from "zod";
import { GRADES } from "./grade.ts";
import { HTTP_URL_PATTERN, isHttpUri } from "./vocabulary.ts";

/** Longest `target_url`, in characters. */
export const MAX_TARGET_URL_CHARS = 2048;

/**
 * Contract 2.3: the runWebsiteAudit request. Unknown fields are rejected. The
 * scanner's own URL checks (shared/scanner/target_url.ts) run after this one.
 */
export const WebsiteAuditRequest = z.strictObject({
  target_url: z.string()
    .max(MAX_TARGET_URL_CHARS, `target_url must be at most ${MAX_TARGET_URL_CHARS} characters`)
    .regex(HTTP_URL_PATTERN, "target_url must be an http or https URL")
    .refine(
      isHttpUri,
      "target_url must be a valid URI: no spaces, line breaks or unencoded special characters",
    ),
});
export type WebsiteAuditRequest = z.infer<typeof WebsiteAuditRequest>;

/** Contract 2.4: one piece of evidence, from the page named by `source_url`. */
export const ScanEvidence = z.strictObject({
  type: z.string(),
  excerpt: z.string(),
  source_url: z.string(),
});
export type ScanEvidence = z.infer<typeof ScanEvidence>;

/** Contract 2.4: a finding of a rule of the pinned rulebook. */
export const ScanFinding = z.strictObject({
  rule_key: z.string().optional(),
  title: z.string(),
  plain_english: z.string(),
  category: z.string(),
  statute_ref: z.string().nullable().optional(),
  statute_codes: z.array(z.string()).nullable().optional(),
  evidence: z.array(ScanEvidence),
});
export type ScanFinding = z.infer<typeof ScanFinding>;

/** Contract 2.4: model-written nuance, never statutory and never scored. */
export const AdvisoryFinding = z.strictObject({
  source: z.literal("llm_nuance"),
  severity: z.enum(["warning", "passed"]),
  title: z.string(),
  plain_english: z.string(),
  category: z.string(),
  statute_ref: z.null(),
  statute_codes: z.null(),
  evidence: z.array(ScanEvidence),
});
export type AdvisoryFinding = z.infer<typeof AdvisoryFinding>;

/** Contract 2.4: what the scan did. */
export const ScanMeta = z.strictObject({
  fetched: z.boolean(),
  status_code: z.number().int(),
  robots_respected: z.boolean(),
  scan_duration_ms: z.number(),
  engine_version: z.string(),
  rulebook_source: z.literal("database"),
});
export type ScanMeta = z.infer<typeof ScanMeta>;

/** Contract 2.4: the runWebsiteAudit response; exactly these fields. */
export const WebsiteAuditResponse = z.strictObject({
  score: z.number().min(0).max(100),
  grade: z.enum(GRADES),
  critical: z.array(ScanFinding),
  warnings: z.array(ScanFinding),
  passed: z.array(ScanFinding),
  advisory: z.array(AdvisoryFinding),
  scan_meta: ScanMeta,
});
export type WebsiteAuditResponse = z.infer<typeof WebsiteAuditResponse>;

/**
 * Contract 7.3: the runWebsiteAudit error envelope. A scan belongs to no
 * account and no plan, so this service never sends `quota`.
 */
export const WebsiteAuditErrorEnvelope = z.strictObject({
  error: z.string(),
  quota: z.strictObject({
    plan: z.string(),
    used: z.number().int(),
    limit: z.number().int(),
  }).optional(),
});
export type WebsiteAuditErrorEnvelope = z.infer<typeof WebsiteAuditErrorEnvelope>;
