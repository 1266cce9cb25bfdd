import type { Logger } from "../log/logger.ts";
import { LimiterUnavailableError } from "./limiter_unavailable_error.ts";
import type { RateLimiter } from "./rate_limiter.ts";

/**
 * The limiter of a deployed function without Upstash: it refuses every check,
 * so the endpoint answers its 5xx (fail closed). A per-isolate memory limiter
 * would count each isolate on its own, which is not the contract's limit.
 * The reason is logged once per isolate, at the first refusal.
 */
export function createUnconfiguredLimiter(logger: Logger): RateLimiter {
  let explained = false;
  return {
    limit(): Promise<never> {
      if (!explained) {
        explained = true;
        logger.log(
          "error",
          "rate limiter not configured: set UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN; limited requests are refused until then",
        );
      }
      return Promise.reject(new LimiterUnavailableError("No rate limiter is configured"));
    },
  };
}
