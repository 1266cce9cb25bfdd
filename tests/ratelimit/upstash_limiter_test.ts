/**
 * The Upstash adapter fails closed: a dead, silent or refusing endpoint makes
 * `limit` throw, quickly, and never answers `success: true`.
 */
import assert from "node:assert/strict";
import { Ratelimit } from "@upstash/ratelimit";
import { Redis } from "@upstash/redis";
import { LimiterUnavailableError } from "../../shared/ratelimit/limiter_unavailable_error.ts";
import {
  createUpstashLimiter,
  DEFAULT_UPSTASH_TIMEOUT_MS,
  upstashLimiter,
} from "../../shared/ratelimit/upstash_limiter.ts";
import { complianceAudit } from "../../shared/handlers/compliance_audit.ts";
import { agentSubscribe } from "../../shared/handlers/agent_subscribe.ts";
import { runWebsiteAudit } from "../../shared/handlers/run_website_audit.ts";
import type { RateLimiter } from "../../shared/ratelimit/rate_limiter.ts";
import { fakeAccount, fakeDeps, from, jsonRequest } from "../support/fake_deps.ts";
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

/** Installs a fake `EdgeRuntime` global for `fn`, collecting what is handed to waitUntil. */
async function withEdgeRuntime(fn: (handed: Promise<unknown>[]) => Promise<void>): Promise<void> {
  const handed: Promise<unknown>[] = [];
  const global = globalThis as { EdgeRuntime?: unknown };
  global.EdgeRuntime = { waitUntil: (promise: Promise<unknown>) => handed.push(promise) };
  try {
    await fn(handed);
  } finally {
    delete global.EdgeRuntime;
  }
}

Deno.test({
  name: "the Upstash adapter hands its pending work to EdgeRuntime.waitUntil where it exists",
  ignore: "skip" in redisTarget,
  async fn() {
    const bridge = await startUpstashBridge(redisUrl());
    const prefix = `test-waituntil-${crypto.randomUUID()}`;
    try {
      const limiter = createUpstashLimiter({ url: bridge.url, token: bridge.token, prefix });
      await withEdgeRuntime(async (handed) => {
        assert.equal((await limiter.limit("account-a", 1, 60)).success, true);
        assert.equal((await limiter.limit("account-a", 1, 60)).success, false);
        assert.equal(handed.length, 2, "each decision's pending work is handed over");
        await Promise.all(handed);
      });
      // Without the global nothing is handed anywhere and the adapter still works.
      assert.equal((await limiter.limit("account-b", 1, 60)).success, true);
    } finally {
      const redis = new Redis({ url: bridge.url, token: bridge.token, enableTelemetry: false });
      const keys = await redis.keys(`${prefix}:*`);
      if (keys.length > 0) await redis.del(...keys);
      await bridge.close();
    }
  },
});

Deno.test("the Upstash adapter hands a call abandoned at its deadline to EdgeRuntime.waitUntil", async () => {
  const silent = startSilentServer();
  try {
    const limiter = createUpstashLimiter({ url: silent.url, token: "t", timeoutMs: 200 });
    await withEdgeRuntime(async (handed) => {
      await assert.rejects(limiter.limit("account-a", 60, 60), LimiterUnavailableError);
      assert.equal(handed.length, 1, "the abandoned call is handed over");
      // It ends by itself (its request is aborted at the same deadline), never rejecting.
      assert.equal(await handed[0], undefined);
    });
  } finally {
    silent.close();
  }
});

Deno.test("upstashLimiter() is one adapter per isolate for the same settings", () => {
  const options = { url: "http://127.0.0.1:1", token: "t" };
  const first = upstashLimiter(options);
  assert.equal(upstashLimiter({ ...options }), first);
  assert.equal(upstashLimiter({ ...options, timeoutMs: DEFAULT_UPSTASH_TIMEOUT_MS }), first);
  assert.notEqual(upstashLimiter({ ...options, prefix: "other" }), first);
});

/**
 * What each endpoint answers when its limiter cannot decide: its own 5xx in
 * its own envelope, within the limiter's deadline plus a margin.
 */
async function refusedByEndpoints(limiter: RateLimiter, deadlineMs: number): Promise<void> {
  const deps = fakeDeps();
  deps.limiter = limiter as typeof deps.limiter;
  const { apiKey } = await fakeAccount(deps.db);
  const calls: Array<{
    handler: (req: Request, info: ReturnType<typeof from>) => Promise<Response>;
    body: unknown;
    headers: Record<string, string>;
    status: number;
    envelope: unknown;
  }> = [
    {
      handler: complianceAudit(deps),
      body: { content: "Hello from our bot.", jurisdiction: "CA" },
      headers: { "x-api-key": apiKey },
      status: 503,
      envelope: {
        error: {
          code: "service_unavailable",
          message: "The service is unavailable; try again later",
        },
      },
    },
    {
      handler: agentSubscribe(deps),
      body: { action: "verify" },
      headers: { "x-api-key": apiKey },
      status: 500,
      envelope: { error: "The account operation failed" },
    },
    {
      handler: runWebsiteAudit(deps),
      body: { target_url: "https://www.example.com/" },
      headers: {},
      status: 500,
      envelope: { error: "Internal error" },
    },
  ];
  for (const call of calls) {
    const started = performance.now();
    const response = await call.handler(
      jsonRequest("x", call.body, call.headers),
      from("192.0.2.9"),
    );
    const ms = performance.now() - started;
    assert.equal(response.status, call.status);
    assert.deepEqual(await response.json(), call.envelope);
    assert.ok(ms < deadlineMs + 2000, `answered after ${ms} ms; the deadline is ${deadlineMs}`);
  }
  // Refused before anything was charged or scanned.
  assert.equal(deps.db.names().includes("audit_record"), false);
  assert.deepEqual(deps.db.websiteScans, []);
}

Deno.test("the endpoints fail closed, at once, when Redis's port refuses connections", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = listener.addr.port;
  listener.close();
  await refusedByEndpoints(
    createUpstashLimiter({ url: `http://127.0.0.1:${port}`, token: "t" }),
    0,
  );
});

Deno.test("the endpoints fail closed within the deadline when Redis never answers", async () => {
  const silent = startSilentServer();
  try {
    await refusedByEndpoints(
      createUpstashLimiter({ url: silent.url, token: "t", timeoutMs: 500 }),
      500,
    );
  } finally {
    silent.close();
  }
});
