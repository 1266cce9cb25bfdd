/**
 * The operators' CLI: accounts, API keys and rulebooks, against the embedded
 * database (DATA_DIR) or DATABASE_URL. Run: deno task admin --help
 */
import { parseArgs } from "node:util";
import { z } from "zod";
import {
  activateRulebook,
  createAccount,
  createIntegration,
  importRulebook,
  issueApiKey,
  revokeApiKey,
  revokeIntegrationCredential,
  rotateIntegrationCredential,
  sealRulebook,
  updateAccount,
} from "../shared/admin/provisioning.ts";
import { type Config, DEFAULT_TRANSCRIPT_RETENTION_DAYS } from "../shared/config.ts";
import {
  ACCOUNT_STATUSES,
  INDUSTRIES,
  JURISDICTIONS,
  PLANS,
} from "../shared/contract/vocabulary.ts";
import { transcriptPurge, transcriptScanList } from "../shared/db/transcripts.ts";
import {
  type IntegrationRecord,
  webhookIntegrationList,
  webhookIntegrationUpdate,
} from "../shared/db/webhook_integrations.ts";
import { accountGet, accountList, apiKeyList } from "../shared/db/accounts.ts";
import { type Db, DbError } from "../shared/db/db.ts";
import { rulebookList } from "../shared/db/rulebooks.ts";
import postgres from "postgres";
import { claimDataDir } from "../shared/db/data_dir_owner.ts";
import { migrate } from "../shared/db/migrate.ts";
import { openDb } from "../shared/db/open_db.ts";
import { createPgliteDb, openPglite } from "../shared/db/pglite_db.ts";
import { createPostgresDb } from "../shared/db/postgres_db.ts";
import { RulebookError } from "../shared/engine/rulebook_validation.ts";
import { processConfig } from "./process_config.ts";

export const USAGE = `Usage: deno task admin [--json] <command> [options]

Accounts
  account create --plan <starter|pro|enterprise> --status <status>
                 [--trial-end <ISO date-time>] [--price <USD per month>]
  account show <account_id>
  account list                  every account, oldest first (find the demo account again)
  account update <account_id> [--plan <plan>] [--status <status>]
                 [--trial-end <ISO date-time> | --clear-trial-end]
API keys
  key issue <account_id>        prints the new key once; only its digest is stored
  key revoke <key_prefix>       e.g. cas_live_AbCd
  key list <account_id>
Webhook integrations (webhookIngest)
  integration create <account_id> --name <label> --provider <provider>
                 [--jurisdictions <ALL | CA,NY,...>] [--industry <industry>]
                                prints the integration's credential once; defaults: ALL, no industry
  integration list [<account_id>]
                                credentials by display prefix only
  integration update <integration_id> [--provider <provider>] [--jurisdictions <list>]
                 [--industry <industry> | --clear-industry]
  integration rotate <integration_id>
                                a new credential, shown once; the old one stops at once
  integration revoke <integration_id>
                                the credential stops at once; rotate issues a new one
Transcripts
  transcript list <integration_id> [--limit <n>]
                                newest stored scans: attribution and grade, never the text
  transcript purge [--retention-days <days>]
                                delete scans older than the retention period
                                (default TRANSCRIPT_RETENTION_DAYS, ${DEFAULT_TRANSCRIPT_RETENTION_DAYS} unless set)
Rulebooks
  rulebook import <file.json> [--activate]
  rulebook activate <version>
  rulebook seal <version>       validate a stored version (imported by seed.sql or before
                                seals) and seal it, so cold functions skip validating it
  rulebook list
Database
  migrate                       apply supabase/migrations to DATABASE_URL or DATA_DIR

Statuses: ${ACCOUNT_STATUSES.join(", ")}
Jurisdictions: ${JURISDICTIONS.join(", ")}; industries: ${INDUSTRIES.join(", ")}
Options: --json prints JSON for scripts; --help prints this text.
The database is DATA_DIR (embedded, default .data/pglite) unless DATABASE_URL is set;
while the local server runs on DATA_DIR, commands go through its database socket.
Exit codes: 0 done, 1 the operation failed, 2 usage or configuration error.`;

/** A usage error: the command line is wrong. */
class UsageError extends Error {}

const Plan = z.enum(PLANS);
const Status = z.enum(ACCOUNT_STATUSES);
const Uuid = z.uuid({ message: "must be an account id (UUID)" });
const Version = z.coerce.number().int().min(1);
const Price = z.coerce.number().min(0).max(1_000_000);
const Industry = z.enum(INDUSTRIES);
const Provider = z.string().regex(
  /^[a-z0-9][a-z0-9._-]{0,39}$/,
  "must be a lowercase name such as intercom, zendesk or zapier",
);
const IntegrationName = z.string().trim().min(1).max(100);
/** `ALL`, or comma-separated states: `CA,NY`. */
const JurisdictionList = z.string().transform((value) =>
  value.split(",").map((part) => part.trim().toUpperCase()).filter((part) => part !== "")
).pipe(
  z.array(z.enum(JURISDICTIONS)).min(1).refine(
    (list) => list.length === 1 || !list.includes("ALL"),
    "ALL stands alone",
  ).transform((list) => [...new Set(list)]),
);
const Count = z.coerce.number().int().min(1).max(1000);
const RetentionDays = z.coerce.number().int().min(1).max(36500);

/** Where the CLI writes. */
export interface AdminIo {
  out(text: string): void;
  err(text: string): void;
}

/**
 * Runs one admin command line against a database and returns the exit code.
 * `openDatabase` is called only once the command line is known to be valid.
 */
export async function runAdmin(
  argv: string[],
  options: { io: AdminIo; openDatabase: () => Promise<Db>; config?: Config },
): Promise<number> {
  const { io } = options;
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        json: { type: "boolean" },
        help: { type: "boolean", short: "h" },
        plan: { type: "string" },
        status: { type: "string" },
        "trial-end": { type: "string" },
        "clear-trial-end": { type: "boolean" },
        price: { type: "string" },
        activate: { type: "boolean" },
        name: { type: "string" },
        provider: { type: "string" },
        jurisdictions: { type: "string" },
        industry: { type: "string" },
        "clear-industry": { type: "boolean" },
        limit: { type: "string" },
        "retention-days": { type: "string" },
      },
    });
  } catch (error) {
    io.err(`${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help || positionals.length === 0) {
    (values.help ? io.out : io.err)(USAGE);
    return values.help ? 0 : 2;
  }
  const print = (human: string, data: unknown) =>
    io.out(values.json ? JSON.stringify(data) : human);

  let command: (db: Db) => Promise<void>;
  try {
    command = plan(positionals, values, print, {
      retentionDays: options.config?.TRANSCRIPT_RETENTION_DAYS ?? DEFAULT_TRANSCRIPT_RETENTION_DAYS,
    });
  } catch (error) {
    io.err(`${describe(error)}\n\nRun with --help for usage.`);
    return 2;
  }
  let db: Db | undefined;
  try {
    db = await options.openDatabase();
    await command(db);
    return 0;
  } catch (error) {
    const message = describe(error);
    io.err(values.json ? JSON.stringify({ error: message }) : `Error: ${message}`);
    return error instanceof UsageError ? 2 : 1;
  } finally {
    await db?.close();
  }
}

type Values = {
  json?: boolean;
  plan?: string;
  status?: string;
  "trial-end"?: string;
  "clear-trial-end"?: boolean;
  price?: string;
  activate?: boolean;
  name?: string;
  provider?: string;
  jurisdictions?: string;
  industry?: string;
  "clear-industry"?: boolean;
  limit?: string;
  "retention-days"?: string;
};

/** Checks the command line and returns the work it asks for. */
function plan(
  positionals: string[],
  values: Values,
  print: (human: string, data: unknown) => void,
  defaults: { retentionDays: number },
): (db: Db) => Promise<void> {
  const [group, verb, arg, ...rest] = positionals;
  const expectArgs = (count: number) => {
    const given = positionals.length - 2;
    if (given !== count || rest.length > 0) {
      throw new UsageError(`${group} ${verb} takes ${count} argument${count === 1 ? "" : "s"}`);
    }
  };
  const field = <T>(schema: z.ZodType<T>, value: unknown, name: string): T => {
    const result = schema.safeParse(value);
    if (!result.success) throw new UsageError(`${name}: ${result.error.issues[0].message}`);
    return result.data;
  };
  const timestamp = (value: string | undefined) =>
    value === undefined ? undefined : field(z.iso.datetime({ offset: true }), value, "--trial-end");

  switch (`${group} ${verb ?? ""}`.trim()) {
    case "account create": {
      expectArgs(0);
      const input = {
        plan: field(Plan, values.plan, "--plan"),
        status: field(Status, values.status, "--status"),
        trialEnd: timestamp(values["trial-end"]),
        pricePerMonthUsd: values.price === undefined ? null : field(Price, values.price, "--price"),
      };
      return async (db) => {
        const account = await createAccount(db, input);
        print(
          `Created account ${account.account_id} (${account.plan}, ${account.status})`,
          account,
        );
      };
    }
    case "account show": {
      expectArgs(1);
      const id = field(Uuid, arg, "account_id");
      return async (db) => {
        const account = await accountGet(db, id);
        if (account === null) throw new Error("No such account");
        print(
          Object.entries(account).map(([key, value]) => `${key}: ${value ?? "-"}`).join("\n"),
          account,
        );
      };
    }
    case "account list": {
      expectArgs(0);
      return async (db) => {
        const accounts = await accountList(db);
        print(
          accounts.length === 0
            ? "No accounts"
            : accounts.map((a) =>
              `${a.account_id}  ${a.plan}  ${a.status}  created ${a.created_at}`
            ).join("\n"),
          accounts,
        );
      };
    }
    case "account update": {
      expectArgs(1);
      const id = field(Uuid, arg, "account_id");
      if (values["trial-end"] !== undefined && values["clear-trial-end"]) {
        throw new UsageError("--trial-end and --clear-trial-end exclude each other");
      }
      const changes = {
        plan: values.plan === undefined ? undefined : field(Plan, values.plan, "--plan"),
        status: values.status === undefined ? undefined : field(Status, values.status, "--status"),
        trialEnd: values["clear-trial-end"] ? null : timestamp(values["trial-end"]),
      };
      if (Object.values(changes).every((value) => value === undefined)) {
        throw new UsageError(
          "account update needs --plan, --status, --trial-end or --clear-trial-end",
        );
      }
      return async (db) => {
        const account = await updateAccount(db, { accountId: id, ...changes });
        print(
          `Updated account ${account.account_id} (${account.plan}, ${account.status})`,
          account,
        );
      };
    }
    case "key issue": {
      expectArgs(1);
      const id = field(Uuid, arg, "account_id");
      return async (db) => {
        const key = await issueApiKey(db, id);
        print(
          `API key for account ${key.account_id} (shown once, store it now):\n\n  ${key.api_key}\n`,
          key,
        );
      };
    }
    case "key revoke": {
      expectArgs(1);
      const prefix = field(
        z.string().regex(/^cas_live_[A-Za-z0-9_-]{4}$/, "must be a key prefix like cas_live_AbCd"),
        arg,
        "key_prefix",
      );
      return async (db) => {
        const revoked = await revokeApiKey(db, prefix);
        if (revoked === 0) throw new Error("No active key has that prefix");
        print(`Revoked ${revoked} key${revoked === 1 ? "" : "s"} with prefix ${prefix}`, {
          revoked,
          key_prefix: prefix,
        });
      };
    }
    case "key list": {
      expectArgs(1);
      const id = field(Uuid, arg, "account_id");
      return async (db) => {
        const keys = await apiKeyList(db, id);
        print(
          keys.length === 0
            ? "No keys"
            : keys.map((k) =>
              `${k.key_prefix}  created ${k.created_at}  ${
                k.revoked_at ? `revoked ${k.revoked_at}` : "active"
              }`
            )
              .join("\n"),
          keys,
        );
      };
    }
    case "integration create": {
      expectArgs(1);
      const input = {
        accountId: field(Uuid, arg, "account_id"),
        name: field(IntegrationName, values.name, "--name"),
        provider: field(Provider, values.provider, "--provider"),
        jurisdictions: values.jurisdictions === undefined
          ? undefined
          : field(JurisdictionList, values.jurisdictions, "--jurisdictions"),
        industry: values.industry === undefined
          ? null
          : field(Industry, values.industry, "--industry"),
      };
      return async (db) => {
        const { integration, credential } = await createIntegration(db, input);
        print(
          `Created integration ${integration.integration_id} (${
            describeIntegration(integration)
          }).\n` +
            `Its credential, shown once: send it in the x-webhook-secret header.\n\n  ${credential}\n`,
          { ...integration, credential },
        );
      };
    }
    case "integration list": {
      if (positionals.length > 3) throw new UsageError("integration list takes at most 1 argument");
      const accountId = arg === undefined ? null : field(Uuid, arg, "account_id");
      return async (db) => {
        const integrations = await webhookIntegrationList(db, accountId);
        print(
          integrations.length === 0
            ? "No integrations"
            : integrations.map((i) =>
              `${i.integration_id}  account ${i.account_id}  ${
                describeIntegration(i)
              }  created ${i.created_at}`
            ).join("\n"),
          integrations,
        );
      };
    }
    case "integration update": {
      expectArgs(1);
      const id = field(Uuid, arg, "integration_id");
      if (values.industry !== undefined && values["clear-industry"]) {
        throw new UsageError("--industry and --clear-industry exclude each other");
      }
      const changes = {
        provider: values.provider === undefined
          ? undefined
          : field(Provider, values.provider, "--provider"),
        jurisdictions: values.jurisdictions === undefined
          ? undefined
          : field(JurisdictionList, values.jurisdictions, "--jurisdictions"),
        industry: values["clear-industry"]
          ? null
          : values.industry === undefined
          ? undefined
          : field(Industry, values.industry, "--industry"),
      };
      if (Object.values(changes).every((value) => value === undefined)) {
        throw new UsageError(
          "integration update needs --provider, --jurisdictions, --industry or --clear-industry",
        );
      }
      return async (db) => {
        const integration = await webhookIntegrationUpdate(db, { integrationId: id, ...changes });
        print(
          `Updated integration ${integration.integration_id} (${describeIntegration(integration)})`,
          integration,
        );
      };
    }
    case "integration rotate": {
      expectArgs(1);
      const id = field(Uuid, arg, "integration_id");
      return async (db) => {
        const rotated = await rotateIntegrationCredential(db, id);
        print(
          `New credential for integration ${id}, shown once (${
            rotated.previous_prefix === null
              ? "it had no active credential"
              : `${rotated.previous_prefix}… stopped working now`
          }):\n\n  ${rotated.credential}\n`,
          rotated,
        );
      };
    }
    case "integration revoke": {
      expectArgs(1);
      const id = field(Uuid, arg, "integration_id");
      return async (db) => {
        const revoked = await revokeIntegrationCredential(db, id);
        if (revoked === 0) throw new Error("The integration has no active credential");
        print(
          `Revoked the credential of integration ${id}; issue a new one with: integration rotate ${id}`,
          { integration_id: id, revoked },
        );
      };
    }
    case "transcript list": {
      expectArgs(1);
      const id = field(Uuid, arg, "integration_id");
      const limit = values.limit === undefined ? 20 : field(Count, values.limit, "--limit");
      return async (db) => {
        const scans = await transcriptScanList(db, { integrationId: id, limit });
        print(
          scans.length === 0
            ? "No stored transcripts"
            : scans.map((s) =>
              `${s.scan_result_id}  ${s.created_at}  via ${
                s.auth_path === "credential" ? "credential" : "shared secret"
              }  account ${s.account_id}  ${s.channel_origin}` +
              `${
                s.external_conversation_id ? ` #${s.external_conversation_id}` : ""
              }  grade ${s.grade} (${s.score})`
            ).join("\n"),
          scans,
        );
      };
    }
    case "transcript purge": {
      expectArgs(0);
      const days = values["retention-days"] === undefined
        ? defaults.retentionDays
        : field(RetentionDays, values["retention-days"], "--retention-days");
      return async (db) => {
        const result = await transcriptPurge(db, days);
        print(
          `Purged ${result.purged} stored transcript${
            result.purged === 1 ? "" : "s"
          } older than ${days} days (created before ${result.cutoff})`,
          { ...result, retention_days: days },
        );
      };
    }
    case "rulebook import": {
      expectArgs(1);
      const file = arg;
      const activate = values.activate === true;
      return async (db) => {
        let document: unknown;
        try {
          document = JSON.parse(await Deno.readTextFile(file));
        } catch (error) {
          throw new UsageError(`Cannot read ${file} as JSON: ${(error as Error).name}`);
        }
        const imported = await importRulebook(db, document);
        const activated = activate ? await activateRulebook(db, imported.version) : null;
        print(
          `Imported rulebook v${imported.version} (${imported.rule_count} rules)` +
            (activated
              ? `; active now`
              : "; activate it with: rulebook activate " + imported.version),
          { ...imported, active: activated !== null },
        );
      };
    }
    case "rulebook activate": {
      expectArgs(1);
      const version = field(Version, arg, "version");
      return async (db) => {
        const result = await activateRulebook(db, version);
        print(
          `Rulebook v${result.version} is active` +
            (result.previous_version ? ` (v${result.previous_version} retired)` : ""),
          result,
        );
      };
    }
    case "rulebook seal": {
      expectArgs(1);
      const version = field(Version, arg, "version");
      return async (db) => {
        await sealRulebook(db, version);
        print(`Rulebook v${version} is sealed`, { version, sealed: true });
      };
    }
    case "rulebook list": {
      expectArgs(0);
      return async (db) => {
        const books = await rulebookList(db);
        print(
          books.length === 0
            ? "No rulebooks"
            : books.map((b) =>
              `v${b.version}  ${b.status}  ${b.rule_count} rules  ${b.published_at ?? ""}`
            ).join("\n"),
          books,
        );
      };
    }
    case "migrate": {
      if (positionals.length !== 1) throw new UsageError("migrate takes no arguments");
      return () => {
        // Opening the database applied the migrations (openForCli, openPglite).
        print("Migrations applied", { migrated: true });
        return Promise.resolve();
      };
    }
    default:
      throw new UsageError(`Unknown command: ${positionals.slice(0, 2).join(" ")}`);
  }
}

/** An integration in one line: name, provider, settings and credential by display prefix. */
function describeIntegration(i: IntegrationRecord): string {
  return `${i.name}  provider ${i.provider}  ${i.jurisdictions.join(",")}  ${
    i.industry ?? "all industries"
  }  credential ${i.credential === null ? "none" : `${i.credential.prefix}…`}`;
}

function describe(error: unknown): string {
  if (error instanceof UsageError || error instanceof RulebookError || error instanceof DbError) {
    return error.message;
  }
  if (error instanceof z.ZodError) return error.issues[0]?.message ?? "Invalid value";
  if (error instanceof Error && error.name === "Error") return error.message;
  return "The operation failed";
}

/**
 * The database of a command. The embedded one is never opened beside a
 * running local server: the CLI goes through the server's Postgres socket
 * instead, or refuses with a message saying why.
 */
async function openForCli(config: Config, command: string | undefined): Promise<Db> {
  if (config.DB_DRIVER === "pglite") return await openDataDir(config.DATA_DIR);
  if (command === "migrate" && config.DB_DRIVER === "postgres") {
    await migrateOver((config.DATABASE_URL ?? config.SUPABASE_DB_URL)!);
  }
  return await openDb(config);
}

/** Applies the migrations over a Postgres connection (DATABASE_URL or the server's socket). */
async function migrateOver(url: string): Promise<void> {
  const sql = postgres(url, { max: 1, prepare: false, connect_timeout: 5, onnotice: () => {} });
  try {
    await migrate(sql);
  } finally {
    await sql.end({ timeout: 5 });
  }
}

/**
 * DATA_DIR for one command: opened here when nobody holds it (and held until
 * the command ends, so a server started meanwhile refuses), reached through
 * the local server's socket while it runs.
 */
async function openDataDir(dataDir: string): Promise<Db> {
  const result = await claimDataDir(dataDir, { pid: Deno.pid, role: "admin" });
  if ("claim" in result) {
    const { claim } = result;
    try {
      const db = createPgliteDb(await openPglite(dataDir));
      return {
        rpc: db.rpc,
        async close() {
          await db.close();
          claim.release();
        },
      };
    } catch (error) {
      claim.release();
      throw error;
    }
  }
  const holder = result.heldBy;
  if (holder?.role === "server" && holder.socketUrl !== undefined) {
    try {
      // Also proves the socket answers before the command runs.
      await migrateOver(holder.socketUrl);
    } catch {
      throw new Error(
        `The local server (pid ${holder.pid}) holds DATA_DIR ${dataDir}, but its database socket ${holder.socketUrl} does not answer; the command changed nothing`,
      );
    }
    return createPostgresDb(holder.socketUrl, { max: 1, prepare: false });
  }
  throw new Error(
    `DATA_DIR ${dataDir} is in use by ${
      holder === null ? "another process" : `another admin command (pid ${holder.pid})`
    }; the command changed nothing. Try again when it has finished`,
  );
}

async function main(): Promise<number> {
  const config = processConfig();
  const argv = Deno.args;
  return await runAdmin(argv, {
    io: { out: (text) => console.log(text), err: (text) => console.error(text) },
    openDatabase: () => openForCli(config, argv.find((a) => !a.startsWith("-"))),
    config,
  });
}

if (import.meta.main) Deno.exit(await main());
