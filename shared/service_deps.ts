import type { Config } from "./config.ts";
import type { Db } from "./db/db.ts";
import type { ServiceDeps } from "./handlers/deps.ts";
import { createLogger, type Logger } from "./log/logger.ts";
import { createMemoryLimiter } from "./ratelimit/memory_limiter.ts";
import type { RateLimiter } from "./ratelimit/rate_limiter.ts";
import { createUpstashLimiter } from "./ratelimit/upstash_limiter.ts";

/**
 * The rate limiter the configuration asks for: Upstash when its REST URL and
 * token are set, else the in-memory limiter of a single local process.
 */
export function limiterFromConfig(config: Config, logger: Logger): RateLimiter {
  if (
    config.UPSTASH_REDIS_REST_URL !== undefined && config.UPSTASH_REDIS_REST_TOKEN !== undefined
  ) {
    return createUpstashLimiter({
      url: config.UPSTASH_REDIS_REST_URL,
      token: config.UPSTASH_REDIS_REST_TOKEN,
    });
  }
  if (config.DB_DRIVER !== "pglite") {
    logger.log("warn", "UPSTASH_REDIS_REST_URL is not set: per-minute limits are per process only");
  }
  return createMemoryLimiter();
}

/** The operations' dependencies from a configuration and a database. */
export function serviceDeps(config: Config, db: Db, logger?: Logger): ServiceDeps {
  const log = logger ?? createLogger({ level: config.LOG_LEVEL });
  return {
    db,
    limiter: limiterFromConfig(config, log),
    logger: log,
    corsOrigins: config.CORS_ALLOWED_ORIGINS,
    trustedProxyHops: config.TRUSTED_PROXY_HOPS,
  };
}
