/** The admin CLI run in process against a test database, with its output kept. */
import { runAdmin } from "../../scripts/admin.ts";
import type { Config } from "../../shared/config.ts";
import type { TestDatabase } from "./db.ts";

/** Runs one admin command line; the CLI closes what it opens, the test keeps its database. */
export async function cli(
  database: TestDatabase,
  argv: string[],
  config?: Config,
): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runAdmin(argv, {
    io: { out: (text) => out.push(text), err: (text) => err.push(text) },
    openDatabase: () =>
      Promise.resolve({ rpc: database.db.rpc.bind(database.db), close: () => Promise.resolve() }),
    config,
  });
  return { code, out: out.join("\n"), err: err.join("\n") };
}
