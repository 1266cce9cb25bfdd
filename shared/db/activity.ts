/** Typed RPCs of the activity log (migration 20261121000011_activity_rpc.sql). */
import { z } from "zod";
import { Activity } from "../contract/account.ts";
import { rpcFunction } from "./rpc_function.ts";

/** One activity record to append (contract 2.8's Activity, less what the database fills in). */
export interface ActivityEntry {
  accountId: string;
  endpoint: string;
  statusCode: number;
  latencyMs: number | null;
  isAgent: boolean;
}

/** Appends an activity record; the plan is the account's at this moment. */
export const activityRecord = rpcFunction(
  "activity_record",
  (entry: ActivityEntry) => ({
    p_account_id: entry.accountId,
    p_endpoint: entry.endpoint,
    p_status_code: entry.statusCode,
    p_latency_ms: entry.latencyMs,
    p_is_agent: entry.isAgent,
  }),
  z.object({ recorded: z.literal(true) }),
);

/** The newest activity of an account, newest first, at most `limit` records. */
export const activityRecent = rpcFunction(
  "activity_recent",
  (input: { accountId: string; limit: number }) => ({
    p_account_id: input.accountId,
    p_limit: input.limit,
  }),
  z.array(Activity),
);

/** Every activity of an account in one UTC month (`YYYY-MM`), oldest first. */
export const activityMonth = rpcFunction(
  "activity_month",
  (input: { accountId: string; month: string }) => ({
    p_account_id: input.accountId,
    p_month: input.month,
  }),
  z.array(Activity),
);
