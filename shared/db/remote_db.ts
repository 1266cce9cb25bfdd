/**
 * The networked databases (`postgres`, `supabase`), each adapter imported only
 * when the configuration selects it. Kept apart from open_db.ts, which can
 * also open the embedded PGlite, so that a deployed function's module graph
 * never reaches PGlite.
 */
import type { Config } from "../config.ts";
import type { Db } from "./db.ts";
import { lazyDb } from "./lazy_db.ts";

/**
 * A networked database (`postgres` or `supabase`), which expects its
 * migrations applied (`supabase db push`, or `deno task admin migrate`). The
 * deployed functions use this one; its driver module is imported on demand.
 * Both keep the deadlines DB_CONNECT_TIMEOUT_MS and DB_STATEMENT_TIMEOUT_MS
 * (shared/db/deadlines.ts).
 */
export function openRemoteDb(config: Config): Db {
  const deadlines = {
    connectTimeoutMs: config.DB_CONNECT_TIMEOUT_MS,
    statementTimeoutMs: config.DB_STATEMENT_TIMEOUT_MS,
  };
  switch (config.DB_DRIVER) {
    case "postgres": {
      const url = (config.DATABASE_URL ?? config.SUPABASE_DB_URL)!;
      return lazyDb(async () =>
        (await import("./postgres_db.ts")).createPostgresDb(url, deadlines)
      );
    }
    case "supabase": {
      const url = config.SUPABASE_URL!;
      const key = config.SUPABASE_SERVICE_ROLE_KEY!;
      return lazyDb(async () =>
        (await import("./supabase_db.ts")).createSupabaseDbFromEnv(url, key, deadlines)
      );
    }
    case "pglite":
      throw new Error(
        "DB_DRIVER pglite runs only in the local process; set SUPABASE_URL and SUPABASE_SERVICE_ROLE_KEY or DATABASE_URL",
      );
  }
}
