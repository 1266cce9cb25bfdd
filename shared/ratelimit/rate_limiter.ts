/** Outcome of one rate-limit check. */
export interface LimitResult {
  /** True when the request is within the limit. */
  success: boolean;
  /** Requests left in the current window. */
  remaining: number;
  /** Epoch milliseconds at which the window resets. */
  reset: number;
}

/**
 * The RateLimiter port. An adapter that cannot reach its store throws: the
 * caller refuses the request (fail closed), never waves it through.
 */
export interface RateLimiter {
  limit(key: string, max: number, windowSeconds: number): Promise<LimitResult>;
}
