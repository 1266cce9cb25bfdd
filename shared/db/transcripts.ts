/** Typed RPCs of transcript scans (migration 20261123000104). */
import { z } from "zod";
import type { Industry, Jurisdiction } from "../contract/vocabulary.ts";
import { TranscriptResponse } from "../contract/webhook_ingest.ts";
import { rpcFunction } from "./rpc_function.ts";

/** What a stored scan answers: contract 2.6's fields less success, processing_ms and scan_meta. */
export const StoredScan = TranscriptResponse.omit({
  success: true,
  processing_ms: true,
  scan_meta: true,
}).extend({ scan_result_id: z.uuid() });
export type StoredScan = z.infer<typeof StoredScan>;

/** Who processes a delivery: a scan exists, this request holds the claim, or another does. */
export const DeliveryState = z.discriminatedUnion("state", [
  z.object({ state: z.literal("stored"), scan: StoredScan }),
  z.object({ state: z.literal("claimed"), claim: z.uuid() }),
  z.object({ state: z.literal("pending"), retry_after_seconds: z.number().int().min(1) }),
]);
export type DeliveryState = z.infer<typeof DeliveryState>;

/** Claims a delivery, or answers its stored scan, or says another request holds it. */
export const transcriptDeliveryBegin = rpcFunction(
  "transcript_delivery_begin",
  (input: { integrationId: string; idempotencyKey: string; leaseSeconds: number }) => ({
    p_integration_id: input.integrationId,
    p_idempotency_key: input.idempotencyKey,
    p_lease_seconds: input.leaseSeconds,
  }),
  DeliveryState,
);

/** A scan to store: everything but the credential, which is never stored. */
export interface ScanEntry {
  claim: string;
  accountId: string;
  integrationId: string;
  authPath: "credential" | "shared_secret";
  idempotencyKey: string;
  source: string;
  channel: string | null;
  channelOrigin: string;
  externalConversationId: string | null;
  jurisdictions: readonly Jurisdiction[];
  industry: Industry | null;
  rulebookVersion: number;
  grade: string;
  score: number;
  criticalViolations: number;
  warnings: number;
  passedChecks: number;
  /** `{ messages, findings, passed, scan_meta: { rulebook_source: "database", ... } }` */
  payload: Record<string, unknown>;
}

/**
 * Stores the scan of a claimed delivery and ends the claim in one
 * transaction; answers the stored scan (the first, if another request stored
 * this delivery already), or `lost` when the claim was taken over and nothing
 * was written.
 */
export const transcriptScanStore = rpcFunction(
  "transcript_scan_store",
  (entry: ScanEntry) => ({
    p_claim: entry.claim,
    p_account_id: entry.accountId,
    p_integration_id: entry.integrationId,
    p_auth_path: entry.authPath,
    p_idempotency_key: entry.idempotencyKey,
    p_source: entry.source,
    p_channel: entry.channel,
    p_channel_origin: entry.channelOrigin,
    p_external_conversation_id: entry.externalConversationId,
    p_jurisdictions: [...entry.jurisdictions],
    p_industry: entry.industry,
    p_rulebook_version: entry.rulebookVersion,
    p_grade: entry.grade,
    p_score: entry.score,
    p_critical_violations: entry.criticalViolations,
    p_warnings: entry.warnings,
    p_passed_checks: entry.passedChecks,
    p_payload: entry.payload,
  }),
  z.discriminatedUnion("state", [
    z.object({ state: z.literal("stored"), scan: StoredScan }),
    z.object({ state: z.literal("lost") }),
  ]),
);

/** Gives up a claim, so that a retry processes the delivery afresh. */
export const transcriptDeliveryRelease = rpcFunction(
  "transcript_delivery_release",
  (claim: string) => ({ p_claim: claim }),
  z.object({ released: z.boolean() }),
);

/** The newest scans of an integration, for operators: never the messages. */
export const transcriptScanList = rpcFunction(
  "transcript_scan_list",
  (input: { integrationId: string; limit?: number }) => ({
    p_integration_id: input.integrationId,
    p_limit: input.limit ?? 20,
  }),
  z.array(StoredScan.extend({
    account_id: z.uuid(),
    integration_id: z.uuid(),
    auth_path: z.enum(["credential", "shared_secret"]),
    rulebook_version: z.number().int(),
    created_at: z.string(),
  })),
);

/** Deletes the stored scans older than the retention period (days). */
export const transcriptPurge = rpcFunction(
  "transcript_purge",
  (retentionDays: number) => ({ p_retention_days: retentionDays }),
  z.object({ purged: z.number().int().min(0), cutoff: z.string() }),
);
