/**
 * The Db port: every read and write of the service is a Postgres function
 * (RPC) called with named arguments. Adapters: PGlite (embedded), postgres.js
 * (direct connection) and supabase-js (`.rpc`).
 */
export interface Db {
  /** Calls `public.<name>(arg => value, ...)` and returns its jsonb result. */
  rpc<T = unknown>(name: string, args?: Record<string, unknown>): Promise<T>;
  /** Releases connections; the port is unusable afterwards. */
  close(): Promise<void>;
}

/** A database failure: connection, SQL error or a raised exception in an RPC. */
export class DbError extends Error {
  constructor(message: string, readonly code?: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "DbError";
  }
}
