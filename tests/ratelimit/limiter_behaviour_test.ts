/**
 * One behaviour table, run against every RateLimiter adapter: the in-memory
 * one, and the Upstash one through the Upstash-REST bridge in front of the
 * real Redis (TEST_REDIS_URL). Both are sliding logs: at most max in any
 * window-long span, wherever it starts, and a refusal says when it ends.
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
    for (let i = 1; i <= 60; i++) {
      const result = await limiter.limit("account-countdown", 60, 60);
      assert.equal(result.success, true);
      assert.equal(result.remaining, 60 - i, `remaining after request ${i}`);
      assert.equal(result.retryAfterMs, 0, "an accepted request need not wait");
    }
    const refused = await limiter.limit("account-countdown", 60, 60);
    assert.equal(refused.success, false);
    assert.ok(refused.retryAfterMs > 50_000 && refused.retryAfterMs <= 60_000);
    assert.ok(refused.reset > Date.now() + 50_000 && refused.reset <= Date.now() + 60_000);
  });

  behaviour(adapter, "separate keys do not interfere", async (limiter) => {
    for (let i = 0; i < 60; i++) await limiter.limit("account-full", 60, 60);
    assert.equal((await limiter.limit("account-full", 60, 60)).success, false);
    const other = await limiter.limit("account-other", 60, 60);
    assert.equal(other.success, true);
    assert.equal(other.remaining, 59);
  });

  behaviour(adapter, "different limits on the same key keep separate counters", async (limiter) => {
    for (let i = 0; i < 3; i++) assert.equal((await limiter.limit("ip-1", 3, 60)).success, true);
    assert.equal((await limiter.limit("ip-1", 3, 60)).success, false);
    const otherPolicy = await limiter.limit("ip-1", 10, 60);
    assert.equal(otherPolicy.success, true);
    assert.equal(otherPolicy.remaining, 9);
  });

  behaviour(adapter, "100 concurrent calls with max 60: exactly 60 succeed", async (limiter) => {
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
    assert.equal((await limiter.limit("account-short", 1, 1)).success, true);
    assert.equal((await limiter.limit("account-short", 1, 1)).success, false);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    assert.equal((await limiter.limit("account-short", 1, 1)).success, true);
  });

  behaviour(
    adapter,
    "a refusal says when capacity returns: earlier is refused, then it is accepted",
    async (limiter) => {
      // 2 in any 10 s: one now, one 3 s later; the third waits for the first.
      const first = performance.now();
      assert.equal((await limiter.limit("account-wait", 2, 10)).success, true);
      await sleep(3000);
      assert.equal((await limiter.limit("account-wait", 2, 10)).success, true);
      const refused = await limiter.limit("account-wait", 2, 10);
      const refusedAt = performance.now();
      assert.equal(refused.success, false);
      assert.equal(refused.remaining, 0);
      // The first request leaves the window 10 s after it was made.
      const leaves = first + 10_000;
      assert.ok(
        refused.retryAfterMs >= leaves - refusedAt - 1000 &&
          refused.retryAfterMs <= leaves - first,
        `retryAfterMs ${refused.retryAfterMs}, the first request leaves in ${leaves - refusedAt}`,
      );
      // Halfway there it is still refused, and the refusal is not counted.
      await sleep(refused.retryAfterMs / 2);
      assert.equal((await limiter.limit("account-wait", 2, 10)).success, false);
      // Waiting as long as it said is enough: until its reset, read on the
      // wall clock it was stated in (a timer may fire a millisecond early).
      while (Date.now() < refused.reset) await sleep(refused.reset - Date.now());
      assert.ok(
        performance.now() - refusedAt <= refused.retryAfterMs + 1000,
        "the stated reset is the wait it was given",
      );
      const admitted = await limiter.limit("account-wait", 2, 10);
      assert.equal(admitted.success, true, "accepted once the wait it was given is over");
      assert.equal(admitted.remaining, 0, "the request of 3 s in is still in the window");
    },
  );

  behaviour(
    adapter,
    "requests paced for 2.5 windows: no window-long span holds more than max",
    async (limiter) => {
      // 4 in any 2 s, asked every 50 ms for 5 s: a fixed or approximated
      // window would admit up to 8 across a boundary here.
      const max = 4;
      const windowMs = 2000;
      const accepted: Array<{ sent: number; answered: number }> = [];
      const end = Date.now() + 5000;
      while (Date.now() < end) {
        const sent = Date.now();
        const result = await limiter.limit("account-paced", max, windowMs / 1000);
        if (result.success) accepted.push({ sent, answered: Date.now() });
        await sleep(50);
      }
      // The limiter decided each request between its sending and its answer,
      // so request i + max was decided at least a window after request i.
      for (let i = 0; i + max < accepted.length; i++) {
        const span = accepted[i + max].answered - accepted[i].sent;
        assert.ok(span >= windowMs, `${max + 1} requests accepted within ${span} ms`);
      }
      // And it is not stingier than the rule: each window admits its max again.
      assert.ok(accepted.length >= 2 * max + 1, `only ${accepted.length} accepted in 5 s`);
    },
  );

  behaviour(adapter, "invalid arguments throw", async (limiter) => {
    await assert.rejects(limiter.limit("", 60, 60), TypeError);
    await assert.rejects(limiter.limit("k", 0, 60), RangeError);
    await assert.rejects(limiter.limit("k", 1.5, 60), RangeError);
    await assert.rejects(limiter.limit("k", 60, 0), RangeError);
    await assert.rejects(limiter.limit("k", 60, Number.NaN), RangeError);
  });
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

Deno.test("memory limiter: the sliding log on a moved clock, to the millisecond", async () => {
  let now = 1_000_000;
  const limiter = createMemoryLimiter({ now: () => now });
  assert.equal((await limiter.limit("k", 3, 60)).success, true); // t = 0
  now += 10_000;
  assert.equal((await limiter.limit("k", 3, 60)).success, true); // t = 10 s
  now += 40_000;
  assert.equal((await limiter.limit("k", 3, 60)).success, true); // t = 50 s
  now += 9_000; // t = 59 s: three in the last minute
  const refused = await limiter.limit("k", 3, 60);
  assert.deepEqual(refused, { success: false, remaining: 0, reset: 1_060_000, retryAfterMs: 1000 });
  now += 999;
  assert.equal((await limiter.limit("k", 3, 60)).success, false, "1 ms early");
  now += 1; // t = 60 s: the request of t = 0 has left the window
  assert.deepEqual(await limiter.limit("k", 3, 60), {
    success: true,
    remaining: 0,
    reset: 1_060_000,
    retryAfterMs: 0,
  });
  // Now full again until the request of t = 10 s leaves, at t = 70 s.
  assert.equal((await limiter.limit("k", 3, 60)).retryAfterMs, 10_000);
  // A fixed window from the first request would have admitted 3 more at t = 60 s.
});
