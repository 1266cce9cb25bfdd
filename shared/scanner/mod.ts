/**
 * The website scanner's fetching layer: URL and address policy, DNS pinning,
 * redirects, robots rules, time and size limits, and the errors a handler
 * maps to contract statuses. docs/scanner.md describes the policy.
 *
 * @example
 * ```ts
 * import { createSafeFetcher, parseAllowedTargets, ScanError } from "@shared/scanner/mod.ts";
 *
 * const fetcher = createSafeFetcher({ allowedTargets: parseAllowedTargets(config.SCAN_ALLOWED_TARGETS) });
 * using scan = fetcher.startScan();
 * try {
 *   const page = await scan.fetchPage(targetUrl);
 *   // page.body, page.status, page.url, page.truncated, page.durationMs ...
 * } catch (error) {
 *   if (error instanceof ScanError) return respond(error.status, error.message);
 *   throw error;
 * }
 * ```
 *
 * @module
 */
export {
  type AddressRefusal,
  type AddressVerdict,
  canonicalAddress,
  classifyAddress,
} from "./address_policy.ts";
export { type AllowedTarget, isAllowListed, parseAllowedTargets } from "./allowed_targets.ts";
export { type BodyText, decodeBody } from "./body_text.ts";
export { Deadline, type DeadlineOptions } from "./deadline.ts";
export { DEFAULT_LIMITS, type FetchLimits } from "./fetch_limits.ts";
export { type Connector, systemConnector } from "./pinned_connection.ts";
export { type Resolver, systemResolver } from "./resolver.ts";
export { productToken, type RobotsRules, type RobotsSource } from "./robots_rules.ts";
export {
  createSafeFetcher,
  DEFAULT_ALLOWED_PORTS,
  DEFAULT_USER_AGENT,
  type SafeFetcher,
  type SafeFetcherOptions,
  type StartScanOptions,
} from "./safe_fetcher.ts";
export { asScanError, ScanError, type ScanErrorKind } from "./scan_error.ts";
export {
  type FetchedPage,
  type FetchHop,
  type FetchPageOptions,
  HTML_CONTENT_TYPES,
  ScanSession,
} from "./scan_session.ts";
export { pageAddress, parseTargetUrl, type ScanTarget, TARGET_URL_PATTERN } from "./target_url.ts";
