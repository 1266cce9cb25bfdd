/**
 * One behaviour table, run against every RateLimiter adapter: the in-memory
 * one, and the Upstash one through the Upstash-REST bridge in front of the
 * real Redis (TEST_REDIS_URL).
 */
import assert from "node:assert/strict";
import { Redis } from "@upstash/redis";
import { createMemoryLimiter } from "../../shared/ratelimit/memory_limiter.ts";
import type { RateLimiter } from "../../shared/ratelimit/rate_limiter.ts";
import { createUpstashLimiter } from "../../shared/ratelimit/upstash_limiter.ts";
import { resolveTestRedis, startUpstashBridge } from "../support/upstash_bridge.ts";

interface Harness {
  limiter: RateLimiter;
  dispose(): Promise<void>;
}

interface Adapter {
  name: string;
  /** True when the adapter cannot run here (a printed notice says why). */
  ignore: boolean;
  setUp(): Promise<Harness>;
}

const redisTarget = await resolveTestRedis();
if ("skip" in redisTarget) {
  console.warn(`NOTICE: skipping the Upstash adapter tests: ${redisTarget.skip}`);
}

const memoryAdapter: Adapter = {
  name: "memory",
  ignore: false,
  setUp: () =>
    Promise.resolve({ limiter: createMemoryLimiter(), dispose: () => Promise.resolve() }),
};

const upstashAdapter: Adapter = {
  name: "upstash",
  ignore: "skip" in redisTarget,
  async setUp() {
    if ("fail" in redisTarget) throw new Error(redisTarget.fail);
    if (!("url" in redisTarget)) throw new Error("no Redis for the Upstash adapter");
    const bridge = await startUpstashBridge(redisTarget.url);
    const prefix = `test-ratelimit-${crypto.randomUUID()}`;
    const limiter = createUpstashLimiter({ url: bridge.url, token: bridge.token, prefix });
    return {
      limiter,
      async dispose() {
        try {
          const redis = new Redis({
            url: bridge.url,
            token: bridge.token,
            enableTelemetry: false,
            enableAutoPipelining: false,
          });
          const keys = await redis.keys(`${prefix}:*`);
          if (keys.length > 0) await redis.del(...keys);
          assert.deepEqual(await redis.keys(`${prefix}:*`), []);
        } finally {
          await bridge.close();
        }
      },
    };
  },
};

/**
 * The Upstash sliding window is aligned to multiples of the window since the
 * epoch and weighs the previous window in: a run that straddles a boundary
 * could see one request more than `max`. Start well inside a window.
 */
async function awayFromWindowEdge(windowSeconds: number): Promise<void> {
  const windowMs = windowSeconds * 1000;
  const margin = Math.min(3000, windowMs / 4);
  const left = windowMs - (Date.now() % windowMs);
  if (left < margin) await new Promise((resolve) => setTimeout(resolve, left + 50));
}

function behaviour(
  adapter: Adapter,
  name: string,
  fn: (limiter: RateLimiter) => Promise<void>,
): void {
  Deno.test({
    name: `${adapter.name} limiter: ${name}`,
    ignore: adapter.ignore,
    async fn() {
      const harness = await adapter.setUp();
      try {
        await fn(harness.limiter);
      } finally {
        await harness.dispose();
      }
    },
  });
}

for (const adapter of [memoryAdapter, upstashAdapter]) {
  behaviour(adapter, "the 61st request in a 60-per-minute window is refused", async (limiter) => {
    await awayFromWindowEdge(60);
    for (let i = 1; i <= 60; i++) {
      const result = await limiter.limit("account-a", 60, 60);
      assert.equal(result.success, true, `request ${i} should pass`);
    }
    const refused = await limiter.limit("account-a", 60, 60);
    assert.equal(refused.success, false);
    assert.equal(refused.remaining, 0);
    assert.ok(refused.reset > Date.now(), "a refusal says when the window resets");
    const again = await limiter.limit("account-a", 60, 60);
    assert.equal(again.success, false, "still refused after a refusal");
  });

  behaviour(adapter, "remaining counts down to zero", async (limiter) => {
    await awayFromWindowEdge(60);
    const before = Date.now();
    for (let i = 1; i <= 60; i++) {
      const result = await limiter.limit("account-countdown", 60, 60);
      assert.equal(result.success, true);
      assert.equal(result.remaining, 60 - i, `remaining after request ${i}`);
      assert.ok(result.reset > before, "reset is in the future");
      assert.ok(result.reset <= Date.now() + 60_000 + 1000, "reset is within one window");
    }
  });

  behaviour(adapter, "separate keys do not interfere", async (limiter) => {
    await awayFromWindowEdge(60);
    for (let i = 0; i < 60; i++) await limiter.limit("account-full", 60, 60);
    assert.equal((await limiter.limit("account-full", 60, 60)).success, false);
    const other = await limiter.limit("account-other", 60, 60);
    assert.equal(other.success, true);
    assert.equal(other.remaining, 59);
  });

  behaviour(adapter, "different limits on the same key keep separate counters", async (limiter) => {
    await awayFromWindowEdge(60);
    for (let i = 0; i < 3; i++) assert.equal((await limiter.limit("ip-1", 3, 60)).success, true);
    assert.equal((await limiter.limit("ip-1", 3, 60)).success, false);
    const otherPolicy = await limiter.limit("ip-1", 10, 60);
    assert.equal(otherPolicy.success, true);
    assert.equal(otherPolicy.remaining, 9);
  });

  behaviour(adapter, "100 concurrent calls with max 60: exactly 60 succeed", async (limiter) => {
    await awayFromWindowEdge(60);
    const results = await Promise.all(
      Array.from({ length: 100 }, () => limiter.limit("account-burst", 60, 60)),
    );
    assert.equal(results.filter((r) => r.success).length, 60);
    assert.equal(results.filter((r) => !r.success).length, 40);
    const remainders = results.filter((r) => r.success).map((r) => r.remaining).sort((a, b) =>
      a - b
    );
    assert.deepEqual(remainders, Array.from({ length: 60 }, (_, i) => i));
  });

  behaviour(adapter, "a short window opens again after it passes", async (limiter) => {
    await awayFromWindowEdge(1);
    assert.equal((await limiter.limit("account-short", 1, 1)).success, true);
    assert.equal((await limiter.limit("account-short", 1, 1)).success, false);
    // The Upstash sliding window still weighs the previous window in just
    // after a boundary; two windows later it is clear.
    await new Promise((resolve) => setTimeout(resolve, 2100));
    assert.equal((await limiter.limit("account-short", 1, 1)).success, true);
  });

  behaviour(adapter, "invalid arguments throw", async (limiter) => {
    await assert.rejects(limiter.limit("", 60, 60), TypeError);
    await assert.rejects(limiter.limit("k", 0, 60), RangeError);
    await assert.rejects(limiter.limit("k", 1.5, 60), RangeError);
    await assert.rejects(limiter.limit("k", 60, 0), RangeError);
    await assert.rejects(limiter.limit("k", 60, Number.NaN), RangeError);
  });
}
