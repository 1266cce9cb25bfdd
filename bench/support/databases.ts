/**
 * The databases of bench/http.ts: a fresh, migrated database on the
 * PostgreSQL of BENCH_DATABASE_URL (or TEST_DATABASE_URL), loopback only and
 * dropped at the end, and an in-memory PGlite.
 */
import { PGlite } from "@electric-sql/pglite";
import postgres from "postgres";
import type { Db } from "../../shared/db/db.ts";
import { migrate } from "../../shared/db/migrate.ts";
import { createPgliteDb } from "../../shared/db/pglite_db.ts";
import { createPostgresDb } from "../../shared/db/postgres_db.ts";

/** A benchmark database: the Db port, `select 1` over the same driver, owner SQL for setup. */
export interface BenchDb {
  name: "postgres" | "pglite";
  /** The database's URL (postgres only). */
  url?: string;
  db: Db;
  /** One `select 1` round trip, through a pool (or instance) like the service's. */
  select1(): Promise<void>;
  /** Owner SQL, for setup. */
  sql(text: string, params?: unknown[]): Promise<unknown[]>;
  close(): Promise<void>;
}

/** The PostgreSQL server URL of the run, refused unless it is on a loopback IP; undefined when unset. */
export function benchPostgresUrl(): URL | undefined {
  const raw = Deno.env.get("BENCH_DATABASE_URL") || Deno.env.get("TEST_DATABASE_URL");
  if (!raw) return undefined;
  const url = new URL(raw);
  const loopback = /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(url.hostname) ||
    url.hostname === "[::1]";
  if (
    !["postgres:", "postgresql:"].includes(url.protocol) || !loopback ||
    url.searchParams.has("host") || url.searchParams.has("hostaddr")
  ) {
    throw new Error(
      "BENCH_DATABASE_URL must be a postgres URL on a loopback IP (127.0.0.1 or [::1])",
    );
  }
  return url;
}

/** A fresh migrated database on the server at `server`, pool of `poolSize` for the service and for `select 1`. */
export async function openPostgresBench(server: URL, poolSize = 10): Promise<BenchDb> {
  const name = `cas_bench_${crypto.randomUUID().replaceAll("-", "")}`;
  const admin = postgres(server.href, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name}`);
  const url = new URL(server.href);
  url.pathname = `/${name}`;
  const owner = postgres(url.href, { max: 1, onnotice: () => {} });
  await migrate(owner);
  const db = createPostgresDb(url.href, { max: poolSize });
  const baseline = postgres(url.href, { max: poolSize, onnotice: () => {} });
  return {
    name: "postgres",
    url: url.href,
    db,
    async select1() {
      await baseline`select 1`;
    },
    async sql(text, params = []) {
      return await owner.unsafe(text, params as never[]);
    },
    async close() {
      await db.close();
      await baseline.end({ timeout: 5 });
      await owner.end({ timeout: 5 });
      await admin.unsafe(`drop database if exists ${name} with (force)`);
      await admin.end({ timeout: 5 });
    },
  };
}

/** An in-memory PGlite, migrated; `select 1` goes to the same instance as the service. */
export async function openPgliteBench(): Promise<BenchDb> {
  const pg = await PGlite.create();
  await migrate(pg);
  const db = createPgliteDb(pg);
  return {
    name: "pglite",
    db,
    async select1() {
      await pg.query("select 1");
    },
    async sql(text, params = []) {
      return (await pg.query(text, params)).rows;
    },
    close: () => db.close(),
  };
}

/** A Db that counts its RPC calls (each one database round trip for the direct drivers). */
export function countingDb(db: Db): Db & { calls: number } {
  const counting = {
    calls: 0,
    rpc<T = unknown>(name: string, args?: Record<string, unknown>): Promise<T> {
      counting.calls += 1;
      return db.rpc<T>(name, args);
    },
    close: () => db.close(),
  };
  return counting;
}
