import robotsParserModule from "robots-parser";

/** The part of robots-parser's Robot the scanner uses. */
interface ParsedRobots {
  isAllowed(url: string, ua?: string): boolean | undefined;
}

// robots-parser's index.d.ts declares an ambient module beside its default
// export, which hides the function's call signature from the type checker.
const robotsParser = robotsParserModule as unknown as (url: string, text: string) => ParsedRobots;

/**
 * Where a site's robots rules came from (RFC 9309 section 2.3.1):
 * - `file`: robots.txt answered 2xx and was parsed (at most its first 500 KiB);
 * - `none`: it answered 4xx (404 included), so every path is allowed;
 * - `unavailable`: it answered 5xx, timed out, broke off or redirected more
 *   than five times, so no path is allowed (complete disallow).
 */
export type RobotsSource = "file" | "none" | "unavailable";

/** The robots rules of one origin, for one product token. */
export interface RobotsRules {
  /** The origin they govern, e.g. `https://example.com`. */
  readonly origin: string;
  readonly source: RobotsSource;
  /** The status robots.txt answered with; undefined when it never answered. */
  readonly status?: number;
  /**
   * Whether the scanner may fetch `url`. Checks any number of URLs of this
   * origin without fetching robots.txt again.
   *
   * @throws {RangeError} for a URL of another origin.
   */
  isAllowed(url: string | URL): boolean;
}

/**
 * The robots.txt product token of a User-Agent: its first product's name,
 * e.g. `ComplianceAuditBot` for `ComplianceAuditBot/1.0 (+https://...)`.
 */
export function productToken(userAgent: string): string {
  return /^[A-Za-z_-]+/.exec(userAgent.trim())?.[0] ?? userAgent.trim();
}

/** Rules parsed from a robots.txt body (robots-parser: RFC 9309 matching). */
export function parsedRobotsRules(
  origin: string,
  text: string,
  options: { productToken: string; status: number },
): RobotsRules {
  const robots = robotsParser(`${origin}/robots.txt`, text);
  return rules(
    origin,
    "file",
    options.status,
    (url) => robots.isAllowed(url.href, options.productToken) !== false,
  );
}

/** Rules that allow every path (robots.txt answered 4xx). */
export function allowAllRobotsRules(origin: string, status: number): RobotsRules {
  return rules(origin, "none", status, () => true);
}

/** Rules that allow no path (robots.txt unavailable). */
export function disallowAllRobotsRules(origin: string, status?: number): RobotsRules {
  return rules(origin, "unavailable", status, () => false);
}

function rules(
  origin: string,
  source: RobotsSource,
  status: number | undefined,
  allows: (url: URL) => boolean,
): RobotsRules {
  return {
    origin,
    source,
    status,
    isAllowed(input) {
      const url = new URL(input);
      if (url.origin !== origin) {
        throw new RangeError("The URL is not on the origin of these robots rules");
      }
      return allows(url);
    },
  };
}
