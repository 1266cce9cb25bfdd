import { Ratelimit, type RatelimitConfig } from "@upstash/ratelimit";
import { Redis } from "@upstash/redis";
import { perPolicy } from "./per_policy.ts";
import { assertLimitArguments } from "./limit_arguments.ts";
import { LimiterUnavailableError } from "./limiter_unavailable_error.ts";
import { SLIDING_LOG_SCRIPT } from "./sliding_log.ts";
import type { LimitResult, RateLimiter } from "./rate_limiter.ts";
import { handOff } from "./wait_until.ts";

/** Options of the Upstash adapter. */
export interface UpstashLimiterOptions {
  /** Upstash REST URL (`UPSTASH_REDIS_REST_URL`). */
  url: string;
  /** Upstash REST token (`UPSTASH_REDIS_REST_TOKEN`). */
  token: string;
  /** Prefix of every key this adapter writes; default `"ratelimit"`. */
  prefix?: string;
  /**
   * Deadline in milliseconds for one `limit` call, its Redis round trip
   * included. Past it, `limit` throws (fail closed). Default 3000.
   */
  timeoutMs?: number;
}

/** The deadline of one limit check when none is given: 3 seconds. */
export const DEFAULT_UPSTASH_TIMEOUT_MS = 3000;
const DEFAULT_PREFIX = "ratelimit";

/**
 * RateLimiter over Upstash Redis: a sliding log (sliding_log.ts) of at most
 * `max` accepted requests in any `windowSeconds`, shared by every isolate and
 * process that uses the same database, on Redis's clock.
 *
 * `@upstash/ratelimit` runs it, as a custom algorithm: its own algorithms are
 * a fixed window, an approximated sliding window and a token bucket, and none
 * keeps "at most N in any minute". Fail closed, by construction:
 * - `@upstash/ratelimit` races Redis against `timeout` (default 5000 ms) and,
 *   when the timer wins, resolves `{ success: true, reason: "timeout" }`:
 *   the request is waved through. `timeout: 0` removes that race; this
 *   adapter enforces its own deadline instead, which throws, and any answer
 *   with a `reason` (timeout, cache block, deny list) or that is not a
 *   well-formed decision throws too.
 * - `@upstash/redis` retries a failed fetch 5 times with exponential backoff
 *   by default (about 12 s on a dead endpoint): here it makes one attempt, so
 *   a refused connection fails at once and a silent one at `timeoutMs`.
 * - Its `signal` option given as an AbortSignal turns an abort into a fake
 *   `{ result: "Aborted" }` answer; given as a function, an abort throws. The
 *   function form is used.
 * - The ephemeral in-isolate block cache is off (every decision is Redis's);
 *   analytics, deny-list protection, telemetry and auto-pipelining are off.
 * - Whatever work a decision leaves pending goes to `EdgeRuntime.waitUntil`
 *   where the runtime has it (wait_until.ts), so the isolate is not frozen
 *   in the middle of it.
 */
export function createUpstashLimiter(options: UpstashLimiterOptions): RateLimiter {
  const prefix = options.prefix ?? DEFAULT_PREFIX;
  const timeoutMs = options.timeoutMs ?? DEFAULT_UPSTASH_TIMEOUT_MS;
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
  const script = redis.createScript<[number, number, number]>(SLIDING_LOG_SCRIPT);

  // One Ratelimit per (max, windowSeconds), created on first use. The pair is
  // part of the Redis key, so two policies never share a log.
  const limiterFor = perPolicy((max, windowSeconds) =>
    new Ratelimit({
      redis,
      limiter: slidingLog(script, max, windowSeconds * 1000),
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
      const call = limiter.limit(key);
      try {
        response = await Promise.race([call, deadline]);
      } catch (error) {
        if (error instanceof LimiterUnavailableError) {
          // The call is abandoned; its request ends at the same deadline (its signal).
          handOff(call);
          throw error;
        }
        throw new LimiterUnavailableError("Upstash rate limit check failed", { cause: error });
      } finally {
        clearTimeout(timer);
      }
      handOff(response.pending);
      // Anything but a decision that Redis made is refused: a "timeout" reason
      // (a waved-through request) or a malformed answer throws.
      if (
        response.reason !== undefined ||
        typeof response.success !== "boolean" ||
        !Number.isSafeInteger(response.remaining) ||
        !Number.isFinite(response.reset) ||
        response.reset <= 0
      ) {
        throw new LimiterUnavailableError(
          `Upstash rate limit gave no usable decision (reason: ${response.reason ?? "none"})`,
        );
      }
      return {
        success: response.success,
        remaining: Math.max(0, response.remaining),
        reset: response.reset,
        retryAfterMs: response.success ? 0 : Math.max(0, response.reset - Date.now()),
      };
    },
  };
}

type SlidingLogScript = ReturnType<Redis["createScript"]>;

/**
 * The sliding log as an `@upstash/ratelimit` algorithm: one script call,
 * EVALSHA first and the script's text when Redis does not hold it yet. `reset`
 * is this process's clock plus the wait Redis measured on its own clock.
 */
function slidingLog(
  script: SlidingLogScript,
  max: number,
  windowMs: number,
): RatelimitConfig["limiter"] {
  return () => ({
    async limit(_ctx, identifier) {
      const answer: unknown = await script.exec(
        [identifier],
        [String(max), String(windowMs), crypto.randomUUID()],
      );
      if (
        !Array.isArray(answer) || answer.length !== 3 ||
        !answer.every((part) => Number.isSafeInteger(part))
      ) {
        throw new LimiterUnavailableError("Redis answered the sliding log with something else");
      }
      const [accepted, remaining, retryAfterMs] = answer as number[];
      return {
        success: accepted === 1,
        limit: max,
        remaining,
        reset: Date.now() + Math.max(0, retryAfterMs),
        pending: Promise.resolve(),
      };
    },
    getRemaining() {
      return Promise.reject(new Error("not used"));
    },
    resetTokens() {
      return Promise.reject(new Error("not used"));
    },
  });
}

const shared = new Map<string, RateLimiter>();

/**
 * The isolate's one Upstash adapter for these options: created on first use
 * and reused by every later call, so the client, its scripts and its
 * connections live as long as the isolate, not as long as a request.
 */
export function upstashLimiter(options: UpstashLimiterOptions): RateLimiter {
  const id = JSON.stringify([
    options.url,
    options.token,
    options.prefix ?? DEFAULT_PREFIX,
    options.timeoutMs ?? DEFAULT_UPSTASH_TIMEOUT_MS,
  ]);
  let limiter = shared.get(id);
  if (limiter === undefined) {
    limiter = createUpstashLimiter(options);
    shared.set(id, limiter);
  }
  return limiter;
}
