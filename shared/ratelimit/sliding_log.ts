/**
 * The sliding log: the algorithm of every per-minute limit. A key's log holds
 * the times of its accepted requests; a request is accepted when fewer than
 * `max` accepted requests lie in the last `window` milliseconds, and only an
 * accepted request is written to the log. So no `window`-long span of time,
 * wherever it starts, ever holds more than `max` accepted requests, and a
 * refused request learns exactly when capacity returns: when the entry that
 * fills the log leaves the window.
 *
 * The fixed window (a counter per clock minute) lets `2 × max` through
 * around a minute boundary; the approximated sliding window (this minute's
 * count plus the last minute's, weighted) lets through up to about
 * `2 × max` after a burst late in a minute; a token bucket refilled at
 * `max` per minute lets through `max` plus the refill. The log costs one
 * entry per accepted request, at most `max` per key, and the limits are
 * small (10 to 60 a minute).
 *
 * @module
 */

/** One decision of a sliding log. */
export interface SlidingLogDecision {
  success: boolean;
  /** Requests still accepted right now after this one. */
  remaining: number;
  /**
   * Milliseconds from now until the log admits another request: 0 while
   * `remaining` is above 0; otherwise until the oldest entry that fills the
   * log leaves the window.
   */
  retryAfterMs: number;
}

/**
 * The Redis script of the sliding log, for one key (`KEYS[1]`, a sorted set
 * of accepted requests scored by their time in milliseconds). `ARGV`: max,
 * window in milliseconds, a unique member for this request. Time is Redis's
 * own clock (`TIME`), so every process and isolate measures the same window.
 * Returns `{ accepted (1|0), remaining, retry_after_ms }`. One script is one
 * atomic step in Redis: concurrent callers never both take the last place.
 */
export const SLIDING_LOG_SCRIPT = `
local key = KEYS[1]
local max = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
local count = redis.call('ZCARD', key)
if count < max then
  redis.call('ZADD', key, now, ARGV[3])
  redis.call('PEXPIRE', key, window)
  return {1, max - count - 1, 0}
end
local filling = redis.call('ZRANGE', key, count - max, count - max, 'WITHSCORES')
return {0, 0, tonumber(filling[2]) + window - now}
`;

/**
 * The sliding log of one key held in memory: the same decision as the Redis
 * script, for the single local process.
 */
export function slidingLogDecide(
  log: number[],
  max: number,
  windowMs: number,
  now: number,
): SlidingLogDecision {
  // An entry leaves the window once now - entry >= windowMs.
  let expired = 0;
  while (expired < log.length && log[expired] <= now - windowMs) expired++;
  if (expired > 0) log.splice(0, expired);
  if (log.length < max) {
    log.push(now);
    return { success: true, remaining: max - log.length, retryAfterMs: 0 };
  }
  return {
    success: false,
    remaining: 0,
    retryAfterMs: log[log.length - max] + windowMs - now,
  };
}
