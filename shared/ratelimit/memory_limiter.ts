import { RateLimiterMemory, RateLimiterRes } from "rate-limiter-flexible";
import { perPolicy } from "./per_policy.ts";
import { assertLimitArguments } from "./limit_arguments.ts";
import { LimiterUnavailableError } from "./limiter_unavailable_error.ts";
import type { LimitResult, RateLimiter } from "./rate_limiter.ts";

/**
 * RateLimiter held in this process's memory: `max` requests per
 * `windowSeconds` for each key, the window starting at the key's first
 * request. For the single local process only: isolates or processes do not
 * share it.
 */
export function createMemoryLimiter(): RateLimiter {
  // One RateLimiterMemory, with its own storage, per policy.
  const limiterFor = perPolicy((max, windowSeconds) =>
    new RateLimiterMemory({ points: max, duration: windowSeconds })
  );

  return {
    async limit(key: string, max: number, windowSeconds: number): Promise<LimitResult> {
      assertLimitArguments(key, max, windowSeconds);
      const limiter = limiterFor(max, windowSeconds);
      try {
        const res = await limiter.consume(key, 1);
        return {
          success: true,
          remaining: res.remainingPoints,
          reset: Date.now() + res.msBeforeNext,
        };
      } catch (rejection) {
        // rate-limiter-flexible rejects with a RateLimiterRes when the key is
        // over its limit; anything else is a failure of the limiter itself.
        if (rejection instanceof RateLimiterRes) {
          return { success: false, remaining: 0, reset: Date.now() + rejection.msBeforeNext };
        }
        throw new LimiterUnavailableError("in-memory rate limit check failed", {
          cause: rejection,
        });
      }
    },
  };
}
