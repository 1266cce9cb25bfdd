import type { Advisory } from "../advisory/advisory.ts";
import type { SharedWebhookSecret } from "../auth/webhook_credential.ts";
import { MAX_TRANSCRIPT_BODY_BYTES } from "../contract/webhook_ingest.ts";
import type { Db } from "../db/db.ts";
import { type BodyReadGate, DEFAULT_BODY_DEADLINE_MS } from "../http/read_body.ts";
import type { Logger } from "../log/logger.ts";
import type { RateLimiter } from "../ratelimit/rate_limiter.ts";
import type { SafeFetcher } from "../scanner/safe_fetcher.ts";

/** The contract's limits (section 8) and the service's own caps. */
export interface ServiceLimits {
  /** Accepted complianceAudit requests per minute per account. */
  auditPerMinute: number;
  /** agentSubscribe verify requests per minute per client IP. */
  verifyPerMinute: number;
  /** Largest complianceAudit body in bytes: 30,000 characters of emoji, \u-escaped, fit. */
  auditBodyBytes: number;
  /** Largest agentSubscribe body in bytes. */
  accountBodyBytes: number;
  /** How many activity records get_logs returns, newest first. */
  logsReturned: number;
  /** Activity records per page of an export_audit stream (one database round trip each). */
  exportPageRows: number;
  /** runWebsiteAudit requests per minute per client IP (an IPv6 client by its /64). */
  scanPerMinute: number;
  /** Largest runWebsiteAudit body in bytes: one URL of at most 2,048 characters, escaped. */
  scanBodyBytes: number;
  /** webhookIngest requests per minute per account and integration. */
  webhookPerMinute: number;
  /** Largest webhookIngest body in bytes. */
  webhookBodyBytes: number;
  /** How long a duplicate delivery waits for the first one's result before it answers 503. */
  webhookDuplicateWaitMs: number;
  /** The lease of a delivery's claim: after it, a retry takes over from a holder that died. */
  webhookClaimLeaseSeconds: number;
  /** Milliseconds a client may take to send a request body (waiting for a read slot included). */
  bodyDeadlineMs: number;
}

/** The contract's values; tests may lower or raise one to reach a boundary. */
export const DEFAULT_LIMITS: ServiceLimits = {
  auditPerMinute: 60,
  verifyPerMinute: 30,
  // Every valid request fits, even with every character sent as a JSON \u
  // escape (6 bytes a UTF-16 unit): content up to 60,000 units (30,000
  // astral characters) is 360,000 bytes, asset_url up to 2,048 units 12,288,
  // the rest (keys escaped too) under 1,000; 384 KiB leaves room for spacing.
  auditBodyBytes: 384 * 1024,
  // A key is 52 characters; the largest request, escaped, is under 1 KB.
  accountBodyBytes: 16 * 1024,
  logsReturned: 100,
  exportPageRows: 1000,
  scanPerMinute: 10,
  // target_url up to 2,048 units, escaped: 12,288 bytes and the key.
  scanBodyBytes: 16 * 1024,
  webhookPerMinute: 60,
  webhookBodyBytes: MAX_TRANSCRIPT_BODY_BYTES,
  webhookDuplicateWaitMs: 10_000,
  webhookClaimLeaseSeconds: 30,
  bodyDeadlineMs: DEFAULT_BODY_DEADLINE_MS,
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
  /** Bounds how many request bodies are read at once; the local server sets one. */
  bodyReads?: BodyReadGate;
  /** The clock; tests move it. */
  now?: () => Date;
}
