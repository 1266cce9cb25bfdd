import { baseDeps } from "./base_deps.ts";
import { type Config, loadConfig, processEnv } from "./config.ts";
import { openRemoteDb } from "./db/remote_db.ts";
import type { ServiceDeps } from "./handlers/deps.ts";
import { createLogger, type Logger } from "./log/logger.ts";
import { lazyLimiter } from "./ratelimit/lazy_limiter.ts";
import type { RateLimiter } from "./ratelimit/rate_limiter.ts";
import { createUnconfiguredLimiter } from "./ratelimit/unconfigured_limiter.ts";

/** What one operation adds to the shared dependencies (runWebsiteAudit: its fetcher). */
export type OperationDeps = (config: Config, logger: Logger) => Partial<ServiceDeps>;

let cached: ServiceDeps | undefined;

/**
 * A function's limiter: Upstash when configured (its client imported on
 * demand), else one that refuses every limited request (see
 * service_deps.ts's limiterFromConfig, the same policy).
 */
function functionLimiter(config: Config, logger: Logger): RateLimiter {
  const url = config.UPSTASH_REDIS_REST_URL;
  const token = config.UPSTASH_REDIS_REST_TOKEN;
  if (url === undefined || token === undefined) return createUnconfiguredLimiter(logger);
  const timeoutMs = config.UPSTASH_TIMEOUT_MS;
  return lazyLimiter(async () =>
    (await import("./ratelimit/upstash_limiter.ts")).upstashLimiter({ url, token, timeoutMs })
  );
}

/**
 * The dependencies of a deployed function (or one under `supabase functions
 * serve`), built once per isolate from its environment so that connections
 * are reused across requests. Its module graph holds only what the function
 * needs: the database driver and the Upstash client are imported on demand
 * for the configured driver (never PGlite), and an operation that needs more
 * passes it as `operation` (runWebsiteAudit's scanner).
 */
export function functionDeps(operation?: OperationDeps): ServiceDeps {
  if (cached === undefined) {
    const config = loadConfig(processEnv());
    const logger = createLogger({ level: config.LOG_LEVEL });
    cached = {
      ...baseDeps(config, {
        db: openRemoteDb(config),
        limiter: functionLimiter(config, logger),
        logger,
      }),
      ...operation?.(config, logger),
    };
  }
  return cached;
}
