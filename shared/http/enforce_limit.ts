import type { RateLimiter } from "../ratelimit/rate_limiter.ts";
import { HttpError } from "./http_error.ts";

/**
 * Counts one request against `max` per `windowSeconds` for `key` (at most
 * `max` accepted in any `windowSeconds`: a sliding log). Past the limit it
 * throws an HttpError 429 `rate_limited` with `Retry-After`: the whole
 * seconds until the log admits the key again, rounded up (at least 1), so a
 * client that waits that long is accepted unless others took the place
 * first. A limiter that fails throws its own error, which the endpoint
 * answers with its 5xx: the request is refused, never waved through.
 *
 * @example
 * ```ts
 * await enforceLimit(deps.limiter, `audit:${accountId}`, 60, 60);
 * ```
 */
export async function enforceLimit(
  limiter: RateLimiter,
  key: string,
  max: number,
  windowSeconds: number,
): Promise<void> {
  const window = await limiter.limit(key, max, windowSeconds);
  if (window.success) return;
  const retryAfter = Math.max(1, Math.ceil(window.retryAfterMs / 1000));
  throw new HttpError(429, "rate_limited", `Rate limit exceeded; retry after ${retryAfter} s`, {
    headers: { "Retry-After": String(retryAfter) },
  });
}
