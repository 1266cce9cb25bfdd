/**
 * A RateLimiter whose adapter module is imported on demand (started at once,
 * in the background), so that a function's module graph does not carry the
 * Upstash client statically.
 */
import { LimiterUnavailableError } from "./limiter_unavailable_error.ts";
import type { LimitResult, RateLimiter } from "./rate_limiter.ts";

/** A limiter over the one `open` resolves to; `open` is called once, right away. */
export function lazyLimiter(open: () => Promise<RateLimiter>): RateLimiter {
  const opened = open();
  opened.catch(() => {});
  return {
    async limit(key: string, max: number, windowSeconds: number): Promise<LimitResult> {
      let limiter: RateLimiter;
      try {
        limiter = await opened;
      } catch (error) {
        // Fail closed, as any other limiter failure.
        throw new LimiterUnavailableError("rate limiter could not be loaded", { cause: error });
      }
      return await limiter.limit(key, max, windowSeconds);
    },
  };
}
