/** The Db port over a direct PostgreSQL connection (npm `postgres`, postgres.js). */
import postgres from "postgres";
import { type Db, DbError } from "./db.ts";
import { safeServerMessage } from "./server_error.ts";
import { rpcStatement } from "./rpc_statement.ts";

/** Connection options of the postgres adapter. */
export interface PostgresDbOptions {
  /** Pool size; default 10. */
  max?: number;
  /** Seconds before a connection attempt fails; default 10. */
  connectTimeoutSeconds?: number;
  /** Seconds before an idle connection is closed; default 30. */
  idleTimeoutSeconds?: number;
  /**
   * Use prepared statements; default true. Set false behind a transaction
   * pooler (Supabase's port 6543), which cannot keep them.
   */
  prepare?: boolean;
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

/**
 * A Db calling `public.<name>(arg => $n, ...)` over a postgres.js pool.
 * `close()` ends the pool.
 *
 * @example
 * ```ts
 * const db = createPostgresDb(Deno.env.get("DATABASE_URL")!);
 * const account = await db.rpc("api_key_account", { p_key_digest: digest });
 * ```
 */
export function createPostgresDb(url: string, options: PostgresDbOptions = {}): Db {
  const sql = postgres(url, {
    max: options.max ?? 10,
    connect_timeout: options.connectTimeoutSeconds ?? 10,
    idle_timeout: options.idleTimeoutSeconds ?? 30,
    prepare: options.prepare ?? true,
    onnotice: () => {},
  });
  return {
    async rpc<T = unknown>(name: string, args?: Record<string, unknown>): Promise<T> {
      // sql.json types the parameter as jsonb, so postgres.js serialises it
      // once, whatever type the server describes.
      const statement = rpcStatement(name, args, (value) => sql.json(value as never));
      try {
        const rows = await sql.unsafe<{ result: T }[]>(statement.text, statement.values as never[]);
        return rows[0]?.result as T;
      } catch (error) {
        throw toDbError(error);
      }
    },
    async close(): Promise<void> {
      await sql.end({ timeout: 5 });
    },
  };
}
