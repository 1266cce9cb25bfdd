/** The Db port over PGlite, the embedded PostgreSQL of the local process and tests. */
import { PGlite } from "@electric-sql/pglite";
import { type Db, DbError } from "./db.ts";
import { safeServerMessage } from "./server_error.ts";
import { migrate } from "./migrate.ts";
import { rpcStatement } from "./rpc_statement.ts";
import { type SessionLock, withSession } from "./pglite_session.ts";

/** Options of {@linkcode createPgliteDb}. */
export interface PgliteDbOptions {
  /**
   * The session lock shared with the PGlite's socket clients (the local
   * server); each RPC waits at most `timeoutMs` for it.
   */
  session?: { lock: SessionLock; timeoutMs: number };
}

/** Maps a PGlite error (a DatabaseError with a SQLSTATE) to a DbError. */
function toDbError(error: unknown): DbError {
  if (error instanceof DbError) return error;
  const code = typeof (error as { code?: unknown })?.code === "string"
    ? (error as { code: string }).code
    : undefined;
  // A SQL error keeps the server's message, minus quoted input; anything else
  // is summarised and kept only as the cause.
  if (error instanceof Error && code !== undefined) {
    return new DbError(safeServerMessage(code, error.message), code);
  }
  return new DbError("Embedded database failure", undefined, { cause: error });
}

/**
 * A Db calling the RPCs of a PGlite instance. `close()` closes the instance.
 *
 * @example
 * ```ts
 * const db = createPgliteDb(await openPglite(".data/pglite"));
 * const active = await db.rpc<{ version: number } | null>("rulebook_active");
 * ```
 */
export function createPgliteDb(pg: PGlite, options: PgliteDbOptions = {}): Db {
  const { session } = options;
  return {
    async rpc<T = unknown>(name: string, args?: Record<string, unknown>): Promise<T> {
      const statement = rpcStatement(name, args);
      const run = () => pg.query<{ result: T }>(statement.text, statement.values);
      try {
        const result = session === undefined
          ? await run()
          : await withSession(session.lock, session.timeoutMs, run);
        return result.rows[0]?.result as T;
      } catch (error) {
        throw toDbError(error);
      }
    },
    async close(): Promise<void> {
      if (!pg.closed) await pg.close();
    },
  };
}

/**
 * Opens PGlite (in memory without `dataDir`, else persisted there, creating
 * the directory) and applies the pending migrations.
 */
export async function openPglite(dataDir?: string): Promise<PGlite> {
  if (dataDir !== undefined) await Deno.mkdir(dataDir, { recursive: true });
  const pg = dataDir === undefined ? await PGlite.create() : await PGlite.create(dataDir);
  try {
    await migrate(pg);
  } catch (error) {
    await pg.close();
    throw error;
  }
  return pg;
}
