/** Jurisdictions of the contract; ALL means every one. */
export const JURISDICTIONS = [
  "TN",
  "CA",
  "TX",
  "CO",
  "NY",
  "FL",
  "MA",
  "AZ",
  "UT",
  "OR",
  "ALL",
] as const;
export type Jurisdiction = typeof JURISDICTIONS[number];

/** Industries of the contract. */
export const INDUSTRIES = ["healthcare", "fintech", "media", "hr", "retail", "legaltech"] as const;
export type Industry = typeof INDUSTRIES[number];

/** Plans of the contract. */
export const PLANS = ["starter", "pro", "enterprise"] as const;
export type Plan = typeof PLANS[number];

/** Account statuses; only `active` and `trialing` may use the API-key operations. */
export const ACCOUNT_STATUSES = ["active", "trialing", "past_due", "canceled", "paused"] as const;
export type AccountStatus = typeof ACCOUNT_STATUSES[number];

/** Verdicts of an audit. */
export const VERDICTS = ["GREEN", "YELLOW", "RED"] as const;
export type Verdict = typeof VERDICTS[number];

/** The pattern every URL field of the contract must match. */
export const HTTP_URL_PATTERN = /^https?:\/\/[^/\s]+/;

/**
 * The characters of an RFC 3986 URI: unreserved, reserved and `%`. A space,
 * a control character (a newline, a tab), `"<>\^`{|}` and any non-ASCII
 * character are not among them: WHATWG parsing strips or encodes those
 * silently, so `URL.canParse` alone would accept them.
 */
const URI_CHARACTERS = /^[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=%]*$/;
/** A `%` not followed by two hex digits. */
const BROKEN_PERCENT_ESCAPE = /%(?![0-9A-Fa-f]{2})/;

/**
 * True when `value` is an absolute http(s) URI: RFC 3986 characters only,
 * well-formed percent escapes, the contract's pattern (`^https?://` and a
 * host) and a URL that parses. Non-ASCII characters must be percent-encoded
 * (a host in its punycode form).
 */
export function isHttpUri(value: string): boolean {
  return URI_CHARACTERS.test(value) && !BROKEN_PERCENT_ESCAPE.test(value) &&
    HTTP_URL_PATTERN.test(value) && URL.canParse(value) &&
    ["http:", "https:"].includes(new URL(value).protocol);
}
