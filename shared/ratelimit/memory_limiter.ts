import { perPolicy } from "./per_policy.ts";
import { assertLimitArguments } from "./limit_arguments.ts";
import { slidingLogDecide } from "./sliding_log.ts";
import type { LimitResult, RateLimiter } from "./rate_limiter.ts";

/** Options of {@linkcode createMemoryLimiter}. */
export interface MemoryLimiterOptions {
  /** The clock in epoch milliseconds; tests move it. Default `Date.now`. */
  now?: () => number;
}

/**
 * RateLimiter held in this process's memory: a sliding log per key (at most
 * `max` accepted requests in any `windowSeconds`). For the single local
 * process only: isolates or processes do not share it. Logs whose every
 * entry has left the window are dropped, at most once a window, so memory
 * follows the keys active in the last window.
 */
export function createMemoryLimiter(options: MemoryLimiterOptions = {}): RateLimiter {
  const clock = options.now ?? Date.now;
  // One map of logs per policy: a key's log under one policy never mixes with another's.
  const policy = perPolicy((_max, windowSeconds) => ({
    windowMs: windowSeconds * 1000,
    logs: new Map<string, number[]>(),
    sweptAt: clock(),
  }));

  return {
    limit(key: string, max: number, windowSeconds: number): Promise<LimitResult> {
      try {
        assertLimitArguments(key, max, windowSeconds);
      } catch (error) {
        return Promise.reject(error);
      }
      const state = policy(max, windowSeconds);
      const now = clock();
      if (now - state.sweptAt >= state.windowMs) {
        state.sweptAt = now;
        for (const [logKey, log] of state.logs) {
          if (log.length === 0 || log[log.length - 1] <= now - state.windowMs) {
            state.logs.delete(logKey);
          }
        }
      }
      let log = state.logs.get(key);
      if (log === undefined) {
        log = [];
        state.logs.set(key, log);
      }
      const decision = slidingLogDecide(log, max, state.windowMs, now);
      return Promise.resolve({
        success: decision.success,
        remaining: decision.remaining,
        reset: now + decision.retryAfterMs,
        retryAfterMs: decision.retryAfterMs,
      });
    },
  };
}
