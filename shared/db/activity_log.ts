import type { Logger } from "../log/logger.ts";
import type { Db } from "./db.ts";

/** One activity record to append (contract 2.8's Activity, less what the database fills in). */
export interface ActivityEntry {
  accountId: string;
  endpoint: string;
  statusCode: number;
  latencyMs: number | null;
  isAgent: boolean;
}

/**
 * Appends an activity record in one round trip. A failure is logged and
 * swallowed: the record must never fail the request it records.
 */
export async function recordActivity(
  db: Db,
  entry: ActivityEntry,
  options: { logger: Logger; requestId: string },
): Promise<void> {
  try {
    await db.rpc("activity_record", {
      p_account_id: entry.accountId,
      p_endpoint: entry.endpoint,
      p_status_code: entry.statusCode,
      p_latency_ms: entry.latencyMs,
      p_is_agent: entry.isAgent,
    });
  } catch (error) {
    options.logger.log("warn", "activity record not written", {
      request_id: options.requestId,
      endpoint: entry.endpoint,
      error: error instanceof Error ? error.name : typeof error,
    });
  }
}
