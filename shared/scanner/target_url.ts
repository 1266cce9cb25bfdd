import { ScanError } from "./scan_error.ts";

/** The contract's pattern for `target_url` (interface.md 2.3). */
export const TARGET_URL_PATTERN = /^https?:\/\/[^/\s]+/;

/** Longest accepted `target_url`, in characters. */
export const MAX_TARGET_URL_LENGTH = 2048;

/** A URL the scanner may fetch, as parsed and as written. */
export interface ScanTarget {
  /** The WHATWG-parsed URL: host canonical (IPv4 in dotted decimal, IPv6 compressed), no credentials. */
  url: URL;
  /**
   * True when the URL's host was written exactly in its canonical form (case
   * aside), e.g. `127.0.0.1` but not `2130706433`, `0x7f.1` or `127.1`. The
   * allow-list only ever matches such hosts.
   */
  hostAsWritten: boolean;
}

/**
 * Parses the caller's `target_url`: the contract pattern, printable ASCII
 * only (a space or newline anywhere is refused rather than silently stripped
 * as WHATWG parsing would), a valid URL, http or https, no credentials.
 *
 * @throws {ScanError} `bad_request` (400) naming what is wrong, never echoing the URL.
 */
export function parseTargetUrl(input: string): ScanTarget {
  if (input.length > MAX_TARGET_URL_LENGTH) {
    throw badRequest(`target_url must be at most ${MAX_TARGET_URL_LENGTH} characters`);
  }
  if (/[^\x21-\x7e]/.test(input)) {
    throw badRequest(
      "target_url must not contain spaces, control characters or non-ASCII characters",
    );
  }
  if (!TARGET_URL_PATTERN.test(input) || !URL.canParse(input)) {
    throw badRequest("target_url must be an http or https URL");
  }
  const url = new URL(input);
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw badRequest("target_url must be an http or https URL");
  }
  if (hasCredentials(input, url)) {
    throw badRequest("target_url must not contain credentials");
  }
  return { url, hostAsWritten: writtenHost(input) === url.hostname };
}

/**
 * Resolves a redirect's `Location` against the URL that answered it and
 * checks the scheme and credentials again. A relative reference keeps the
 * host, so it keeps the answering URL's `hostAsWritten`.
 *
 * @throws {ScanError} `policy_refused` (403) for another scheme or credentials;
 *   `unreachable` (502) when the Location is not a URL.
 */
export function redirectTarget(location: string, from: ScanTarget): ScanTarget {
  if (location.length > MAX_TARGET_URL_LENGTH || !URL.canParse(location, from.url)) {
    throw new ScanError(
      "unreachable",
      "bad_redirect",
      "The target answered with a redirect that is not a valid URL",
    );
  }
  const url = new URL(location, from.url);
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new ScanError(
      "policy_refused",
      "scheme",
      "The target redirects to a scheme other than http or https",
    );
  }
  if (hasCredentials(location, url)) {
    throw new ScanError(
      "policy_refused",
      "credentials",
      "The target redirects to a URL with credentials",
    );
  }
  const written = writtenHost(location);
  const hostAsWritten = written === undefined
    ? from.hostAsWritten && url.hostname === from.url.hostname
    : written === url.hostname;
  return { url, hostAsWritten };
}

/**
 * A page's address as the scanner reports it outside itself (evidence
 * `source_url`, the advisory model's input): origin and path, never the
 * query or fragment. A query can carry what a redirect added (a session id,
 * a token), which must not reach the caller's report or a third party.
 *
 * @example
 * ```ts
 * pageAddress("https://shop.test/account?sid=abc#top"); // "https://shop.test/account"
 * ```
 */
export function pageAddress(url: string): string {
  const parsed = new URL(url);
  return `${parsed.origin}${parsed.pathname}`;
}

function badRequest(message: string): ScanError {
  return new ScanError("bad_request", "url", message);
}

/**
 * The authority as written after `scheme://` or `//` (backslashes count as
 * slashes, tabs and newlines are ignored, as WHATWG parsing does for http),
 * up to the path; undefined for a reference without one.
 */
function writtenAuthority(raw: string): string | undefined {
  const text = raw.trim().replace(/[\t\n\r]/g, "");
  return /^(?:[a-z][a-z0-9+.-]*:)?[\\/]{2}([^/?#\\]*)/i.exec(text)?.[1];
}

/** The host as written (lowercased, port dropped, IPv6 with brackets); undefined for a relative reference. */
function writtenHost(raw: string): string | undefined {
  const authority = writtenAuthority(raw);
  if (authority === undefined) return undefined;
  const host = /^(\[[^\]]*\]|[^:]*)/.exec(authority.slice(authority.lastIndexOf("@") + 1))?.[1];
  return host?.toLowerCase();
}

/** Credentials, even empty ones (`http://@host/`), are refused. */
function hasCredentials(raw: string, url: URL): boolean {
  return url.username !== "" || url.password !== "" ||
    (writtenAuthority(raw)?.includes("@") ?? false);
}
