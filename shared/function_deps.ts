import { loadConfig, processEnv } from "./config.ts";
import type { ServiceDeps } from "./handlers/deps.ts";
import { openRemoteDb } from "./db/open_db.ts";
import { serviceDeps } from "./service_deps.ts";

let cached: ServiceDeps | undefined;

/**
 * The dependencies of a deployed function (or one under `supabase functions
 * serve`), built once per isolate from its environment so that connections
 * are reused across requests.
 */
export function functionDeps(): ServiceDeps {
  if (cached === undefined) {
    const config = loadConfig(processEnv());
    cached = serviceDeps(config, openRemoteDb(config), { runtime: "function" });
  }
  return cached;
}
