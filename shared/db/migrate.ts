/**
 * Applies `supabase/migrations/*.sql` in filename order to a PGlite instance
 * or a postgres.js connection, recording each applied file (name and SHA-256)
 * in `app_private.schema_migrations`. On Supabase the CLI applies the same
 * files; this runner serves the embedded database, plain PostgreSQL and tests.
 */
import type { PGlite } from "@electric-sql/pglite";
import type { Sql } from "postgres";

/** One migration file. */
export interface Migration {
  /** File name, e.g. `20261121000001_roles.sql`; the sort key. */
  name: string;
  sql: string;
}

/** Where the migrations are read from. */
export interface MigrateOptions {
  /** Directory of `*.sql` files; default: the project's `supabase/migrations/`. */
  dir?: string | URL;
}

/** The project's migration directory. */
export const MIGRATIONS_DIR: URL = new URL("../../supabase/migrations/", import.meta.url);

const MIGRATION_NAME = /^[0-9]{14}_[a-z0-9_]+\.sql$/;

const LEDGER_SQL = `
create schema if not exists app_private;
revoke all on schema app_private from public;
create table if not exists app_private.schema_migrations (
  name text primary key,
  sha256 text not null,
  applied_at timestamptz not null default now()
);
alter table app_private.schema_migrations enable row level security;
revoke all on table app_private.schema_migrations from public;
`;

/** Reads the migration files of a directory, sorted by name. */
export async function readMigrations(dir: string | URL = MIGRATIONS_DIR): Promise<Migration[]> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(dir)) {
    if (!entry.isFile || !entry.name.endsWith(".sql")) continue;
    if (!MIGRATION_NAME.test(entry.name)) {
      throw new Error(`Migration file name must be <14 digits>_<snake_case>.sql: ${entry.name}`);
    }
    names.push(entry.name);
  }
  names.sort();
  const fileOf = (name: string) =>
    typeof dir === "string"
      ? `${dir.replace(/\/+$/, "")}/${name}`
      : new URL(name, dir.href.endsWith("/") ? dir : `${dir.href}/`);
  return await Promise.all(
    names.map(async (name) => ({ name, sql: await Deno.readTextFile(fileOf(name)) })),
  );
}

/** The statements a migration runner needs from a connection. */
interface Executor {
  /** Runs a multi-statement script. */
  exec(sql: string): Promise<void>;
  /** Runs one parameterised statement and returns its rows. */
  query<R>(sql: string, params: unknown[]): Promise<R[]>;
  /** Runs `fn` in one transaction on one connection. */
  transaction(fn: (tx: Executor) => Promise<void>): Promise<void>;
}

function pgliteExecutor(pg: Pick<PGlite, "exec" | "query" | "transaction">): Executor {
  return {
    exec: async (sql) => {
      await pg.exec(sql);
    },
    query: async <R>(sql: string, params: unknown[]) => (await pg.query<R>(sql, params)).rows,
    transaction: async (fn) => {
      await pg.transaction(async (tx) => {
        await fn({
          exec: async (sql) => {
            await tx.exec(sql);
          },
          query: async <R>(sql: string, params: unknown[]) => (await tx.query<R>(sql, params)).rows,
          transaction: () => Promise.reject(new Error("Nested transactions are not supported")),
        });
      });
    },
  };
}

function postgresExecutor(sql: Sql): Executor {
  const wrap = (conn: Sql): Omit<Executor, "transaction"> => ({
    exec: async (text) => {
      await conn.unsafe(text);
    },
    query: async <R>(text: string, params: unknown[]) =>
      (await conn.unsafe(text, params as never[])) as unknown as R[],
  });
  return {
    ...wrap(sql),
    transaction: async (fn) => {
      await sql.begin(async (tx) => {
        await fn({
          ...wrap(tx as unknown as Sql),
          transaction: () => Promise.reject(new Error("Nested transactions are not supported")),
        });
      });
    },
  };
}

async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * Applies every migration not yet recorded, each in its own transaction, and
 * returns the names applied now. Refuses (throws) when a recorded migration's
 * file has changed since it was applied: migrations are append-only.
 * Concurrent runners on one database serialise on a lock of the ledger table.
 *
 * @example
 * ```ts
 * const pg = await PGlite.create(".data/pglite");
 * await migrate(pg);
 * ```
 */
export async function migrate(
  target: PGlite | Sql,
  options: MigrateOptions = {},
): Promise<string[]> {
  const executor = typeof target === "function"
    ? postgresExecutor(target as Sql)
    : pgliteExecutor(target as PGlite);
  const migrations = await readMigrations(options.dir);
  await executor.exec(LEDGER_SQL);
  const applied: string[] = [];
  for (const migration of migrations) {
    const digest = await sha256Hex(migration.sql);
    await executor.transaction(async (tx) => {
      await tx.exec("lock table app_private.schema_migrations in exclusive mode");
      const rows = await tx.query<{ sha256: string }>(
        "select sha256 from app_private.schema_migrations where name = $1",
        [migration.name],
      );
      if (rows.length > 0) {
        if (rows[0].sha256 !== digest) {
          throw new Error(`Migration ${migration.name} changed after it was applied`);
        }
        return;
      }
      await tx.exec(migration.sql);
      await tx.query(
        "insert into app_private.schema_migrations (name, sha256) values ($1, $2)",
        [migration.name, digest],
      );
      applied.push(migration.name);
    });
  }
  return applied;
}
