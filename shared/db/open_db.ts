import type { Config } from "../config.ts";
import type { Db } from "./db.ts";
import { createPostgresDb } from "./postgres_db.ts";
import { createSupabaseDbFromEnv } from "./supabase_db.ts";

/**
 * A networked database (`postgres` or `supabase`), which expects its
 * migrations applied (`supabase db push`, or `deno task admin migrate`). The
 * deployed functions use this one, so their bundle never carries PGlite.
 * Both keep the deadlines DB_CONNECT_TIMEOUT_MS and DB_STATEMENT_TIMEOUT_MS
 * (shared/db/deadlines.ts).
 */
export function openRemoteDb(config: Config): Db {
  const deadlines = {
    connectTimeoutMs: config.DB_CONNECT_TIMEOUT_MS,
    statementTimeoutMs: config.DB_STATEMENT_TIMEOUT_MS,
  };
  switch (config.DB_DRIVER) {
    case "postgres":
      return createPostgresDb((config.DATABASE_URL ?? config.SUPABASE_DB_URL)!, deadlines);
    case "supabase":
      return createSupabaseDbFromEnv(
        config.SUPABASE_URL!,
        config.SUPABASE_SERVICE_ROLE_KEY!,
        deadlines,
      );
    case "pglite":
      throw new Error(
        "DB_DRIVER pglite runs only in the local process; set SUPABASE_URL and SUPABASE_SERVICE_ROLE_KEY or DATABASE_URL",
      );
  }
}

/**
 * The database the configuration names; the embedded `pglite` driver opens
 * DATA_DIR and applies pending migrations.
 */
export async function openDb(config: Config): Promise<Db> {
  if (config.DB_DRIVER !== "pglite") return openRemoteDb(config);
  const { createPgliteDb, openPglite } = await import("./pglite_db.ts");
  return createPgliteDb(await openPglite(config.DATA_DIR));
}
