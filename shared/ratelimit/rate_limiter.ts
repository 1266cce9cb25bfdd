/** Outcome of one rate-limit check. */
export interface LimitResult {
  /** True when the request is within the limit (and was counted). */
  success: boolean;
  /** Requests still accepted right now after this one. */
  remaining: number;
  /**
   * Epoch milliseconds (this process's clock) from which the key is accepted
   * again: now while `remaining` is above 0; for a refusal, the moment the
   * oldest request that fills the window leaves it.
   */
  reset: number;
  /** Milliseconds from now until `reset`: 0 while `remaining` is above 0. */
  retryAfterMs: number;
}

/**
 * The RateLimiter port: at most `max` accepted requests per key in any
 * `windowSeconds`-long span of time (a sliding log, see sliding_log.ts). A
 * refused request is not counted. An adapter that cannot reach its store, or
 * cannot give a decision its store made, throws: the caller refuses the
 * request (fail closed), never waves it through.
 */
export interface RateLimiter {
  limit(key: string, max: number, windowSeconds: number): Promise<LimitResult>;
}
