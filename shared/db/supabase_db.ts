/** The Db port over supabase-js: `client.rpc(name, args)` through PostgREST. */
import { createClient } from "@supabase/supabase-js";
import { type Db, DbError } from "./db.ts";
import { safeServerMessage } from "./server_error.ts";
import { assertIdentifier } from "./rpc_statement.ts";
import { callDeadlineMs, type DbDeadlines } from "./deadlines.ts";

/** The error of a PostgREST response (a PostgrestError). */
export interface RpcClientError {
  message: string;
  code?: string;
}

/** The part of a SupabaseClient the adapter uses. */
export interface RpcClient {
  rpc(
    name: string,
    args?: Record<string, unknown>,
  ): PromiseLike<{ data: unknown; error: RpcClientError | null }>;
}

/**
 * Arguments as PostgREST receives them (a JSON body): Dates as ISO strings,
 * `undefined` left out; objects stay objects so jsonb parameters get JSON,
 * not a JSON string.
 */
function encodeArgs(args: Record<string, unknown>): Record<string, unknown> {
  const encoded: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(args)) {
    assertIdentifier(key, "argument");
    if (value === undefined) continue;
    if (typeof value === "number" && !Number.isFinite(value)) {
      throw new DbError("Invalid argument value: non-finite number");
    }
    encoded[key] = value instanceof Date
      ? value.toISOString()
      : typeof value === "bigint"
      ? value.toString()
      : value;
  }
  return encoded;
}

/**
 * A Db calling the RPCs through a Supabase client (PostgREST). `close()` is a
 * no-op: supabase-js holds no connection.
 */
export function createSupabaseDb(client: RpcClient): Db {
  return {
    async rpc<T = unknown>(name: string, args: Record<string, unknown> = {}): Promise<T> {
      assertIdentifier(name, "RPC");
      const body = encodeArgs(args);
      let response: { data: unknown; error: RpcClientError | null };
      try {
        response = await client.rpc(name, body);
      } catch (error) {
        throw new DbError("Database request failed", undefined, { cause: error });
      }
      if (response.error) {
        const code = typeof response.error.code === "string" && response.error.code !== ""
          ? response.error.code
          : undefined;
        const message = String(response.error.message || "Database request failed");
        throw new DbError(safeServerMessage(code, message), code);
      }
      return (response.data ?? null) as T;
    },
    close(): Promise<void> {
      return Promise.resolve();
    },
  };
}

/**
 * `fetch` that gives up after `timeoutMs`: PostgREST sets the database's
 * statement timeout on its side, and this bounds the whole HTTP exchange
 * (connect, TLS, request, answer), so a stalled gateway fails the call.
 */
export function fetchWithDeadline(timeoutMs: number, base: typeof fetch = fetch): typeof fetch {
  return (input, init) => {
    const deadline = AbortSignal.timeout(timeoutMs);
    const signal = init?.signal ? AbortSignal.any([init.signal, deadline]) : deadline;
    return base(input, { ...init, signal });
  };
}

/**
 * A Db over a new supabase-js client with the service-role key (the only role
 * allowed to execute the RPCs); no session is persisted. Each call is
 * abandoned after connect + statement + 1 s (shared/db/deadlines.ts).
 */
export function createSupabaseDbFromEnv(
  url: string,
  serviceRoleKey: string,
  deadlines: DbDeadlines,
): Db {
  const client = createClient(url, serviceRoleKey, {
    auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
    global: { fetch: fetchWithDeadline(callDeadlineMs(deadlines)) },
  });
  return createSupabaseDb(client as unknown as RpcClient);
}
