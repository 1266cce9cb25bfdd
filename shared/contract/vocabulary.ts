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
