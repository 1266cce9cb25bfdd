import type { Db } from "../db/db.ts";
import type { Logger } from "../log/logger.ts";
import type { RateLimiter } from "../ratelimit/rate_limiter.ts";

/** The contract's limits (section 8) and the service's own caps. */
export interface ServiceLimits {
  /** Accepted complianceAudit requests per minute per account. */
  auditPerMinute: number;
  /** agentSubscribe verify requests per minute per client IP. */
  verifyPerMinute: number;
  /** Largest complianceAudit body in bytes: 30,000 characters, escaped, fit. */
  auditBodyBytes: number;
  /** Largest agentSubscribe body in bytes. */
  accountBodyBytes: number;
  /** How many activity records get_logs returns, newest first. */
  logsReturned: number;
}

/** The contract's values; tests may lower or raise one to reach a boundary. */
export const DEFAULT_LIMITS: ServiceLimits = {
  auditPerMinute: 60,
  verifyPerMinute: 30,
  auditBodyBytes: 256 * 1024,
  accountBodyBytes: 16 * 1024,
  logsReturned: 100,
};

/** What the operations are built from: the ports and the settings of config.ts. */
export interface ServiceDeps {
  db: Db;
  limiter: RateLimiter;
  logger: Logger;
  corsOrigins: readonly string[];
  trustedProxyHops: number;
  limits?: Partial<ServiceLimits>;
  /** The clock; tests move it. */
  now?: () => Date;
}
