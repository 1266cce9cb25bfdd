/**
 * A Db whose adapter module is imported on demand, so that a deployed
 * function's module graph carries only the driver it runs with (postgres.js
 * or supabase-js, never both, never PGlite). The import starts at once, in
 * the background, so it overlaps the isolate's start; the first RPC waits
 * for it.
 */
import type { Db } from "./db.ts";

/** A Db over the adapter `open` resolves to; `open` is called once, right away. */
export function lazyDb(open: () => Promise<Db>): Db {
  const opened = open();
  // A failed import is reported by the first RPC that needs it, not as an
  // unhandled rejection at start.
  opened.catch(() => {});
  return {
    async rpc<T = unknown>(name: string, args?: Record<string, unknown>): Promise<T> {
      return await (await opened).rpc<T>(name, args);
    },
    async close(): Promise<void> {
      await (await opened).close();
    },
  };
}
