import { z } from "zod";
import { HTTP_URL_PATTERN, INDUSTRIES, isHttpUri, JURISDICTIONS, VERDICTS } from "./vocabulary.ts";

/** Longest content accepted, in characters (Unicode code points). */
export const MAX_CONTENT_CHARS = 30_000;

/** Contract 2.1: the complianceAudit request. Unknown fields are rejected. */
export const AuditRequest = z.strictObject({
  content: z.string()
    .refine((s) => s.length > 0, "content must not be empty")
    .refine(
      (s) => s.length <= MAX_CONTENT_CHARS || codePointLength(s) <= MAX_CONTENT_CHARS,
      `content must be at most ${MAX_CONTENT_CHARS} characters`,
    ),
  jurisdiction: z.enum(JURISDICTIONS),
  industry: z.enum(INDUSTRIES).optional(),
  asset_url: z.string().max(2048).regex(HTTP_URL_PATTERN, "asset_url must be an http(s) URL")
    .refine(
      isHttpUri,
      "asset_url must be a valid URI: no spaces, line breaks or unencoded special characters",
    ).optional(),
});
export type AuditRequest = z.infer<typeof AuditRequest>;

/**
 * The asset_url kept with an audit: the URL without its user name, password,
 * query and fragment, which can carry credentials (`https://user:pass@host/`,
 * a signed link's token). Scheme, host, port and path are kept as evidence
 * context. The contract accepts any http(s) URI, so such a URL is not refused:
 * its secret parts are just never stored.
 *
 * @example
 * ```ts
 * assetUrlForStorage("https://u:p@cdn.example/ad.mp4?sig=abc#t=3"); // "https://cdn.example/ad.mp4"
 * ```
 */
export function assetUrlForStorage(assetUrl: string): string {
  const url = new URL(assetUrl);
  url.username = "";
  url.password = "";
  url.search = "";
  url.hash = "";
  return url.href;
}

/** Contract 2.2: a statute involved in the verdict. */
export const Statute = z.strictObject({
  tier_key: z.string(),
  citation: z.string(),
  penalty_usd: z.number().min(0),
});

/** Contract 2.2: one remediation step. */
export const Remediation = z.strictObject({
  rule_key: z.string(),
  title: z.string(),
  recommendation: z.string(),
});

/** Contract 2.2: the complianceAudit response. */
export const AuditResponse = z.strictObject({
  verdict: z.enum(VERDICTS),
  risk_score: z.number().min(0).max(100),
  statutes: z.array(Statute),
  penalty_exposure_usd: z.number().min(0),
  remediation: z.array(Remediation),
  jurisdiction: z.string(),
  industry: z.string().optional(),
  usage: z.strictObject({
    count: z.number().int(),
    monthly_limit: z.number().int().nullable(),
  }),
});
export type AuditResponse = z.infer<typeof AuditResponse>;

/** Contract 7.1: the machine-readable codes of complianceAudit's errors. */
export const AUDIT_ERROR_CODES = [
  "invalid_request",
  "invalid_api_key",
  "account_inactive",
  "rate_limited",
  "quota_exceeded",
  "service_unavailable",
] as const;
export type AuditErrorCode = typeof AUDIT_ERROR_CODES[number];

/** Contract 7.1: the complianceAudit error envelope. */
export const AuditErrorEnvelope = z.strictObject({
  error: z.strictObject({ code: z.enum(AUDIT_ERROR_CODES), message: z.string() }),
});
export type AuditErrorEnvelope = z.infer<typeof AuditErrorEnvelope>;

/** A high surrogate: the first half of a pair, or a lone one. */
const HIGH_SURROGATE = /[\ud800-\udbff]/;

/**
 * Length in Unicode code points: what the contract calls characters. A
 * surrogate pair is one code point and a lone surrogate one more, as a
 * string's iterator counts them. Every audit stores it: text without a high
 * surrogate (a pattern test, which V8 answers at once for a one-byte string)
 * has as many code points as code units, and a loop over char codes counts
 * the rest several times faster than the iterator.
 */
export function codePointLength(s: string): number {
  if (!HIGH_SURROGATE.test(s)) return s.length;
  let n = s.length;
  const last = s.length - 1;
  for (let i = 0; i < last; i++) {
    const unit = s.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = s.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}
