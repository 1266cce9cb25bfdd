/**
 * The Upstash adapter fails closed: a dead, silent or refusing endpoint makes
 * `limit` throw, quickly, and never answers `success: true`.
 */
import assert from "node:assert/strict";
import { Ratelimit } from "@upstash/ratelimit";
import { Redis } from "@upstash/redis";
import { LimiterUnavailableError } from "../../shared/ratelimit/limiter_unavailable_error.ts";
import { createUpstashLimiter } from "../../shared/ratelimit/upstash_limiter.ts";
import { resolveTestRedis, startUpstashBridge } from "../support/upstash_bridge.ts";

const redisTarget = await resolveTestRedis();
if ("skip" in redisTarget) {
  console.warn(`NOTICE: skipping the Upstash tests that need Redis: ${redisTarget.skip}`);
}

function redisUrl(): string {
  if ("fail" in redisTarget) throw new Error(redisTarget.fail);
  if (!("url" in redisTarget)) throw new Error("no Redis for the Upstash tests");
  return redisTarget.url;
}

/** A loopback TCP server that accepts connections and never answers. */
function startSilentServer(): { url: string; close(): void } {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const connections: Deno.Conn[] = [];
  (async () => {
    try {
      for await (const conn of listener) connections.push(conn);
    } catch {
      // the listener was closed
    }
  })();
  return {
    url: `http://127.0.0.1:${listener.addr.port}`,
    close() {
      listener.close();
      for (const conn of connections) {
        try {
          conn.close();
        } catch {
          // already closed by the peer
        }
      }
    },
  };
}

async function elapsed(fn: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

Deno.test({
  name: "createUpstashLimiter() throws quickly when the endpoint is a closed bridge",
  ignore: "skip" in redisTarget,
  async fn() {
    const bridge = await startUpstashBridge(redisUrl());
    const { url, token } = bridge;
    await bridge.close();
    const limiter = createUpstashLimiter({ url, token, prefix: "test-closed" });
    const ms = await elapsed(() =>
      assert.rejects(limiter.limit("account-a", 60, 60), LimiterUnavailableError)
    );
    assert.ok(ms < 1000, `failed after ${ms} ms; a dead endpoint must fail fast`);
  },
});

Deno.test("createUpstashLimiter() throws quickly when nothing listens on the port", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = listener.addr.port;
  listener.close();
  const limiter = createUpstashLimiter({ url: `http://127.0.0.1:${port}`, token: "t" });
  const ms = await elapsed(() =>
    assert.rejects(limiter.limit("account-a", 60, 60), LimiterUnavailableError)
  );
  assert.ok(ms < 1000, `failed after ${ms} ms; a dead endpoint must fail fast`);
});

Deno.test("createUpstashLimiter() throws at its deadline when the endpoint never answers", async () => {
  const silent = startSilentServer();
  try {
    const limiter = createUpstashLimiter({ url: silent.url, token: "t", timeoutMs: 300 });
    const ms = await elapsed(() =>
      assert.rejects(limiter.limit("account-a", 60, 60), LimiterUnavailableError)
    );
    assert.ok(ms >= 250 && ms < 2000, `failed after ${ms} ms, expected about 300`);
  } finally {
    silent.close();
  }
});

Deno.test({
  name: "createUpstashLimiter() throws when the endpoint refuses the token",
  ignore: "skip" in redisTarget,
  async fn() {
    const bridge = await startUpstashBridge(redisUrl());
    try {
      const limiter = createUpstashLimiter({ url: bridge.url, token: "wrong-token" });
      await assert.rejects(limiter.limit("account-a", 60, 60), LimiterUnavailableError);
    } finally {
      await bridge.close();
    }
  },
});

Deno.test("createUpstashLimiter() refuses missing credentials and a bad timeout", () => {
  assert.throws(() => createUpstashLimiter({ url: "", token: "t" }), TypeError);
  assert.throws(() => createUpstashLimiter({ url: "http://127.0.0.1:1", token: "" }), TypeError);
  assert.throws(
    () => createUpstashLimiter({ url: "http://127.0.0.1:1", token: "t", timeoutMs: 0 }),
    RangeError,
  );
});

// Why the adapter sets `timeout: 0`: with a timeout, @upstash/ratelimit
// answers success when Redis is slow. If this test starts failing after an
// upgrade, the library changed how its timeout behaves: re-read its source.
Deno.test("@upstash/ratelimit with a timeout waves a request through when Redis is silent", async () => {
  const silent = startSilentServer();
  try {
    const controller = new AbortController();
    const redis = new Redis({
      url: silent.url,
      token: "t",
      retry: false,
      signal: () => controller.signal,
      enableTelemetry: false,
      enableAutoPipelining: false,
    });
    const ratelimit = new Ratelimit({
      redis,
      limiter: Ratelimit.slidingWindow(1, "60 s"),
      timeout: 200,
      ephemeralCache: false,
    });
    const response = await ratelimit.limit("account-a");
    assert.equal(response.success, true);
    assert.equal(response.reason, "timeout");
    // End the request still hanging behind the answer before closing the server.
    controller.abort();
    await new Promise((resolve) => setTimeout(resolve, 50));
  } finally {
    silent.close();
  }
});
