import type { Config } from "./config.ts";
import type { Db } from "./db/db.ts";
import type { ServiceDeps } from "./handlers/deps.ts";
import type { Logger } from "./log/logger.ts";
import type { RateLimiter } from "./ratelimit/rate_limiter.ts";

/**
 * The dependencies every operation shares, from a configuration and its
 * ports; nothing here imports an adapter, so the local server
 * (service_deps.ts) and each deployed function (function_deps.ts) add only
 * what they run with.
 */
export function baseDeps(
  config: Config,
  ports: { db: Db; limiter: RateLimiter; logger: Logger },
): ServiceDeps {
  return {
    ...ports,
    corsOrigins: config.CORS_ALLOWED_ORIGINS,
    trustedProxyHops: config.TRUSTED_PROXY_HOPS,
    webhookShared: config.WEBHOOK_SHARED_SECRET === undefined ? undefined : {
      secret: config.WEBHOOK_SHARED_SECRET,
      accountId: config.WEBHOOK_SHARED_ACCOUNT_ID!,
      integrationName: config.WEBHOOK_SHARED_INTEGRATION!,
    },
  };
}
