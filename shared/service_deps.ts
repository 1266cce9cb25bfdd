import { baseDeps } from "./base_deps.ts";
import type { Config } from "./config.ts";
import type { Db } from "./db/db.ts";
import type { ServiceDeps } from "./handlers/deps.ts";
import { createLogger, type Logger } from "./log/logger.ts";
import { createMemoryLimiter } from "./ratelimit/memory_limiter.ts";
import type { RateLimiter } from "./ratelimit/rate_limiter.ts";
import { createUnconfiguredLimiter } from "./ratelimit/unconfigured_limiter.ts";
import { upstashLimiter } from "./ratelimit/upstash_limiter.ts";
import { scanDeps } from "./scanner/scan_deps.ts";

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

/**
 * The operations' dependencies from a configuration and a database, for the
 * local server (which serves all four operations in one process). A deployed
 * function builds its own with function_deps.ts, which imports less.
 */
export function serviceDeps(config: Config, db: Db, options: ServiceDepsOptions): ServiceDeps {
  const logger = options.logger ?? createLogger({ level: config.LOG_LEVEL });
  return {
    ...baseDeps(config, {
      db,
      limiter: limiterFromConfig(config, logger, options.runtime),
      logger,
    }),
    ...scanDeps(config, logger),
  };
}
