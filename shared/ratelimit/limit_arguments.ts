/**
 * Checks the arguments of `RateLimiter.limit` the same way for every adapter.
 * A bad argument is a programming error: it throws, so the caller fails closed.
 */
export function assertLimitArguments(key: string, max: number, windowSeconds: number): void {
  if (typeof key !== "string" || key.length === 0) {
    throw new TypeError("rate-limit key must be a non-empty string");
  }
  if (!Number.isSafeInteger(max) || max < 1) {
    throw new RangeError(`rate-limit max must be a positive integer, got ${max}`);
  }
  if (!Number.isSafeInteger(windowSeconds) || windowSeconds < 1) {
    throw new RangeError(
      `rate-limit windowSeconds must be a positive integer, got ${windowSeconds}`,
    );
  }
}
