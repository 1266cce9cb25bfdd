import { Ratelimit } from "@upstash/ratelimit";
import { Redis } from "@upstash/redis";
import { perPolicy } from "./per_policy.ts";
import { assertLimitArguments } from "./limit_arguments.ts";
import { LimiterUnavailableError } from "./limiter_unavailable_error.ts";
import type { LimitResult, RateLimiter } from "./rate_limiter.ts";

/** Options of the Upstash adapter. */
export interface UpstashLimiterOptions {
  /** Upstash REST URL (`UPSTASH_REDIS_REST_URL`). */
  url: string;
  /** Upstash REST token (`UPSTASH_REDIS_REST_TOKEN`). */
  token: string;
  /** Prefix of every key this adapter writes; default `"ratelimit"`. */
  prefix?: string;
  /**
   * Deadline in milliseconds for one `limit` call, Redis round trips
   * included. Past it, `limit` throws (fail closed). Default 3000.
   */
  timeoutMs?: number;
}

const DEFAULT_PREFIX = "ratelimit";
const DEFAULT_TIMEOUT_MS = 3000;

/**
 * RateLimiter over Upstash Redis: a sliding window of `max` requests per
 * `windowSeconds`, shared by every isolate that uses the same database.
 *
 * Fail closed, by construction:
 * - `@upstash/ratelimit` races Redis against `timeout` (default 5000 ms) and,
 *   when the timer wins, resolves `{ success: true, reason: "timeout" }`:
 *   the request is waved through. `timeout: 0` removes that race (the source
 *   only adds it when `timeout > 0`); this adapter enforces its own deadline
 *   instead, which throws.
 * - `@upstash/redis` retries a failed fetch 5 times with exponential backoff
 *   by default (about 12 s on a dead endpoint); retries are off here.
 * - Its `signal` option given as an AbortSignal turns an abort into a fake
 *   `{ result: "Aborted" }` answer; given as a function, an abort throws. The
 *   function form is used.
 * - The ephemeral in-isolate block cache is off: it keeps refusing an
 *   identifier until the end of the fixed window even when the sliding window
 *   in Redis would already admit it, and one isolate's cache disagrees with
 *   the others'. Every decision is Redis's.
 * - Analytics, deny-list protection, telemetry and auto-pipelining are off.
 */
export function createUpstashLimiter(options: UpstashLimiterOptions): RateLimiter {
  const prefix = options.prefix ?? DEFAULT_PREFIX;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  if (!options.url) throw new TypeError("Upstash limiter needs a REST URL");
  if (!options.token) throw new TypeError("Upstash limiter needs a REST token");
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) {
    throw new RangeError(`Upstash limiter timeoutMs must be positive, got ${timeoutMs}`);
  }

  const redis = new Redis({
    url: options.url,
    token: options.token,
    retry: { retries: 0, backoff: () => 0 },
    signal: () => AbortSignal.timeout(timeoutMs),
    enableTelemetry: false,
    enableAutoPipelining: false,
    latencyLogging: false,
  });

  // One Ratelimit per (max, windowSeconds), created on first use. The pair is
  // part of the Redis key, so two policies never share a counter.
  const limiterFor = perPolicy((max, windowSeconds) =>
    new Ratelimit({
      redis,
      limiter: Ratelimit.slidingWindow(max, `${windowSeconds} s`),
      prefix: `${prefix}:${max}:${windowSeconds}`,
      timeout: 0,
      ephemeralCache: false,
      analytics: false,
      enableProtection: false,
      dynamicLimits: false,
    })
  );

  return {
    async limit(key: string, max: number, windowSeconds: number): Promise<LimitResult> {
      assertLimitArguments(key, max, windowSeconds);
      const limiter = limiterFor(max, windowSeconds);
      let timer: ReturnType<typeof setTimeout> | undefined;
      const deadline = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () =>
            reject(new LimiterUnavailableError(`Upstash did not answer within ${timeoutMs} ms`)),
          timeoutMs,
        );
      });
      let response: Awaited<ReturnType<Ratelimit["limit"]>>;
      try {
        response = await Promise.race([limiter.limit(key), deadline]);
      } catch (error) {
        if (error instanceof LimiterUnavailableError) throw error;
        throw new LimiterUnavailableError("Upstash rate limit check failed", { cause: error });
      } finally {
        clearTimeout(timer);
      }
      // Anything but a decision that Redis made is refused: a "timeout" reason
      // (a waved-through request) or a malformed answer throws.
      if (
        response.reason !== undefined ||
        typeof response.success !== "boolean" ||
        !Number.isFinite(response.remaining) ||
        !Number.isFinite(response.reset) ||
        response.reset <= 0
      ) {
        throw new LimiterUnavailableError(
          `Upstash rate limit gave no usable decision (reason: ${response.reason ?? "none"})`,
        );
      }
      return {
        success: response.success,
        remaining: Math.max(0, Math.trunc(response.remaining)),
        reset: response.reset,
      };
    },
  };
}
