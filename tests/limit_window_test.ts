/**
 * "10 requests a minute" as the contract reads it, across two local server
 * processes sharing one Redis (through the Upstash REST bridge, with
 * Upstash's own client libraries): runWebsiteAudit's per-IP limit, paced
 * over more than a minute. No 60-second span, wherever it starts, holds more
 * than 10 accepted requests; capacity returns when the oldest leaves the
 * minute; and a client that waits its Retry-After is accepted.
 */
import assert from "node:assert/strict";
import { Redis } from "@upstash/redis";
import { startServerProcess } from "./support/server_process.ts";
import { resolveTestRedis, startUpstashBridge } from "./support/upstash_bridge.ts";

const redisTarget = await resolveTestRedis();
if ("skip" in redisTarget) {
  console.warn(`NOTICE: skipping the two-process limit test: ${redisTarget.skip}`);
}

const LIMIT = 10; // runWebsiteAudit, per client IP, per minute
const WINDOW_MS = 60_000;

interface Call {
  server: number;
  sent: number;
  answered: number;
  status: number;
  retryAfter: number | null;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

Deno.test({
  name:
    "two server processes, one Redis: at most 10 scans in any 60 s, and Retry-After is when capacity returns",
  ignore: "skip" in redisTarget,
  async fn() {
    if ("fail" in redisTarget) throw new Error(redisTarget.fail);
    if (!("url" in redisTarget)) throw new Error("no Redis for the limit test");
    const bridge = await startUpstashBridge(redisTarget.url);
    // A client address of its own (a documentation /64, never contacted), so
    // parallel runs on the same Redis count apart. It reaches the servers as
    // the address their one trusted proxy saw.
    const group = () => (1 + Math.floor(Math.random() * 0xfffe)).toString(16);
    const client = `2001:db8:${group()}:${group()}::1`;
    const env = {
      UPSTASH_REDIS_REST_URL: bridge.url,
      UPSTASH_REDIS_REST_TOKEN: bridge.token,
      TRUSTED_PROXY_HOPS: "1",
      // A loaded test machine can take seconds to answer through the bridge;
      // a limiter that gives up would fail closed (5xx), which is not this
      // test's subject.
      UPSTASH_TIMEOUT_MS: "20000",
    };
    const servers = await Promise.all([startServerProcess(env), startServerProcess(env)]);
    const calls: Call[] = [];
    const scan = async (server: number): Promise<Call> => {
      const sent = Date.now();
      const response = await fetch(`${servers[server].baseUrl}/runWebsiteAudit`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-forwarded-for": client },
        // Loopback: with no allow-list the scanner refuses it (403) before
        // any connection, right after the limit admitted the request.
        body: JSON.stringify({ target_url: "http://127.0.0.1:9/" }),
      });
      await response.body?.cancel();
      const header = response.headers.get("retry-after");
      const call = {
        server,
        sent,
        answered: Date.now(),
        status: response.status,
        retryAfter: header === null ? null : Number(header),
      };
      calls.push(call);
      return call;
    };
    try {
      // A fixed window, or Upstash's weighted approximation of a sliding one,
      // admits more as soon as the next clock minute begins: start the burst
      // well inside a clock minute, so that such a limiter fails this test.
      const phase = Date.now() % WINDOW_MS;
      if (phase < 5000 || phase > 50_000) await sleep((WINDOW_MS - phase + 5000) % WINDOW_MS);

      // Each process's first limited call loads the script into Redis: done
      // here for another client, so that the burst meets warm processes.
      for (const [i, each] of servers.entries()) {
        const warm = await fetch(`${each.baseUrl}/runWebsiteAudit`, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            "x-forwarded-for": `2001:db8:${group()}:${group()}::${i + 1}`,
          },
          body: JSON.stringify({ target_url: "http://127.0.0.1:9/" }),
        });
        await warm.body?.cancel();
      }

      // 15 at once, split over the two processes: exactly 10 are accepted.
      const burst = await Promise.all(Array.from({ length: 15 }, (_, i) => scan(i % 2)));
      assert.deepEqual(
        burst.map((call) => call.status).sort(),
        [...Array(LIMIT).fill(403), ...Array(5).fill(429)],
      );
      const start = Math.min(...burst.map((call) => call.sent));

      // Then one a second, alternating processes, until 75 s after the burst.
      let server = 0;
      while (Date.now() < start + 75_000) {
        await scan(server);
        server = 1 - server;
        await sleep(1000);
      }

      for (const call of calls) {
        assert.ok([403, 429].includes(call.status), `status ${call.status}`);
      }
      const accepted = calls.filter((call) => call.status === 403).sort((a, b) => a.sent - b.sent);
      // Each request was decided between its sending and its answer, so the
      // 11th accepted after any accepted one was decided at least a minute
      // after it (2 ms for the clocks' millisecond rounding).
      for (let i = 0; i + LIMIT < accepted.length; i++) {
        const span = accepted[i + LIMIT].answered - accepted[i].sent;
        assert.ok(span >= WINDOW_MS - 2, `${LIMIT + 1} accepted within ${span} ms`);
      }
      // Nothing in the minute after the burst; capacity back once it passed.
      const paced = calls.filter((call) => !burst.includes(call));
      const inMinute = paced.filter((call) => call.answered < start + WINDOW_MS - 1000);
      assert.ok(inMinute.length >= 30, `${inMinute.length} paced calls in the first minute`);
      assert.ok(inMinute.every((call) => call.status === 429), "refused until the minute passed");
      const later = paced.filter((call) => call.sent > start + WINDOW_MS + 1000);
      assert.ok(
        later.filter((call) => call.status === 403).length >= 5,
        `accepted again after the minute: ${later.map((call) => call.status).join(",")}`,
      );

      // Every refusal's Retry-After: the first request sent after waiting it
      // was accepted, and it was not much later than the wait (one pacing step).
      const refused = calls.filter((call) => call.status === 429);
      for (const refusal of refused) {
        assert.ok(refusal.retryAfter !== null && refusal.retryAfter >= 1);
        const waitedEnough = refusal.answered + refusal.retryAfter * 1000;
        const next = calls.filter((call) =>
          call.sent >= waitedEnough
        ).sort((a, b) => a.sent - b.sent)[0];
        if (next === undefined) continue; // its wait outlasted the run
        assert.equal(
          next.status,
          403,
          `refused at ${refusal.answered - start} ms after Retry-After ${refusal.retryAfter}`,
        );
        const firstAcceptance = accepted.find((call) => call.sent > refusal.answered);
        assert.ok(firstAcceptance !== undefined);
        assert.ok(
          waitedEnough - firstAcceptance.sent < 3000,
          `Retry-After ${refusal.retryAfter} s at ${
            refusal.answered - start
          } ms, but a request at ${firstAcceptance.sent - start} ms was accepted`,
        );
      }
    } catch (error) {
      // What the servers logged at error (a limiter that failed, with its kind).
      for (const each of servers) {
        console.log(each.stderr.join("").slice(0, 4000));
      }
      throw error;
    } finally {
      await Promise.all(servers.map((each) => each.stop()));
      const redis = new Redis({ url: bridge.url, token: bridge.token, enableTelemetry: false });
      const keys = await redis.keys(`ratelimit:*:scan:${client.replace(/::1$/, "")}*`);
      if (keys.length > 0) await redis.del(...keys);
      await bridge.close();
    }
  },
});
