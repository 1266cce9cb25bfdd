/**
 * In-process handler tests: a fake Db that answers the RPCs the handlers use
 * from memory (with the contract's shapes), a scriptable limiter and a logger
 * that keeps its lines. No server, no database: handlers are called with a
 * `Request`.
 */
import { generateApiKey } from "../../shared/auth/api_key.ts";
import { generateWebhookCredential } from "../../shared/auth/webhook_credential.ts";
import type {
  AccountStatus,
  Industry,
  Jurisdiction,
  Plan,
} from "../../shared/contract/vocabulary.ts";
import { type Db, DbError } from "../../shared/db/db.ts";
import { clearRulebookCache } from "../../shared/engine/rulebook_cache.ts";
import { loadSeedRulebook } from "../../shared/engine/seed_rulebook.ts";
import type { ServiceDeps, ServiceLimits } from "../../shared/handlers/deps.ts";
import { createLogger } from "../../shared/log/logger.ts";
import type { LimitResult, RateLimiter } from "../../shared/ratelimit/rate_limiter.ts";

const QUOTAS: Record<Plan, number | null> = { starter: 1000, pro: 10000, enterprise: null };

/** An account held by the fake. */
export interface FakeAccount {
  account_id: string;
  plan: Plan;
  status: AccountStatus;
  price_per_month_usd: number | null;
  trial_end: string | null;
  usage_count: number;
}

/** An activity record as the fake stores it. */
export interface FakeActivity {
  account_id: string;
  endpoint_queried: string;
  status_code: number;
  response_latency_ms: number | null;
  is_agent: boolean;
  timestamp: string;
  plan: Plan;
}

/** A webhook integration held by the fake. */
export interface FakeIntegration {
  integration_id: string;
  account_id: string;
  name: string;
  jurisdictions: Jurisdiction[];
  industry: Industry | null;
  /** The digest of its active credential; null when it has none. */
  credentialDigest: string | null;
}

/** The fake database and what it saw. */
export interface FakeDb extends Db {
  /** Every call, in order: the RPC's name and its named arguments. */
  calls: Array<{ name: string; args: Record<string, unknown> }>;
  activity: FakeActivity[];
  accounts: Map<string, FakeAccount>;
  /** API key digests and the account of each. */
  keys: Map<string, string>;
  /** The active rulebook version; null for none. */
  activeVersion: number | null;
  /** RPCs that fail (a DbError, as a driver raises it). */
  failing: Set<string>;
  /** RPCs that answer this value instead of their own. */
  answers: Map<string, unknown>;
  /** The arguments of every website_scan_record call. */
  websiteScans: Record<string, unknown>[];
  integrations: Map<string, FakeIntegration>;
  /** Stored transcript scans: the arguments of transcript_scan_store, and the scan's id. */
  scans: Array<{ id: string; args: Record<string, unknown> }>;
  /** Deliveries in flight, by `<integration>:<key>`: their claim. */
  deliveries: Map<string, string>;
  /** Names of the RPCs called, in order. */
  names(): string[];
}

const seed = await loadSeedRulebook();

/** A fresh fake database with the seed rulebook active. */
export function fakeDb(): FakeDb {
  const keys = new Map<string, string>();
  const db: FakeDb = {
    calls: [],
    activity: [],
    accounts: new Map(),
    keys,
    activeVersion: seed.version,
    failing: new Set(),
    answers: new Map(),
    websiteScans: [],
    integrations: new Map(),
    scans: [],
    deliveries: new Map(),
    names: () => db.calls.map((call) => call.name),
    rpc<T>(name: string, args: Record<string, unknown> = {}): Promise<T> {
      db.calls.push({ name, args });
      if (db.failing.has(name)) {
        return Promise.reject(new DbError("connection refused", "08006"));
      }
      if (db.answers.has(name)) return Promise.resolve(db.answers.get(name) as T);
      return Promise.resolve(answer(name, args) as T);
    },
    close: () => Promise.resolve(),
  };

  const account = (id: unknown): FakeAccount => {
    const found = db.accounts.get(String(id));
    if (found === undefined) throw new DbError("account not found", "P0002");
    return found;
  };
  const record = (a: FakeAccount, args: Record<string, unknown>, status: number) =>
    db.activity.push({
      account_id: a.account_id,
      endpoint_queried: String(args.p_endpoint),
      status_code: status,
      response_latency_ms: args.p_latency_ms as number | null,
      is_agent: Boolean(args.p_is_agent),
      timestamp: new Date().toISOString(),
      plan: a.plan,
    });

  function answer(name: string, args: Record<string, unknown>): unknown {
    switch (name) {
      case "api_key_account":
      case "audit_key_account": {
        const id = keys.get(String(args.p_key_digest));
        if (id === undefined) return null;
        const a = account(id);
        return {
          // audit_key_account adds the active rulebook's version.
          ...(name === "audit_key_account" ? { active_rulebook_version: db.activeVersion } : {}),
          account_id: a.account_id,
          plan: a.plan,
          status: a.status,
          billing_interval: "month",
          price_per_month_usd: a.price_per_month_usd,
          trial_end: a.trial_end,
          monthly_limit: QUOTAS[a.plan],
          usage_count: a.usage_count,
        };
      }
      case "rulebook_active":
        return db.activeVersion === null ? null : { version: db.activeVersion };
      case "rulebook_get":
        // As the migration returns it: the rules, and for format 2 statutes, concepts and definitions.
        return args.p_version === seed.version
          ? {
            version: seed.version,
            status: "active",
            published_at: null,
            rules: seed.rules,
            ...(seed.format === 2
              ? {
                format: 2,
                statutes: seed.statutes,
                concepts: seed.concepts,
                definitions: seed.definitions,
              }
              : {}),
          }
          : null;
      case "audit_record": {
        // As the migration does: the accepted call is recorded with its usage;
        // a refusal at the quota writes nothing.
        const a = account(args.p_account_id);
        const limit = QUOTAS[a.plan];
        const accepted = limit === null || a.usage_count < limit;
        if (accepted) {
          a.usage_count++;
          record(a, args, 200);
        }
        return { accepted, usage_count: a.usage_count, monthly_limit: limit };
      }
      case "activity_record": {
        record(account(args.p_account_id), args, Number(args.p_status_code));
        return { recorded: true };
      }
      case "website_scan_record":
        db.websiteScans.push(args);
        return { scan_id: crypto.randomUUID(), created_at: new Date().toISOString() };
      case "webhook_credential_caller": {
        const digest = String(args.p_credential_digest);
        const found = [...db.integrations.values()].find((i) => i.credentialDigest === digest);
        return found === undefined ? null : caller(found);
      }
      case "webhook_shared_caller": {
        if (!db.accounts.has(String(args.p_account_id))) return null;
        let found = [...db.integrations.values()].find((i) =>
          i.account_id === args.p_account_id && i.name === args.p_name
        );
        if (found === undefined) {
          found = {
            integration_id: crypto.randomUUID(),
            account_id: String(args.p_account_id),
            name: String(args.p_name),
            jurisdictions: ["ALL"],
            industry: null,
            credentialDigest: null,
          };
          db.integrations.set(found.integration_id, found);
        }
        return caller(found);
      }
      case "transcript_delivery_begin": {
        const key = `${args.p_integration_id}:${args.p_idempotency_key}`;
        const stored = storedScan(key);
        if (stored !== null) return { state: "stored", scan: stored };
        if (db.deliveries.has(key)) return { state: "pending", retry_after_seconds: 30 };
        const claim = crypto.randomUUID();
        db.deliveries.set(key, claim);
        return { state: "claimed", claim };
      }
      case "transcript_scan_store": {
        const key = `${args.p_integration_id}:${args.p_idempotency_key}`;
        if (db.deliveries.get(key) === args.p_claim) {
          db.deliveries.delete(key);
          if (storedScan(key) === null) db.scans.push({ id: crypto.randomUUID(), args });
        }
        const stored = storedScan(key);
        return stored === null ? { state: "lost" } : { state: "stored", scan: stored };
      }
      case "transcript_delivery_release": {
        const entry = [...db.deliveries].find(([, claim]) => claim === args.p_claim);
        if (entry !== undefined) db.deliveries.delete(entry[0]);
        return { released: entry !== undefined };
      }
      case "activity_recent":
        return db.activity.filter((row) => row.account_id === args.p_account_id)
          .slice(-Number(args.p_limit)).reverse().map(publicActivity);
      case "activity_month":
        return db.activity.filter((row) =>
          row.account_id === args.p_account_id && row.timestamp.startsWith(String(args.p_month))
        ).map(publicActivity);
      case "activity_month_page": {
        // Keyset pages as the migration's: ids are positions in the log.
        const month = db.activity.map((row, index) => ({ row, id: index + 1 })).filter(({ row }) =>
          row.account_id === args.p_account_id && row.timestamp.startsWith(String(args.p_month))
        );
        const through = args.p_through_id === undefined
          ? (month.at(-1)?.id ?? null)
          : Number(args.p_through_id);
        const after = args.p_after_id === undefined ? 0 : Number(args.p_after_id);
        const limit = Number(args.p_limit ?? 1000);
        const page = month.filter(({ id }) => id > after && through !== null && id <= through)
          .slice(0, limit);
        const last = page.at(-1);
        return {
          rows: page.map(({ row }) => publicActivity(row)),
          next: page.length === limit && last !== undefined
            ? { after_created_at: last.row.timestamp, after_id: last.id }
            : null,
          through_id: through,
        };
      }
      default:
        throw new DbError(`function ${name} does not exist`, "42883");
    }
  }
  function caller(integration: FakeIntegration) {
    const a = account(integration.account_id);
    return {
      integration_id: integration.integration_id,
      account_id: a.account_id,
      name: integration.name,
      jurisdictions: integration.jurisdictions,
      industry: integration.industry,
      status: a.status,
      trial_end: a.trial_end,
    };
  }
  function storedScan(key: string) {
    const scan = db.scans.find((s) =>
      `${s.args.p_integration_id}:${s.args.p_idempotency_key}` === key
    );
    if (scan === undefined) return null;
    return {
      scan_result_id: scan.id,
      channel_origin: scan.args.p_channel_origin,
      ...(scan.args.p_external_conversation_id === null
        ? {}
        : { external_conversation_id: scan.args.p_external_conversation_id }),
      grade: scan.args.p_grade,
      score: scan.args.p_score,
      critical_violations: scan.args.p_critical_violations,
      warnings: scan.args.p_warnings,
      passed_checks: scan.args.p_passed_checks,
    };
  }
  return db;
}

/**
 * Adds an account (active, starter unless told) with one webhook integration
 * and its credential to the fake; returns their ids and the credential.
 */
export async function fakeIntegration(
  db: FakeDb,
  options: {
    account?: Partial<Omit<FakeAccount, "account_id">>;
    jurisdictions?: Jurisdiction[];
    industry?: Industry | null;
  } = {},
): Promise<{ accountId: string; integrationId: string; credential: string }> {
  const { accountId } = await fakeAccount(db, options.account);
  const credential = await generateWebhookCredential();
  const integrationId = crypto.randomUUID();
  db.integrations.set(integrationId, {
    integration_id: integrationId,
    account_id: accountId,
    name: "intercom",
    jurisdictions: options.jurisdictions ?? ["ALL"],
    industry: options.industry ?? null,
    credentialDigest: credential.digest,
  });
  return { accountId, integrationId, credential: credential.credential };
}

function publicActivity(row: FakeActivity) {
  const { account_id: _, ...rest } = row;
  return rest;
}

/** Adds an account with one key to the fake; returns its id and key. */
export async function fakeAccount(
  db: FakeDb,
  fields: Partial<Omit<FakeAccount, "account_id">> = {},
): Promise<{ accountId: string; apiKey: string }> {
  const accountId = crypto.randomUUID();
  db.accounts.set(accountId, {
    account_id: accountId,
    plan: "starter",
    status: "active",
    price_per_month_usd: null,
    trial_end: null,
    usage_count: 0,
    ...fields,
  });
  const key = await generateApiKey();
  db.keys.set(key.digest, accountId);
  return { accountId, apiKey: key.key };
}

/** A limiter that admits `remaining` more calls, or fails when `failing`. */
export interface FakeLimiter extends RateLimiter {
  calls: Array<{ key: string; max: number; windowSeconds: number }>;
  remaining: number;
  failing: boolean;
}

/** A limiter that admits everything until told otherwise. */
export function fakeLimiter(): FakeLimiter {
  const limiter: FakeLimiter = {
    calls: [],
    remaining: Number.MAX_SAFE_INTEGER,
    failing: false,
    limit(key, max, windowSeconds): Promise<LimitResult> {
      limiter.calls.push({ key, max, windowSeconds });
      if (limiter.failing) return Promise.reject(new Error("redis down"));
      const success = limiter.remaining > 0;
      if (success) limiter.remaining--;
      return Promise.resolve({
        success,
        remaining: Math.max(0, limiter.remaining),
        reset: Date.now() + (success ? 0 : 42_000),
        retryAfterMs: success ? 0 : 42_000,
      });
    },
  };
  return limiter;
}

/** Dependencies of the handlers over the fakes, with the log lines kept. */
export interface FakeDeps extends ServiceDeps {
  db: FakeDb;
  limiter: FakeLimiter;
  /** Every log line, parsed. */
  logs: Array<Record<string, unknown>>;
  /** Every log line as written. */
  logText: string[];
}

/** Fresh fake dependencies; the rulebook cache is cleared so each test compiles its own. */
export function fakeDeps(
  options: { limits?: Partial<ServiceLimits>; now?: () => Date } = {},
): FakeDeps {
  clearRulebookCache();
  const logText: string[] = [];
  const logs: Array<Record<string, unknown>> = [];
  return {
    db: fakeDb(),
    limiter: fakeLimiter(),
    logger: createLogger({
      level: "debug",
      write: (line) => {
        logText.push(line);
        logs.push(JSON.parse(line));
      },
    }),
    corsOrigins: ["*"],
    trustedProxyHops: 0,
    limits: options.limits,
    now: options.now,
    logs,
    logText,
  };
}

/** A POST request with a JSON body (a string is sent as it is). */
export function jsonRequest(
  name: string,
  body: unknown,
  headers: Record<string, string> = {},
): Request {
  return new Request(`http://127.0.0.1/functions/${name}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

/** The connection info of a client at `ip`. */
export function from(ip: string) {
  return { remoteAddr: { hostname: ip, port: 40000, transport: "tcp" as const } };
}
