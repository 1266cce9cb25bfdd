/** The Db port over a direct PostgreSQL connection (npm `postgres`, postgres.js). */
import postgres from "postgres";
import { type Db, DbError } from "./db.ts";
import { safeServerMessage } from "./server_error.ts";
import { rpcStatement } from "./rpc_statement.ts";
import { createCallBatcher } from "./call_batcher.ts";
import {
  callDeadlineMs,
  DEFAULT_DB_CONNECT_TIMEOUT_MS,
  DEFAULT_DB_STATEMENT_TIMEOUT_MS,
} from "./deadlines.ts";

/** Connection options of the postgres adapter. */
export interface PostgresDbOptions {
  /** Pool size; default 10. */
  max?: number;
  /** Milliseconds to open a connection (TCP, TLS, startup, auth); default 3000. */
  connectTimeoutMs?: number;
  /** The server's `statement_timeout` of every statement, in milliseconds; default 5000. */
  statementTimeoutMs?: number;
  /** Seconds before an idle connection is closed; default 30. */
  idleTimeoutSeconds?: number;
  /**
   * Use prepared statements; default true, except for a URL on port 6543
   * (Supabase's transaction pooler, which cannot keep them). Set false behind
   * any other transaction pooler.
   */
  prepare?: boolean;
  /** While the database is unreachable, how often it is probed; default 500 ms. */
  retryIntervalMs?: number;
  /**
   * Group commit of complianceAudit's two RPCs (call_batcher.ts, migrations
   * 20261127000101 and 20261127000201): audit_record and audit_key_account
   * calls that arrive while one of the same is in flight go together as one
   * call of audit_record_batch or audit_key_account_batch. Default on, 1 in
   * flight, 64 a batch; false sends every call alone.
   */
  groupCommit?: false | { maxInFlight?: number; maxBatch?: number };
}

/**
 * The RPCs whose concurrent calls are sent together, each with the batch RPC
 * that takes them: complianceAudit's two round trips.
 */
const GROUPED_RPCS: Record<string, string> = {
  audit_key_account: "audit_key_account_batch",
  audit_record: "audit_record_batch",
};

/** audit_record_batch's answer for a call whose account does not exist (audit_record raises P0002). */
function batchAnswer(answer: unknown): unknown {
  if (
    answer !== null && typeof answer === "object" &&
    (answer as { failed?: unknown }).failed === "P0002"
  ) {
    return new DbError("account not found", "P0002");
  }
  return answer;
}

/** Whether a URL names port 6543, Supabase's transaction pooler (no prepared statements). */
function isTransactionPoolerUrl(url: string): boolean {
  try {
    return new URL(url).port === "6543";
  } catch {
    return false;
  }
}

/** The SQLSTATE of every answer given while the database is unreachable. */
export const DB_UNAVAILABLE_CODE = "08006";

/**
 * Server errors that say the server or the connection is gone (class 08
 * connection exception, shutdown, starting up, too many connections), as
 * opposed to a statement's own error (a timeout, a raised exception).
 */
function isServerConnectionLoss(code: string): boolean {
  return code.startsWith("08") || ["57P01", "57P02", "57P03", "53300"].includes(code);
}

/** Maps a postgres.js error to a DbError that carries no argument value. */
function toDbError(error: unknown): DbError {
  if (error instanceof DbError) return error;
  const code = typeof (error as { code?: unknown })?.code === "string"
    ? (error as { code: string }).code
    : undefined;
  // A server error keeps the server's message, minus quoted input; postgres.js
  // keeps the query parameters on its error object, so it is never the cause.
  if (error instanceof Error && error.name === "PostgresError") {
    return new DbError(safeServerMessage(code, error.message), code);
  }
  return new DbError("Database connection failed", code, { cause: error });
}

/** True for a failure of the connection rather than of the statement. */
function isConnectionFailure(error: unknown): boolean {
  if (error instanceof DbError) return error.code === DB_UNAVAILABLE_CODE;
  const code = (error as { code?: unknown })?.code;
  if (typeof code !== "string") return false;
  if (error instanceof Error && error.name === "PostgresError") return isServerConnectionLoss(code);
  // postgres.js's own (CONNECT_TIMEOUT, CONNECTION_CLOSED, CONNECTION_DESTROYED,
  // ...) and the socket's (ECONNREFUSED, ECONNRESET, EPIPE, ETIMEDOUT, ...).
  return code.startsWith("CONNECT") || /^E[A-Z]+$/.test(code);
}

/**
 * A Db calling `public.<name>(arg => $n, ...)` over a postgres.js pool, with
 * deadlines and a fail-fast state:
 *
 * - every connection is opened within `connectTimeoutMs`, every statement is
 *   ended by the server after `statementTimeoutMs` (`statement_timeout`), and
 *   every call, waiting for a pooled connection included, is abandoned by the
 *   client after connect + statement + 1 s (a black-holed socket answers
 *   nothing, not even the server's timeout). An abandoned call that has not
 *   started is taken out of the queue, so it never runs later; one that has
 *   started was already ended by the server's statement_timeout, if the
 *   server could hear it at all.
 * - a lost connection or an abandoned call makes the database "unreachable":
 *   the pool is replaced (its queued and running calls fail at once), every
 *   new call fails at once with SQLSTATE 08006 instead of queueing behind a
 *   reconnect, and a probe (`select 1`, same deadline) runs every
 *   `retryIntervalMs` until the database answers. Then calls go through
 *   again: recovery needs no restart.
 *
 * `close()` ends the pool and the probe.
 *
 * @example
 * ```ts
 * const db = createPostgresDb(Deno.env.get("DATABASE_URL")!);
 * const account = await db.rpc("api_key_account", { p_key_digest: digest });
 * ```
 */
export function createPostgresDb(url: string, options: PostgresDbOptions = {}): Db {
  const connectTimeoutMs = options.connectTimeoutMs ?? DEFAULT_DB_CONNECT_TIMEOUT_MS;
  const statementTimeoutMs = options.statementTimeoutMs ?? DEFAULT_DB_STATEMENT_TIMEOUT_MS;
  const deadlineMs = callDeadlineMs({ connectTimeoutMs, statementTimeoutMs });
  const retryIntervalMs = options.retryIntervalMs ?? 500;
  const prepare = options.prepare ?? !isTransactionPoolerUrl(url);
  const newPool = () =>
    postgres(url, {
      max: options.max ?? 10,
      connect_timeout: connectTimeoutMs / 1000,
      idle_timeout: options.idleTimeoutSeconds ?? 30,
      prepare,
      connection: { statement_timeout: statementTimeoutMs },
      onnotice: () => {},
    });

  /** A pool and the calls in flight on it. */
  interface Pool {
    sql: postgres.Sql;
    calls: Set<(error: DbError) => void>;
  }
  let pool: Pool = { sql: newPool(), calls: new Set() };
  const retiring: Promise<void>[] = [];
  let unreachable = false;
  let closed = false;
  let probe: Promise<void> | undefined;
  let wake: (() => void) | undefined;

  /**
   * Fails every call in flight on the pool at once, ends it and opens a fresh
   * one. Ending alone is not enough: postgres.js keeps calls queued behind a
   * refused connection and retries them with its backoff, for many seconds.
   */
  const replacePool = () => {
    const old = pool;
    pool = { sql: newPool(), calls: new Set() };
    for (const abandon of old.calls) {
      abandon(new DbError("Database unreachable; reconnecting", DB_UNAVAILABLE_CODE));
    }
    retiring.push(old.sql.end({ timeout: 0 }).catch(() => {}));
  };

  /**
   * Runs `query` on `on` until it answers, the call deadline passes or the
   * pool is replaced. An abandoned call still queued (or assigned but not yet
   * sent) is taken out, so it never runs later; this opens no connection. One
   * already running is left to the server's statement_timeout, which ended it
   * before this deadline if the server could hear it at all: postgres.js would
   * cancel it over a new connection, whose failure on an unreachable server
   * escapes as an unhandled rejection.
   */
  const run = async <R>(on: Pool, query: postgres.PendingQuery<postgres.Row[]>) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    let abandon: (error: DbError) => void = () => {};
    const abandoned = new Promise<never>((_, reject) => {
      abandon = (error) => {
        if (!(query as unknown as { active?: boolean }).active) {
          // Typed void, but a promise that may reject.
          Promise.resolve(query.cancel() as unknown).catch(() => {});
        }
        reject(error);
      };
      timer = setTimeout(
        () => abandon(new DbError("Database call timed out", DB_UNAVAILABLE_CODE)),
        deadlineMs,
      );
    });
    on.calls.add(abandon);
    try {
      return (await Promise.race([query, abandoned])) as unknown as R;
    } finally {
      clearTimeout(timer);
      on.calls.delete(abandon);
    }
  };

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        wake = undefined;
        resolve();
      }, ms);
      wake = () => {
        clearTimeout(timer);
        wake = undefined;
        resolve();
      };
    });

  const runProbe = async () => {
    while (unreachable && !closed) {
      await sleep(retryIntervalMs);
      if (closed) return;
      try {
        await run(pool, pool.sql.unsafe("select 1"));
        unreachable = false;
      } catch {
        replacePool();
      }
    }
  };

  const markUnreachable = () => {
    if (unreachable || closed) return;
    unreachable = true;
    replacePool();
    probe = runProbe();
  };

  /** One RPC call: one statement on one pooled connection. */
  const call = async <T = unknown>(name: string, args?: Record<string, unknown>): Promise<T> => {
    if (closed) throw new DbError("Database connection closed", DB_UNAVAILABLE_CODE);
    if (unreachable) {
      throw new DbError("Database unreachable; reconnecting", DB_UNAVAILABLE_CODE);
    }
    // sql.json types the parameter as jsonb, so postgres.js serialises it
    // once, whatever type the server describes.
    const on = pool;
    const statement = rpcStatement(name, args, (value) => on.sql.json(value as never));
    try {
      const rows = await run<{ result: T }[]>(
        on,
        // sql.unsafe defaults to prepare: false, which makes every call
        // describe its statement first (an extra round trip). Prepared, a
        // statement text is described once per connection and each later
        // call is one round trip; postgres.js re-prepares a statement the
        // server invalidated (e.g. a function replaced by a migration).
        on.sql.unsafe(statement.text, statement.values as never[], { prepare }),
      );
      return rows[0]?.result as T;
    } catch (error) {
      if (isConnectionFailure(error) && on === pool) markUnreachable();
      throw toDbError(error);
    }
  };

  const batchers = new Map(
    options.groupCommit === false ? [] : Object.entries(GROUPED_RPCS).map(([name, batchName]) => [
      name,
      createCallBatcher<Record<string, unknown> | undefined, unknown>({
        single: (args) => call(name, args),
        many: async (calls) => {
          const answers = await call<unknown[]>(batchName, {
            p_calls: calls.map((args, i) => ({ ...args, n: i + 1 })),
          });
          if (!Array.isArray(answers)) throw new DbError(`${batchName} answered no array`);
          return answers.map(batchAnswer);
        },
        ...options.groupCommit,
      }),
    ]),
  );

  return {
    rpc<T = unknown>(name: string, args?: Record<string, unknown>): Promise<T> {
      const batcher = batchers.get(name);
      return batcher === undefined ? call<T>(name, args) : batcher.call(args) as Promise<T>;
    },
    async close(): Promise<void> {
      closed = true;
      wake?.();
      await probe;
      await pool.sql.end({ timeout: 5 });
      await Promise.all(retiring);
    },
  };
}
