import type { Advisory } from "../advisory/advisory.ts";
import type { SharedWebhookSecret } from "../auth/webhook_credential.ts";
import { MAX_TRANSCRIPT_BODY_BYTES } from "../contract/webhook_ingest.ts";
import type { Db } from "../db/db.ts";
import type { Logger } from "../log/logger.ts";
import type { RateLimiter } from "../ratelimit/rate_limiter.ts";
import type { SafeFetcher } from "../scanner/safe_fetcher.ts";

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
  /** Activity records per page of an export_audit stream (one database round trip each). */
  exportPageRows: number;
  /** runWebsiteAudit requests per minute per client IP (an IPv6 client by its /64). */
  scanPerMinute: number;
  /** Largest runWebsiteAudit body in bytes: one URL of at most 2,048 characters. */
  scanBodyBytes: number;
  /** webhookIngest requests per minute per account and integration. */
  webhookPerMinute: number;
  /** Largest webhookIngest body in bytes. */
  webhookBodyBytes: number;
  /** How long a duplicate delivery waits for the first one's result before it answers 503. */
  webhookDuplicateWaitMs: number;
  /** The lease of a delivery's claim: after it, a retry takes over from a holder that died. */
  webhookClaimLeaseSeconds: number;
}

/** The contract's values; tests may lower or raise one to reach a boundary. */
export const DEFAULT_LIMITS: ServiceLimits = {
  auditPerMinute: 60,
  verifyPerMinute: 30,
  auditBodyBytes: 256 * 1024,
  accountBodyBytes: 16 * 1024,
  logsReturned: 100,
  exportPageRows: 1000,
  scanPerMinute: 10,
  scanBodyBytes: 8 * 1024,
  webhookPerMinute: 60,
  webhookBodyBytes: MAX_TRANSCRIPT_BODY_BYTES,
  webhookDuplicateWaitMs: 10_000,
  webhookClaimLeaseSeconds: 30,
};

/** What the operations are built from: the ports and the settings of config.ts. */
export interface ServiceDeps {
  db: Db;
  limiter: RateLimiter;
  logger: Logger;
  corsOrigins: readonly string[];
  trustedProxyHops: number;
  limits?: Partial<ServiceLimits>;
  /**
   * runWebsiteAudit's fetching layer; default the production policy (system
   * DNS and sockets, no allow-list, ports 80 and 443).
   */
  scanFetcher?: SafeFetcher;
  /** runWebsiteAudit's optional model advisory; default none (an empty advisory). */
  advisory?: Advisory;
  /** The deployment's shared webhook secret; undefined closes that path. */
  webhookShared?: SharedWebhookSecret;
  /** The clock; tests move it. */
  now?: () => Date;
}
