import { z } from "zod";
import { PLANS } from "./vocabulary.ts";

const ApiKeyField = z.string().min(1).optional();

/** Contract 2.7: the month of an export, `YYYY-MM`. */
export const MONTH_PATTERN = /^\d{4}-(0[1-9]|1[0-2])$/;

/** Contract 2.7: the agentSubscribe requests, chosen by `action`. Unknown fields are rejected. */
export const AccountRequest = z.discriminatedUnion("action", [
  z.strictObject({ action: z.literal("verify"), api_key: ApiKeyField }),
  z.strictObject({ action: z.literal("get_logs"), api_key: ApiKeyField }),
  z.strictObject({
    action: z.literal("export_audit"),
    month: z.string().regex(MONTH_PATTERN, "month must be YYYY-MM").optional(),
    api_key: ApiKeyField,
  }),
]);
export type AccountRequest = z.infer<typeof AccountRequest>;

const DateTime = z.iso.datetime({ offset: true });

/** Contract 2.8: the verification object; no extra fields. */
export const VerifyResponse = z.strictObject({
  valid: z.literal(true),
  plan: z.enum(PLANS),
  billing_interval: z.literal("month"),
  price_per_month_usd: z.number().nullable(),
  status: z.enum(["active", "trialing"]),
  usage_count: z.number().int().min(0),
  trial_end: DateTime.nullable(),
});
export type VerifyResponse = z.infer<typeof VerifyResponse>;

/** Contract 2.8: one activity record; no extra fields. */
export const Activity = z.strictObject({
  timestamp: DateTime,
  endpoint_queried: z.string(),
  status_code: z.number().int(),
  response_latency_ms: z.number().nullable(),
  plan: z.enum(PLANS),
  is_agent: z.boolean(),
});
export type Activity = z.infer<typeof Activity>;

/** Contract 2.8: the activity log; no extra fields. */
export const LogsResponse = z.strictObject({
  logs: z.array(Activity),
  account_id: z.uuid(),
});
export type LogsResponse = z.infer<typeof LogsResponse>;

/** Contract 7.2: the agentSubscribe error envelope. */
export const AccountErrorEnvelope = z.strictObject({ error: z.string() });
export type AccountErrorEnvelope = z.infer<typeof AccountErrorEnvelope>;

/** The CSV export's columns, in the contract's order. */
export const ACTIVITY_CSV_COLUMNS = [
  "timestamp",
  "endpoint_queried",
  "status_code",
  "response_latency_ms",
  "plan",
  "is_agent",
] as const;
