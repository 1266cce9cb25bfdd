/**
 * Thrown by a RateLimiter adapter when it cannot give a trustworthy answer:
 * its store is unreachable, too slow, or answered something it cannot read.
 * Callers refuse the request (fail closed). The message never carries a
 * credential; the original error, if any, is kept as `cause` for logs.
 */
export class LimiterUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "LimiterUnavailableError";
  }
}
