/**
 * A running local service for integration tests: the real router and
 * handlers over real HTTP on 127.0.0.1, on a fresh test database with the
 * seed rulebook active.
 */
import {
  activateRulebook,
  createAccount,
  importRulebook,
  issueApiKey,
} from "../../shared/admin/provisioning.ts";
import type { SharedWebhookSecret } from "../../shared/auth/webhook_credential.ts";
import { loadConfig } from "../../shared/config.ts";
import type { AccountStatus, Plan } from "../../shared/contract/vocabulary.ts";
import type { Advisory } from "../../shared/advisory/advisory.ts";
import type { Db } from "../../shared/db/db.ts";
import type { ServiceDeps, ServiceLimits } from "../../shared/handlers/deps.ts";
import { createLogger } from "../../shared/log/logger.ts";
import { createMemoryLimiter } from "../../shared/ratelimit/memory_limiter.ts";
import type { RateLimiter } from "../../shared/ratelimit/rate_limiter.ts";
import type { SafeFetcher } from "../../shared/scanner/safe_fetcher.ts";
import { clearRulebookCache } from "../../shared/engine/rulebook_cache.ts";
import { loadSeedRulebook } from "../../shared/engine/seed_rulebook.ts";
import { serveLocal } from "../../scripts/server.ts";
import type { DbTarget, TestDatabase } from "./db.ts";

/** A service under test. */
export interface TestService extends TestDatabase {
  /** `http://127.0.0.1:<port>/functions` */
  baseUrl: string;
  /** Every log line the service wrote. */
  logLines: string[];
  /** Creates an account and issues it a key. */
  account(
    options?: {
      plan?: Plan;
      status?: AccountStatus;
      trialEnd?: string | null;
      price?: number | null;
    },
  ): Promise<
    { accountId: string; apiKey: string }
  >;
  /** POSTs JSON to a function. */
  post(name: string, body: unknown, headers?: Record<string, string>): Promise<Response>;
}

/** Options of {@linkcode startService}. */
export interface StartServiceOptions {
  limits?: Partial<ServiceLimits>;
  limiter?: RateLimiter;
  /** Import and activate the seed rulebook; default true. */
  seed?: boolean;
  now?: () => Date;
  /**
   * Wraps the database the handlers see, e.g. to make one RPC fail, or
   * replaces it (a Db over a fault-injecting proxy to `database.url`).
   */
  wrapDb?: (db: Db, database: TestDatabase) => Db;
  /** runWebsiteAudit's fetcher (e.g. with an allow-list for a loopback site). */
  scanFetcher?: SafeFetcher;
  /** runWebsiteAudit's advisory. */
  advisory?: Advisory;
  /** Default `["*"]`. */
  corsOrigins?: string[];
  /** Opens webhookIngest's shared-secret path. */
  webhookShared?: SharedWebhookSecret;
}

/** Starts the local server on a fresh database of `target`. */
export async function startService(
  target: DbTarget,
  options: StartServiceOptions = {},
): Promise<TestService> {
  const database = await target.open();
  if (options.seed ?? true) {
    const seed = await loadSeedRulebook();
    await importRulebook(database.db, seed);
    await activateRulebook(database.db, seed.version);
  }
  const logLines: string[] = [];
  const config = loadConfig({ PORT: "0", HOST: "127.0.0.1" });
  const db = options.wrapDb ? options.wrapDb(database.db, database) : database.db;
  const deps: ServiceDeps = {
    db,
    limiter: options.limiter ?? createMemoryLimiter(),
    logger: createLogger({ level: "debug", write: (line) => logLines.push(line) }),
    corsOrigins: options.corsOrigins ?? ["*"],
    trustedProxyHops: 0,
    limits: options.limits,
    now: options.now,
    scanFetcher: options.scanFetcher,
    advisory: options.advisory,
    webhookShared: options.webhookShared,
  };
  const server = serveLocal(config, deps);
  return {
    ...database,
    baseUrl: server.baseUrl,
    logLines,
    async account(opts = {}) {
      const account = await createAccount(database.db, {
        plan: opts.plan ?? "starter",
        status: opts.status ?? "active",
        trialEnd: opts.trialEnd ?? null,
        pricePerMonthUsd: opts.price ?? null,
      });
      const key = await issueApiKey(database.db, account.account_id);
      return { accountId: account.account_id, apiKey: key.api_key };
    },
    post(name, body, headers = {}) {
      return fetch(`${server.baseUrl}/${name}`, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: typeof body === "string" ? body : JSON.stringify(body),
      });
    },
    async close() {
      await server.close();
      await database.close().catch(() => {});
    },
  };
}

/**
 * A `Deno.test` registrar for one suite on one target: each test gets its
 * own service on a fresh database, closed afterwards.
 */
export function serviceTest(suite: string, target: DbTarget) {
  return (
    name: string,
    fn: (service: TestService) => Promise<void>,
    options: StartServiceOptions = {},
  ) =>
    Deno.test(`${suite} [${target.name}] ${name}`, async () => {
      clearRulebookCache();
      const service = await startService(target, options);
      try {
        await fn(service);
      } finally {
        await service.close();
      }
    });
}
