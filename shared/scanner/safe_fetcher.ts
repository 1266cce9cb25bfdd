import type { AllowedTarget } from "./allowed_targets.ts";
import { DEFAULT_LIMITS, type FetchLimits } from "./fetch_limits.ts";
import { type Connector, systemConnector } from "./pinned_connection.ts";
import { type Resolver, systemResolver } from "./resolver.ts";
import { productToken } from "./robots_rules.ts";
import { ScanSession, type ScanSessionConfig } from "./scan_session.ts";

/**
 * The User-Agent the scanner sends. Its product token, `ComplianceAuditBot`,
 * is the name robots.txt groups are matched against.
 */
export const DEFAULT_USER_AGENT = "ComplianceAuditBot/1.0 (website compliance scan)";

/** Ports a target may use unless configured otherwise. */
export const DEFAULT_ALLOWED_PORTS: readonly number[] = [80, 443];

/** Options of {@linkcode createSafeFetcher}; every one has a production default. */
export interface SafeFetcherOptions {
  /** Host name to addresses; default `Deno.resolveDns` (A and AAAA). */
  resolve?: Resolver;
  /** IP address to TCP connection; default `Deno.connect`. */
  connect?: Connector;
  /** Extra PEM roots for TLS verification (tests); the system roots stay trusted. */
  caCerts?: string[];
  /** Parsed `SCAN_ALLOWED_TARGETS` (see parseAllowedTargets); default none. */
  allowedTargets?: readonly AllowedTarget[];
  /** Ports a target may use; default 80 and 443. */
  allowedPorts?: readonly number[];
  /** The User-Agent header; its product token selects the robots.txt group. */
  userAgent?: string;
  limits?: Partial<FetchLimits>;
}

/** Options of {@linkcode SafeFetcher.startScan}. */
export interface StartScanOptions {
  /** The scan's time budget; default `limits.scanBudgetMs`. */
  budgetMs?: number;
  /** Ends the scan early (e.g. the caller went away). */
  signal?: AbortSignal;
}

/** Fetches public web pages for scans, and nothing else. */
export interface SafeFetcher {
  /**
   * Starts a scan: one time budget and one robots.txt cache shared by every
   * fetch made through the returned session. Close it (or `using` it) when
   * the scan ends.
   */
  startScan(options?: StartScanOptions): ScanSession;
}

/**
 * Builds the scanner's fetching layer.
 *
 * @example
 * ```ts
 * const fetcher = createSafeFetcher({ allowedTargets: parseAllowedTargets(config.SCAN_ALLOWED_TARGETS) });
 * using scan = fetcher.startScan();
 * const page = await scan.fetchPage(body.target_url); // throws ScanError: 400, 403, 415, 502, 500
 * const robots = await scan.robots(page.url);          // cached: no second fetch
 * robots.isAllowed(new URL("/pricing", page.url));
 * ```
 *
 * @throws {TypeError} for a User-Agent with characters outside printable
 *   ASCII, a port outside 1-65535 or a limit that is not a non-negative integer.
 */
export function createSafeFetcher(options: SafeFetcherOptions = {}): SafeFetcher {
  const userAgent = options.userAgent ?? DEFAULT_USER_AGENT;
  if (!/^[\x20-\x7e]+$/.test(userAgent)) {
    throw new TypeError("userAgent must be printable ASCII");
  }
  const allowedPorts = [...(options.allowedPorts ?? DEFAULT_ALLOWED_PORTS)];
  if (!allowedPorts.every((port) => Number.isInteger(port) && port >= 1 && port <= 65535)) {
    throw new TypeError("allowedPorts must be integers in 1-65535");
  }
  const limits = { ...DEFAULT_LIMITS, ...options.limits };
  for (const [name, value] of Object.entries(limits)) {
    if (!Number.isInteger(value) || value < 0) {
      throw new TypeError(`limits.${name} must be a non-negative integer`);
    }
  }
  const config: ScanSessionConfig = {
    policy: {
      resolve: options.resolve ?? systemResolver,
      allowedTargets: options.allowedTargets ?? [],
      allowedPorts,
    },
    connect: options.connect ?? systemConnector,
    caCerts: options.caCerts,
    userAgent,
    productToken: productToken(userAgent),
    limits,
  };
  return {
    startScan: (scan = {}) =>
      new ScanSession(config, scan.budgetMs ?? config.limits.scanBudgetMs, scan.signal),
  };
}
