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

/** Where the next page of a month starts: after this record (activity_month_page). */
export const MonthCursor = z.object({
  after_created_at: z.string(),
  after_id: z.number().int(),
});
export type MonthCursor = z.infer<typeof MonthCursor>;

/** One page of a month's activity, the cursor of the next page (null on the last) and the export's end. */
export const MonthPage = z.object({
  rows: z.array(Activity),
  next: MonthCursor.nullable(),
  through_id: z.number().int().nullable(),
});
export type MonthPage = z.infer<typeof MonthPage>;

/**
 * One keyset page of an account's activity in a UTC month, oldest first (the
 * order of activityMonth). The first call passes no cursor and no
 * `throughId`; each next call passes the previous page's `next` and the
 * first page's `through_id`, so the pages end where the month ended when the
 * export began.
 */
export const activityMonthPage = rpcFunction(
  "activity_month_page",
  (input: {
    accountId: string;
    month: string;
    pageRows: number;
    after?: MonthCursor;
    throughId?: number | null;
  }) => ({
    p_account_id: input.accountId,
    p_month: input.month,
    p_limit: input.pageRows,
    p_after_created_at: input.after?.after_created_at,
    p_after_id: input.after?.after_id,
    p_through_id: input.throughId ?? undefined,
  }),
  MonthPage,
);
