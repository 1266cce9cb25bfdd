import type { Config } from "../config.ts";
import { servicePing } from "./audits.ts";
import type { Db } from "./db.ts";
import { openRemoteDb } from "./remote_db.ts";

export { openRemoteDb };

/**
 * The database the configuration names; the embedded `pglite` driver opens
 * DATA_DIR and applies pending migrations. Only the local process and the
 * admin CLI use this; a deployed function uses remote_db.ts.
 */
export async function openDb(config: Config): Promise<Db> {
  if (config.DB_DRIVER !== "pglite") return openRemoteDb(config);
  const { createPgliteDb, openPglite } = await import("./pglite_db.ts");
  return createPgliteDb(await openPglite(config.DATA_DIR));
}

/** The variable that names a remote driver's database. */
function dbVariable(config: Config): string {
  if (config.DB_DRIVER === "supabase") return "SUPABASE_URL";
  return config.DATABASE_URL !== undefined ? "DATABASE_URL" : "SUPABASE_DB_URL";
}

/** What went wrong, in words, from a failed call's code (never its message). */
function failureKind(error: unknown): string {
  const direct = (error as { code?: unknown })?.code;
  const cause = (error as { cause?: { code?: unknown } })?.cause?.code;
  const codes = [direct, cause].filter((c): c is string => typeof c === "string");
  const has = (...wanted: string[]) => codes.some((c) => wanted.includes(c));
  if (has("ECONNREFUSED")) return "connection refused";
  if (has("CONNECT_TIMEOUT", "ETIMEDOUT")) return "no answer within DB_CONNECT_TIMEOUT_MS";
  if (has("ENOTFOUND", "EAI_AGAIN")) return "host not found";
  if (has("28P01", "28000")) return "authentication failed";
  if (has("3D000")) return "no such database";
  if (has("08006")) return "no answer within the database deadline";
  return "it failed";
}

/**
 * Checks at start that the database answers and has its migrations (one
 * `service_ping` under the usual deadlines). Returns null when it does, else
 * one line for the operator naming the variable to fix; never the URL, which
 * may carry a password.
 */
export async function checkRemoteDb(config: Config, db: Db): Promise<string | null> {
  const variable = dbVariable(config);
  try {
    await servicePing(db, undefined);
    return null;
  } catch (error) {
    const code = (error as { code?: unknown })?.code;
    if (code === "42883" || code === "PGRST202") {
      return `The database at ${variable} has no migrations applied (or older ones): run \`deno task admin migrate\` with DATABASE_URL set to it`;
    }
    return `The database at ${variable} is unreachable (${
      failureKind(error)
    }): start it, or set ${variable} to a database that answers`;
  }
}
