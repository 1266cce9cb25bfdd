/**
 * The typed RPC of an audit (migrations 20261121000010, 20261122000013 and
 * 20261124000101). Every SQL statement of the audit path's write lives in
 * that one function, audit_record.
 */
import { z } from "zod";
import { rpcFunction } from "./rpc_function.ts";

/** What an evaluated audit stores: never the content, only its digest and length. */
export interface AuditEntry {
  accountId: string;
  contentSha256: string;
  contentLength: number;
  jurisdiction: string;
  industry: string | null;
  assetUrl: string | null;
  verdict: string;
  riskScore: number;
  penaltyExposureUsd: number;
  rulebookVersion: number;
  endpoint: string;
  latencyMs: number;
  isAgent: boolean;
  /**
   * The call's Idempotency-Key, as SHA-256 digests of the key and of the
   * request's canonical form, with the answer to remember (less `usage`).
   */
  idempotency?: { keySha256: string; requestSha256: string; response: object };
}

/**
 * The outcome of audit_record: accepted or refused at the quota, with the
 * usage after it; for a keyed call, a replay of the key's first answer (its
 * `response` and the usage it answered) or a conflict (the key was used with
 * another request).
 */
export const AuditOutcome = z.object({
  accepted: z.boolean(),
  usage_count: z.number().int().min(0),
  monthly_limit: z.number().int().nullable(),
  replayed: z.literal(true).optional(),
  conflict: z.literal(true).optional(),
  response: z.record(z.string(), z.unknown()).optional(),
});
export type AuditOutcome = z.infer<typeof AuditOutcome>;

/**
 * Records an audit in one transaction: the key's claim when there is one, the
 * conditional usage increment, and when it is accepted the audit row, its 200
 * activity row and the key's answer. A refusal at the quota writes nothing;
 * the caller records it like any other refusal. A replay writes only its 200
 * activity row.
 */
export const auditRecord = rpcFunction(
  "audit_record",
  (entry: AuditEntry) => ({
    p_account_id: entry.accountId,
    p_content_sha256: entry.contentSha256,
    p_content_length: entry.contentLength,
    p_jurisdiction: entry.jurisdiction,
    p_industry: entry.industry,
    p_asset_url: entry.assetUrl,
    p_verdict: entry.verdict,
    p_risk_score: entry.riskScore,
    p_penalty_exposure_usd: entry.penaltyExposureUsd,
    p_rulebook_version: entry.rulebookVersion,
    p_endpoint: entry.endpoint,
    p_latency_ms: entry.latencyMs,
    p_is_agent: entry.isAgent,
    p_idempotency_key_sha256: entry.idempotency?.keySha256,
    p_request_sha256: entry.idempotency?.requestSha256,
    p_response: entry.idempotency?.response,
  }),
  AuditOutcome,
);

/** A cheap call proving the database answers with its migrations applied. */
export const servicePing = rpcFunction(
  "service_ping",
  (_: void) => ({}),
  z.object({ ok: z.literal(true) }),
);
