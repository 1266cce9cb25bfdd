/** The typed RPC of a website scan (migrations 20261123000201 and 20261123000202). */
import { z } from "zod";
import type { Grade } from "../contract/grade.ts";
import { rpcFunction } from "./rpc_function.ts";

/** What a completed scan stores: its outcome, never page content or the caller. */
export interface WebsiteScanEntry {
  /** `scheme://host[:port]` of the requested target; no path, no query. */
  targetOrigin: string;
  statusCode: number;
  score: number;
  grade: Grade;
  criticalCount: number;
  warningCount: number;
  passedCount: number;
  advisoryCount: number;
  pagesScanned: number;
  triggeredRules: string[];
  rulebookVersion: number;
  engineVersion: string;
  durationMs: number;
}

/** Stores a completed scan, without an account, with the rulebook version it pinned. */
export const websiteScanRecord = rpcFunction(
  "website_scan_record",
  (entry: WebsiteScanEntry) => ({
    p_target_origin: entry.targetOrigin,
    p_status_code: entry.statusCode,
    p_score: entry.score,
    p_grade: entry.grade,
    p_critical_count: entry.criticalCount,
    p_warning_count: entry.warningCount,
    p_passed_count: entry.passedCount,
    p_advisory_count: entry.advisoryCount,
    p_pages_scanned: entry.pagesScanned,
    p_triggered_rules: entry.triggeredRules,
    p_rulebook_version: entry.rulebookVersion,
    p_engine_version: entry.engineVersion,
    p_duration_ms: entry.durationMs,
  }),
  z.object({ scan_id: z.uuid(), created_at: z.string() }),
);
