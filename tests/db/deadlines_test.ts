/**
 * The remote drivers' deadlines without a database behind them: a loopback
 * peer that accepts and never answers (a black hole) fails a call within the
 * call deadline, as a DbError that names no URL or key, for supabase-js
 * (fetch with an AbortSignal) and for postgres.js (connect deadline); a
 * postgres Db that lost its database fails the next calls at once.
 */
import assert from "node:assert/strict";
import { DbError } from "../../shared/db/db.ts";
import { callDeadlineMs } from "../../shared/db/deadlines.ts";
import { createPostgresDb, DB_UNAVAILABLE_CODE } from "../../shared/db/postgres_db.ts";
import { createSupabaseDbFromEnv } from "../../shared/db/supabase_db.ts";
import { startTcpProxy } from "../support/tcp_proxy.ts";

const DEADLINES = { connectTimeoutMs: 300, statementTimeoutMs: 300 };
const BOUND_MS = callDeadlineMs(DEADLINES) + 3000;
const SECRET = "service-role-key-never-shown-8812";

async function timedFailure(call: () => Promise<unknown>) {
  const started = performance.now();
  const error = await call().then(() => null, (e) => e);
  return { error, ms: performance.now() - started };
}

Deno.test("supabase driver: a gateway that never answers fails the call within the deadline", async () => {
  const hole = startTcpProxy({ hostname: "127.0.0.1", port: 9 });
  hole.pause();
  try {
    const db = createSupabaseDbFromEnv(`http://127.0.0.1:${hole.port}`, SECRET, DEADLINES);
    const { error, ms } = await timedFailure(() => db.rpc("service_ping"));
    assert.ok(error instanceof DbError, String(error));
    assert.ok(ms <= BOUND_MS, `failed after ${Math.round(ms)} ms`);
    assert.equal(String(error.message).includes(SECRET), false);
    await db.close();
  } finally {
    await hole.close();
  }
});

Deno.test({
  name:
    "postgres driver: a server that never answers fails within the connect deadline, then at once",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const hole = startTcpProxy({ hostname: "127.0.0.1", port: 9 });
    hole.pause();
    const db = createPostgresDb(`postgres://postgres:${SECRET}@127.0.0.1:${hole.port}/postgres`, {
      ...DEADLINES,
      retryIntervalMs: 60_000,
    });
    try {
      const first = await timedFailure(() => db.rpc("service_ping"));
      assert.ok(first.error instanceof DbError, String(first.error));
      assert.ok(first.ms <= BOUND_MS, `failed after ${Math.round(first.ms)} ms`);
      assert.equal(String(first.error.message).includes(SECRET), false);

      // Unreachable: 100 calls fail at once, and none opens a connection.
      const accepted = hole.accepted();
      const next = await Promise.all(
        Array.from({ length: 100 }, () => timedFailure(() => db.rpc("service_ping"))),
      );
      for (const { error } of next) {
        assert.ok(error instanceof DbError);
        assert.equal(error.code, DB_UNAVAILABLE_CODE);
      }
      assert.equal(hole.accepted(), accepted, "no new connection while unreachable");
    } finally {
      await hole.close();
      await db.close();
    }
  },
});

Deno.test({
  name:
    "postgres driver: 60 calls on a cold pool to a refusing server all fail at once, none queued behind a reconnect",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const closed = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const port = closed.addr.port;
    closed.close();
    // Long deadlines: an answer before them cannot have come from a timer.
    const db = createPostgresDb(`postgres://postgres@127.0.0.1:${port}/postgres`, {
      connectTimeoutMs: 10_000,
      statementTimeoutMs: 10_000,
      retryIntervalMs: 60_000,
    });
    try {
      const calls = await Promise.all(
        Array.from({ length: 60 }, () => timedFailure(() => db.rpc("service_ping"))),
      );
      for (const { error, ms } of calls) {
        assert.ok(error instanceof DbError, String(error));
        assert.ok(ms < 10_000, `failed after ${Math.round(ms)} ms`);
      }
    } finally {
      await db.close();
    }
  },
});
