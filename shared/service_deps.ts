import { createAdvisory } from "./advisory/advisory.ts";
import type { Config } from "./config.ts";
import type { Db } from "./db/db.ts";
import type { ServiceDeps } from "./handlers/deps.ts";
import { createLogger, type Logger } from "./log/logger.ts";
import { createMemoryLimiter } from "./ratelimit/memory_limiter.ts";
import type { RateLimiter } from "./ratelimit/rate_limiter.ts";
import { createUnconfiguredLimiter } from "./ratelimit/unconfigured_limiter.ts";
import { upstashLimiter } from "./ratelimit/upstash_limiter.ts";
import { createSafeFetcher } from "./scanner/safe_fetcher.ts";

/** Where the operations run. */
export type Runtime = "function" | "local-server";

/**
 * The rate limiter for a configuration: Upstash when its REST URL and token
 * are set. Without them, the single local process limits in its memory, and a
 * function (deployed, or under `supabase functions serve`) refuses limited
 * requests: per-isolate counters are not the contract's limits.
 */
export function limiterFromConfig(config: Config, logger: Logger, runtime: Runtime): RateLimiter {
  if (
    config.UPSTASH_REDIS_REST_URL !== undefined && config.UPSTASH_REDIS_REST_TOKEN !== undefined
  ) {
    return upstashLimiter({
      url: config.UPSTASH_REDIS_REST_URL,
      token: config.UPSTASH_REDIS_REST_TOKEN,
      timeoutMs: config.UPSTASH_TIMEOUT_MS,
    });
  }
  return runtime === "local-server" ? createMemoryLimiter() : createUnconfiguredLimiter(logger);
}

/** Options of {@linkcode serviceDeps}. */
export interface ServiceDepsOptions {
  runtime: Runtime;
  logger?: Logger;
}

/** The operations' dependencies from a configuration and a database. */
export function serviceDeps(config: Config, db: Db, options: ServiceDepsOptions): ServiceDeps {
  const logger = options.logger ?? createLogger({ level: config.LOG_LEVEL });
  return {
    db,
    limiter: limiterFromConfig(config, logger, options.runtime),
    logger,
    corsOrigins: config.CORS_ALLOWED_ORIGINS,
    trustedProxyHops: config.TRUSTED_PROXY_HOPS,
    scanFetcher: createSafeFetcher({
      allowedTargets: config.SCAN_ALLOWED_TARGETS,
      allowedPorts: config.SCAN_ALLOWED_PORTS,
    }),
    ...(config.ADVISORY_LLM_URL === undefined || config.ADVISORY_LLM_MODEL === undefined ? {} : {
      advisory: createAdvisory({
        url: config.ADVISORY_LLM_URL,
        model: config.ADVISORY_LLM_MODEL,
        apiKey: config.ADVISORY_LLM_API_KEY,
        logger,
      }),
    }),
    webhookShared: config.WEBHOOK_SHARED_SECRET === undefined ? undefined : {
      secret: config.WEBHOOK_SHARED_SECRET,
      accountId: config.WEBHOOK_SHARED_ACCOUNT_ID!,
      integrationName: config.WEBHOOK_SHARED_INTEGRATION!,
    },
  };
}
