/** The typed RPC of an audit (migrations 20261121000010 and 20261122000013). */
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
}

/** The outcome of audit_record: accepted or refused at the quota, with the usage after it. */
export const AuditOutcome = z.object({
  accepted: z.boolean(),
  usage_count: z.number().int().min(0),
  monthly_limit: z.number().int().nullable(),
});
export type AuditOutcome = z.infer<typeof AuditOutcome>;

/**
 * Records an audit in one transaction: the conditional usage increment, and
 * when it is accepted the audit row and its 200 activity row. A refusal at the
 * quota writes nothing; the caller records it like any other refusal.
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
  }),
  AuditOutcome,
);
