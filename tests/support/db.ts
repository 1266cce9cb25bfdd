/**
 * Databases for DB-backed tests. Every test opens a FRESH, migrated database
 * on each target: always PGlite (a copy of a template migrated once per
 * process), and PostgreSQL when TEST_DATABASE_URL is set (a new database on
 * that server, dropped on close). TEST_DATABASE_URL must point to a loopback
 * address: tests never connect anywhere else.
 *
 * @example
 * ```ts
 * for (const target of dbTargets()) {
 *   Deno.test(`rulebook_active() is null on a new database [${target.name}]`, async () => {
 *     const t = await target.open();
 *     try {
 *       assert.equal(await t.db.rpc("rulebook_active"), null);
 *     } finally {
 *       await t.close();
 *     }
 *   });
 * }
 * ```
 */
import { PGlite } from "@electric-sql/pglite";
import postgres from "postgres";
import type { Db } from "../../shared/db/db.ts";
import { migrate } from "../../shared/db/migrate.ts";
import { createPgliteDb } from "../../shared/db/pglite_db.ts";
import { createPostgresDb } from "../../shared/db/postgres_db.ts";

/** A fresh database opened for one test. */
export interface TestDatabase {
  /** The Db port, as the application uses it. */
  db: Db;
  /**
   * Raw SQL as the owner, for test setup and inspection only. Runs on one
   * dedicated session, so `set role` / `set timezone` persist until reset.
   * Numeric and bigint columns may come back as strings: cast in SQL.
   */
  query<R = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<R[]>;
  /** Closes every connection and, on PostgreSQL, drops the database. */
  close(): Promise<void>;
  /** The database's connection URL, on PostgreSQL (a loopback address). */
  url?: string;
}

/** A database engine the tests run against. */
export interface DbTarget {
  name: "pglite" | "postgres";
  open(): Promise<TestDatabase>;
}

/** Options of a target's databases. */
export interface DbTargetOptions {
  /** Pool size of the postgres Db adapter; default 10. */
  poolSize?: number;
}

/**
 * Throws unless `url` is a postgres URL whose one host is a loopback IP
 * literal (127.0.0.0/8 or ::1); returns it parsed.
 */
export function assertLoopbackUrl(url: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error("TEST_DATABASE_URL is not a URL");
  }
  const loopback = /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(parsed.hostname) ||
    parsed.hostname === "[::1]";
  if (
    !["postgres:", "postgresql:"].includes(parsed.protocol) || !loopback ||
    parsed.searchParams.has("host") || parsed.searchParams.has("hostaddr")
  ) {
    throw new Error(
      "TEST_DATABASE_URL must be a postgres URL on a loopback IP (127.0.0.1 or [::1])",
    );
  }
  return parsed;
}

let templateDump: Promise<File | Blob> | undefined;

/** The data directory of a PGlite migrated once per process. */
function pgliteTemplate(): Promise<File | Blob> {
  templateDump ??= (async () => {
    const pg = await PGlite.create();
    try {
      await migrate(pg);
      return await pg.dumpDataDir("none");
    } finally {
      await pg.close();
    }
  })();
  return templateDump;
}

function pgliteTarget(): DbTarget {
  return {
    name: "pglite",
    async open() {
      const pg = await PGlite.create({ loadDataDir: await pgliteTemplate() });
      const db = createPgliteDb(pg);
      return {
        db,
        query: async <R>(sql: string, params?: unknown[]) =>
          (await pg.query<R>(sql, params ?? [])).rows,
        close: () => db.close(),
      };
    },
  };
}

function postgresTarget(serverUrl: string, options: DbTargetOptions): DbTarget {
  const server = assertLoopbackUrl(serverUrl);
  return {
    name: "postgres",
    async open() {
      const name = `cas_test_${crypto.randomUUID().replaceAll("-", "")}`;
      const admin = postgres(server.href, { max: 1, onnotice: () => {} });
      await admin.unsafe(`create database ${name}`);
      const url = new URL(server.href);
      url.pathname = `/${name}`;
      const session = postgres(url.href, { max: 1, onnotice: () => {} });
      let db: Db | undefined;
      const close = async () => {
        await db?.close();
        await session.end({ timeout: 5 });
        await admin.unsafe(`drop database if exists ${name} with (force)`);
        await admin.end({ timeout: 5 });
      };
      try {
        await migrate(session);
        db = createPostgresDb(url.href, { max: options.poolSize ?? 10 });
      } catch (error) {
        await close();
        throw error;
      }
      return {
        db,
        query: async <R>(sql: string, params?: unknown[]) =>
          (await session.unsafe(sql, (params ?? []) as never[])) as unknown as R[],
        close,
        url: url.href,
      };
    },
  };
}

/**
 * The targets of this run: "pglite" always, "postgres" when TEST_DATABASE_URL
 * is set (refused unless it is a loopback URL).
 */
export function dbTargets(options: DbTargetOptions = {}): DbTarget[] {
  const targets = [pgliteTarget()];
  const url = Deno.env.get("TEST_DATABASE_URL");
  if (url) targets.push(postgresTarget(url, options));
  return targets;
}

/** A valid rule object for rulebook_import, with `overrides` applied. */
export function sampleRule(
  ruleKey: string,
  overrides: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    rule_key: ruleKey,
    applies_to: ["content"],
    jurisdictions: ["CA"],
    industries: [],
    detector: { any: ["as an ai"], none: ["i am an ai"] },
    severity: "critical",
    weight: 10,
    tier_key: "ca_bot_disclosure",
    citation: "Cal. Bus. & Prof. Code 17941",
    penalty_usd: 2500,
    statute_codes: null,
    title: "Sample rule",
    plain_english: "A sample rule for tests.",
    category: "disclosure",
    remediation_title: "Disclose the bot",
    remediation: "Tell users they are talking to a bot.",
    ...overrides,
  };
}

/** Imports and activates a one-rule rulebook `version`; returns the version. */
export async function seedRulebook(db: Db, version = 1): Promise<number> {
  await db.rpc("rulebook_import", { p_version: version, p_rules: [sampleRule("sample_rule")] });
  await db.rpc("rulebook_activate", { p_version: version });
  return version;
}

/** The first day of the current UTC month, as monthly_usage.period. */
export function usagePeriod(): string {
  const now = new Date();
  return `${now.getUTCFullYear()}-${String(now.getUTCMonth() + 1).padStart(2, "0")}-01`;
}

/** An active account on `plan`, through account_create; its id. */
export async function createTestAccount(db: Db, plan = "starter"): Promise<string> {
  const account = await db.rpc<{ account_id: string }>("account_create", {
    p_plan: plan,
    p_status: "active",
    p_trial_end: null,
    p_price_per_month_usd: null,
  });
  return account.account_id;
}

/** Sets an account's usage of the current month (a row of monthly_usage). */
export async function setUsage(t: TestDatabase, accountId: string, count: number): Promise<void> {
  await t.query(
    "insert into public.monthly_usage (account_id, period, count) values ($1, $2::date, $3)",
    [accountId, usagePeriod(), count],
  );
}
