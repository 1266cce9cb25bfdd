/** Time and size limits of the scanner. */
export interface FetchLimits {
  /** One TCP connection attempt. */
  connectTimeoutMs: number;
  /** One HTTP request (one redirect hop): resolution, connection, TLS, head and body. */
  requestTimeoutMs: number;
  /** A whole scan: every robots.txt, page and redirect it fetches. */
  scanBudgetMs: number;
  /** Page body kept, after decoding gzip/deflate; reading stops past it (truncation). */
  maxPageBytes: number;
  /** robots.txt body kept (RFC 9309 asks parsers to read at least 500 KiB). */
  maxRobotsBytes: number;
  /** Status line and headers of one response. */
  maxHeaderBytes: number;
  /** Redirects followed per fetch; one more is an error. */
  maxRedirects: number;
}

/** The limits in force unless a test or deployment overrides them. */
export const DEFAULT_LIMITS: Readonly<FetchLimits> = {
  connectTimeoutMs: 5_000,
  requestTimeoutMs: 10_000,
  scanBudgetMs: 25_000,
  maxPageBytes: 2 * 1024 * 1024,
  maxRobotsBytes: 500 * 1024,
  maxHeaderBytes: 32 * 1024,
  maxRedirects: 5,
};
