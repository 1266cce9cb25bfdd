import { decodeBody } from "./body_text.ts";
import { Deadline } from "./deadline.ts";
import type { FetchLimits } from "./fetch_limits.ts";
import { exchange } from "./http1_exchange.ts";
import { type Connector, openPinnedConnection } from "./pinned_connection.ts";
import {
  allowAllRobotsRules,
  disallowAllRobotsRules,
  parsedRobotsRules,
  type RobotsRules,
} from "./robots_rules.ts";
import { asScanError, ScanError } from "./scan_error.ts";
import { checkTarget, type TargetPolicy } from "./target_policy.ts";
import { parseTargetUrl, redirectTarget, type ScanTarget } from "./target_url.ts";

/** Media types a page may have. */
export const HTML_CONTENT_TYPES: readonly string[] = ["text/html", "application/xhtml+xml"];

/** What a session needs; built by createSafeFetcher. */
export interface ScanSessionConfig {
  policy: TargetPolicy;
  connect: Connector;
  caCerts?: string[];
  userAgent: string;
  /** The robots.txt group name, e.g. `ComplianceAuditBot`. */
  productToken: string;
  limits: FetchLimits;
}

/** One HTTP request of a fetch: the requested URL or a redirect hop. */
export interface FetchHop {
  url: string;
  status: number;
  durationMs: number;
}

/** A fetched page. */
export interface FetchedPage {
  /** The final URL, after redirects (without fragment). */
  url: string;
  /** The final status code (never 5xx, never a followed redirect). */
  status: number;
  headers: Headers;
  /** The media type, lowercased, without parameters: `text/html` or `application/xhtml+xml`. */
  contentType: string;
  /** The encoding the body was decoded with (WHATWG name). */
  charset: string;
  body: string;
  /** Bytes kept from the body (after gzip/deflate decoding). */
  byteLength: number;
  /** True when the body was longer than the cap and was cut there. */
  truncated: boolean;
  /** Redirects followed (hops.length - 1). */
  redirects: number;
  /** Every request made for this page, in order; robots.txt fetches excluded. */
  hops: FetchHop[];
  /** Wall time of the whole fetch, robots.txt checks included. */
  durationMs: number;
}

/** Options of {@linkcode ScanSession.fetchPage}. */
export interface FetchPageOptions {
  /** Accepted media types; default text/html and application/xhtml+xml. */
  contentTypes?: readonly string[];
  /** Body cap in bytes; default `limits.maxPageBytes`. */
  maxBytes?: number;
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const PAGE_ACCEPT = "text/html,application/xhtml+xml;q=0.9,*/*;q=0.1";
const ROBOTS_ACCEPT = "text/plain,*/*;q=0.1";
/** Failures of robots.txt at the origin's first hop that mean the site itself cannot be reached. */
const ORIGIN_UNREACHABLE = new Set(["dns", "connect", "connect_timeout", "tls"]);
/** Failures that end the scan rather than say anything about robots.txt. */
const SCAN_ENDING = new Set(["scan_budget", "aborted"]);
const NETWORK_ERRORS = [
  Deno.errors.BadResource,
  Deno.errors.BrokenPipe,
  Deno.errors.ConnectionAborted,
  Deno.errors.ConnectionRefused,
  Deno.errors.ConnectionReset,
  Deno.errors.Interrupted,
  Deno.errors.InvalidData,
  Deno.errors.NotConnected,
  Deno.errors.TimedOut,
  Deno.errors.UnexpectedEof,
];

type HopSpec = {
  accept: string;
  maxBytes: number;
  /** Runs before each hop (the robots gate of pages). */
  beforeHop?: (target: ScanTarget) => Promise<void>;
  /** Judges a final response's head before its body is read. */
  checkHead?: (status: number, headers: Headers) => void;
};

type Final = {
  target: ScanTarget;
  status: number;
  headers: Headers;
  bytes: Uint8Array;
  truncated: boolean;
};

/**
 * One scan: a shared time budget and a robots.txt cache per origin. Every
 * request it makes is checked by the target policy, connects only to the
 * addresses that check returned, and is bounded by the request timeout and
 * the budget. Made by {@linkcode SafeFetcher.startScan}.
 */
export class ScanSession implements Disposable {
  /** The scan's budget: its signal fires when the scan is out of time. */
  readonly deadline: Deadline;
  readonly #config: ScanSessionConfig;
  readonly #robots = new Map<string, Promise<RobotsRules>>();

  constructor(config: ScanSessionConfig, budgetMs: number, signal?: AbortSignal) {
    this.#config = config;
    this.deadline = new Deadline(budgetMs, {
      reason: new ScanError("unreachable", "scan_budget", "The scan ran out of time"),
      parent: signal,
    });
  }

  /**
   * Fetches a page: validates `url` as the caller's `target_url`, checks
   * robots rules before every hop (fetching each origin's robots.txt once),
   * follows at most `maxRedirects` redirects, each checked again, and
   * refuses a 5xx or a media type other than HTML before reading the body.
   * A 4xx page is returned, not thrown.
   *
   * @throws {ScanError} 400 `bad_request`, 403 `policy_refused` or
   *   `robots_refused`, 415 `unsupported_content_type`, 502 `unreachable`,
   *   500 `internal`.
   */
  async fetchPage(url: string, options: FetchPageOptions = {}): Promise<FetchedPage> {
    const started = performance.now();
    const accepted = options.contentTypes ?? HTML_CONTENT_TYPES;
    const hops: FetchHop[] = [];
    try {
      const final = await this.#follow(parseTargetUrl(url), hops, {
        accept: PAGE_ACCEPT,
        maxBytes: options.maxBytes ?? this.#config.limits.maxPageBytes,
        beforeHop: (target) => this.#assertRobotsAllow(target),
        checkHead: (status, headers) => {
          if (status >= 500) {
            throw new ScanError(
              "unreachable",
              "server_error",
              "The target answered with a server error",
            );
          }
          if (!accepted.includes(mediaType(headers))) {
            throw new ScanError(
              "unsupported_content_type",
              "content_type",
              "The target's content type is not supported",
            );
          }
        },
      });
      const { text, charset } = decodeBody(final.bytes, final.headers.get("content-type"));
      return {
        url: final.target.url.href,
        status: final.status,
        headers: final.headers,
        contentType: mediaType(final.headers),
        charset,
        body: text,
        byteLength: final.bytes.byteLength,
        truncated: final.truncated,
        redirects: hops.length - 1,
        hops,
        durationMs: performance.now() - started,
      };
    } catch (error) {
      throw asScanError(error);
    }
  }

  /**
   * The robots rules of `url`'s origin, fetched once per scan through the
   * same checks and limits as pages (robots.txt body capped at
   * `maxRobotsBytes`, truncated there).
   *
   * @throws {ScanError} 400 for a malformed URL; 403 when the policy refuses
   *   the origin; 502 when the origin cannot be reached at all (DNS,
   *   connection, TLS) or the scan is out of time.
   */
  robots(url: string): Promise<RobotsRules> {
    try {
      return this.#robotsFor(parseTargetUrl(url));
    } catch (error) {
      return Promise.reject(asScanError(error));
    }
  }

  /** Ends the scan's budget timer. */
  close(): void {
    this.deadline.dispose();
  }

  [Symbol.dispose](): void {
    this.close();
  }

  async #assertRobotsAllow(target: ScanTarget): Promise<void> {
    const rules = await this.#robotsFor(target);
    if (rules.isAllowed(target.url)) return;
    throw new ScanError(
      "robots_refused",
      rules.source === "unavailable" ? "robots_unavailable" : "robots_disallowed",
      rules.source === "unavailable"
        ? "The target's robots.txt could not be read, which disallows scanning"
        : `The target's robots.txt disallows this URL for ${this.#config.productToken}`,
    );
  }

  #robotsFor(target: ScanTarget): Promise<RobotsRules> {
    const origin = target.url.origin;
    const key = `${origin} ${target.hostAsWritten}`;
    let rules = this.#robots.get(key);
    if (rules === undefined) {
      rules = this.#loadRobots({
        url: new URL("/robots.txt", origin),
        hostAsWritten: target.hostAsWritten,
      });
      this.#robots.set(key, rules);
    }
    return rules;
  }

  /** RFC 9309 section 2.3.1: 2xx parsed, 4xx allow all, anything else disallow all. */
  async #loadRobots(target: ScanTarget): Promise<RobotsRules> {
    const origin = target.url.origin;
    const hops: FetchHop[] = [];
    let final: Final;
    try {
      final = await this.#follow(target, hops, {
        accept: ROBOTS_ACCEPT,
        maxBytes: this.#config.limits.maxRobotsBytes,
      });
    } catch (error) {
      const failure = asScanError(error);
      if (failure.kind !== "unreachable" || SCAN_ENDING.has(failure.reason)) throw failure;
      if (hops.length === 0 && ORIGIN_UNREACHABLE.has(failure.reason)) throw failure;
      return disallowAllRobotsRules(origin);
    }
    if (final.status >= 200 && final.status < 300) {
      const text = new TextDecoder().decode(final.bytes);
      return parsedRobotsRules(origin, text, {
        productToken: this.#config.productToken,
        status: final.status,
      });
    }
    if (final.status >= 400 && final.status < 500) return allowAllRobotsRules(origin, final.status);
    return disallowAllRobotsRules(origin, final.status);
  }

  /** Requests `start`, following redirects; each hop is recorded in `hops` as it completes. */
  async #follow(start: ScanTarget, hops: FetchHop[], spec: HopSpec): Promise<Final> {
    let target = withoutFragment(start);
    while (true) {
      await spec.beforeHop?.(target);
      const began = performance.now();
      const outcome = await this.#hop(target, spec);
      hops.push({
        url: target.url.href,
        status: outcome.status,
        durationMs: performance.now() - began,
      });
      if (!("location" in outcome)) return outcome;
      if (hops.length > this.#config.limits.maxRedirects) {
        throw new ScanError(
          "unreachable",
          "too_many_redirects",
          `The target redirected more than ${this.#config.limits.maxRedirects} times`,
        );
      }
      target = withoutFragment(redirectTarget(outcome.location, target));
    }
  }

  /** One request under its own timeout: check, connect to a checked address, exchange. */
  async #hop(
    target: ScanTarget,
    spec: HopSpec,
  ): Promise<Final | { status: number; location: string }> {
    using deadline = new Deadline(this.#config.limits.requestTimeoutMs, {
      reason: new ScanError("unreachable", "timeout", "The target did not respond in time"),
      parent: this.deadline,
    });
    try {
      const checked = await checkTarget(target, this.#config.policy, deadline.signal);
      const conn = await openPinnedConnection({
        addresses: checked.addresses,
        port: checked.port,
        tlsHostname: target.url.protocol === "https:"
          ? target.url.hostname.replace(/^\[(.*)\]$/, "$1").replace(/\.$/, "")
          : undefined,
        caCerts: this.#config.caCerts,
        connect: this.#config.connect,
        connectTimeoutMs: this.#config.limits.connectTimeoutMs,
        deadline,
      });
      try {
        const response = await exchange(conn, {
          url: target.url,
          userAgent: this.#config.userAgent,
          accept: spec.accept,
        }, { maxHeaderBytes: this.#config.limits.maxHeaderBytes });
        const location = response.headers.get("location");
        if (REDIRECT_STATUSES.has(response.status) && location !== null) {
          return { status: response.status, location };
        }
        spec.checkHead?.(response.status, response.headers);
        const body = await response.readBody(spec.maxBytes);
        return { target, status: response.status, headers: response.headers, ...body };
      } finally {
        conn.close();
      }
    } catch (error) {
      deadline.throwIfExpired();
      if (NETWORK_ERRORS.some((type) => error instanceof type)) {
        throw new ScanError("unreachable", "connection", "The connection to the target failed", {
          cause: error,
        });
      }
      throw error;
    }
  }
}

/** The media type of a response, lowercased, without parameters; "" when absent. */
function mediaType(headers: Headers): string {
  return (headers.get("content-type") ?? "").split(";")[0].trim().toLowerCase();
}

function withoutFragment(target: ScanTarget): ScanTarget {
  if (target.url.hash === "") return target;
  const url = new URL(target.url);
  url.hash = "";
  return { url, hostAsWritten: target.hostAsWritten };
}
