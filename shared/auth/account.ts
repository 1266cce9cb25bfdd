import { z } from "zod";
import type { Db } from "../db/db.ts";
import { ACCOUNT_STATUSES, PLANS } from "../contract/vocabulary.ts";
import { isWellFormedApiKey, sha256Hex } from "./api_key.ts";

/** An account as the `api_key_account` RPC returns it. */
export const Account = z.object({
  account_id: z.uuid(),
  plan: z.enum(PLANS),
  status: z.enum(ACCOUNT_STATUSES),
  billing_interval: z.literal("month"),
  price_per_month_usd: z.number().nullable(),
  trial_end: z.string().nullable(),
  monthly_limit: z.number().int().nullable(),
  usage_count: z.number().int().min(0),
});
export type Account = z.infer<typeof Account>;

/**
 * The account a key belongs to, or null when the key is malformed, unknown or
 * revoked. A malformed key is refused without a database round trip; only the
 * key's SHA-256 digest ever reaches the database.
 */
export async function accountForApiKey(
  db: Db,
  key: string | null | undefined,
): Promise<Account | null> {
  if (typeof key !== "string" || !isWellFormedApiKey(key)) return null;
  const row = await db.rpc("api_key_account", { p_key_digest: await sha256Hex(key) });
  return row === null ? null : Account.parse(row);
}

/**
 * Whether the account may use the API-key operations: status active, or
 * trialing with a trial end that has not passed.
 */
export function isAccountInGoodStanding(account: Account, now: Date): boolean {
  if (account.status === "active") return true;
  if (account.status !== "trialing") return false;
  return account.trial_end === null || Date.parse(account.trial_end) > now.getTime();
}
