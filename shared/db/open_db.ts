import type { Config } from "../config.ts";
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
