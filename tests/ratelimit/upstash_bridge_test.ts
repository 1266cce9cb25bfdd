/**
 * The test bridge speaks enough of the Upstash REST API for @upstash/redis
 * and @upstash/ratelimit, and only ever talks to a loopback Redis.
 */
import assert from "node:assert/strict";
import { Redis } from "@upstash/redis";
import {
  assertLoopbackRedisUrl,
  resolveTestRedis,
  startUpstashBridge,
} from "../support/upstash_bridge.ts";

const redisTarget = await resolveTestRedis();
if ("skip" in redisTarget) {
  console.warn(`NOTICE: skipping the Upstash bridge tests that need Redis: ${redisTarget.skip}`);
}

function redisTest(
  name: string,
  fn: (bridge: { url: string; token: string }, prefix: string) => Promise<void>,
): void {
  Deno.test({
    name,
    ignore: "skip" in redisTarget,
    async fn() {
      if ("fail" in redisTarget) throw new Error(redisTarget.fail);
      if (!("url" in redisTarget)) throw new Error("no Redis for the bridge tests");
      const bridge = await startUpstashBridge(redisTarget.url);
      const prefix = `test-bridge-${crypto.randomUUID()}`;
      try {
        await fn(bridge, prefix);
      } finally {
        try {
          const keys = await post(bridge, "/", ["KEYS", `${prefix}:*`]);
          const found = keys.body.result as string[];
          if (found.length > 0) await post(bridge, "/", ["DEL", ...found]);
        } finally {
          await bridge.close();
        }
      }
    },
  });
}

async function post(
  bridge: { url: string; token: string },
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(bridge.url + path, {
    method: "POST",
    headers: { authorization: `Bearer ${bridge.token}`, ...headers },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}

Deno.test("startUpstashBridge() refuses a Redis that is not on loopback", async () => {
  for (
    const url of [
      "redis://10.0.0.5:6379",
      "redis://192.168.1.2:6379",
      "redis://redis.internal:6379",
      "redis://[fe80::1]:6379",
      "redis://128.0.0.1:6379",
      "rediss://127.0.0.1:6379",
      "not a url",
    ]
  ) {
    await assert.rejects(startUpstashBridge(url), Error, url);
  }
  for (const url of ["redis://127.0.0.1:6379", "redis://[::1]:6379", "redis://localhost:1"]) {
    assert.doesNotThrow(() => assertLoopbackRedisUrl(url));
  }
});

Deno.test("startUpstashBridge() rejects when nothing answers at the Redis URL", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = listener.addr.port;
  listener.close();
  await assert.rejects(startUpstashBridge(`redis://127.0.0.1:${port}`), /cannot reach Redis/);
});

redisTest("the bridge requires the bearer token", async (bridge) => {
  const missing = await fetch(bridge.url, { method: "POST", body: '["PING"]' });
  assert.equal(missing.status, 401);
  await missing.body?.cancel();
  const wrong = await post({ url: bridge.url, token: "nope" }, "/", ["PING"]);
  assert.equal(wrong.status, 401);
  const right = await post(bridge, "/", ["PING"]);
  assert.deepEqual(right, { status: 200, body: { result: "PONG" } });
});

redisTest("the bridge answers single commands, errors and base64", async (bridge, prefix) => {
  assert.deepEqual(await post(bridge, "/", ["SET", `${prefix}:k`, "héllo"]), {
    status: 200,
    body: { result: "OK" },
  });
  assert.deepEqual((await post(bridge, "/", ["GET", `${prefix}:k`])).body, { result: "héllo" });
  const encoded = await post(bridge, "/", ["GET", `${prefix}:k`], { "Upstash-Encoding": "base64" });
  assert.equal(
    new TextDecoder().decode(
      Uint8Array.from(atob(encoded.body.result as string), (c) => c.charCodeAt(0)),
    ),
    "héllo",
  );
  assert.deepEqual((await post(bridge, "/", ["INCRBY", `${prefix}:n`, 5])).body, { result: 5 });
  const failed = await post(bridge, "/", ["NOSUCHCOMMAND"]);
  assert.equal(failed.status, 400);
  assert.match(String(failed.body.error), /unknown command/i);
});

redisTest("the bridge runs pipelines and transactions", async (bridge, prefix) => {
  const pipeline = await fetch(bridge.url + "/pipeline", {
    method: "POST",
    headers: { authorization: `Bearer ${bridge.token}` },
    body: JSON.stringify([["SET", `${prefix}:a`, "1"], ["INCR", `${prefix}:a`], ["LPUSH"]]),
  });
  const results = await pipeline.json();
  assert.equal(pipeline.status, 200);
  assert.deepEqual(results.slice(0, 2), [{ result: "OK" }, { result: 2 }]);
  assert.match(results[2].error, /wrong number of arguments/i);

  const multi = await post(bridge, "/multi-exec", [
    ["INCR", `${prefix}:a`],
    ["LPUSH", `${prefix}:a`, "x"],
    ["INCR", `${prefix}:a`],
  ]);
  assert.equal(multi.status, 200);
  const replies = multi.body as unknown as Array<{ result?: unknown; error?: string }>;
  assert.deepEqual(replies[0], { result: 3 });
  assert.match(String(replies[1].error), /WRONGTYPE/);
  assert.deepEqual(replies[2], { result: 4 });
});

redisTest("@upstash/redis works through the bridge, scripts included", async (bridge, prefix) => {
  const redis = new Redis({
    url: bridge.url,
    token: bridge.token,
    enableTelemetry: false,
    retry: false,
  });
  await redis.set(`${prefix}:json`, { a: 1, b: "two" });
  assert.deepEqual(await redis.get(`${prefix}:json`), { a: 1, b: "two" });
  assert.deepEqual(await redis.mget(`${prefix}:json`, `${prefix}:none`), [
    { a: 1, b: "two" },
    null,
  ]);
  // An Upstash-only shebang flag is dropped for Redis 7, and EVALSHA of the
  // script as the client hashed it finds the script Redis holds.
  const script = "#!lua flags=allow-key-locking\nreturn redis.call('INCR', KEYS[1])";
  assert.equal(await redis.eval(script, [`${prefix}:n`], []), 1);
  const sha = await redis.scriptLoad(script);
  const expected = Array.from(
    new Uint8Array(await crypto.subtle.digest("SHA-1", new TextEncoder().encode(script))),
    (b) => b.toString(16).padStart(2, "0"),
  ).join("");
  assert.equal(sha, expected);
  assert.equal(await redis.evalsha(sha, [`${prefix}:n`], []), 2);
  await assert.rejects(redis.evalsha("0".repeat(40), [`${prefix}:n`], []), /NOSCRIPT/);
});
