import {
  apiKeyAccount,
  type AuditKeyAccount,
  auditKeyAccount,
  type KeyAccount,
} from "../db/accounts.ts";
import type { Db } from "../db/db.ts";
import { isWellFormedApiKey, sha256Hex } from "./api_key.ts";

/** The account of an API key, as the request path sees it. */
export type Account = KeyAccount;

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
  return await apiKeyAccount(db, await sha256Hex(key));
}

/**
 * accountForApiKey for complianceAudit: the same account with the active
 * rulebook's version, in the same one round trip.
 */
export async function auditAccountForApiKey(
  db: Db,
  key: string | null | undefined,
): Promise<AuditKeyAccount | null> {
  if (typeof key !== "string" || !isWellFormedApiKey(key)) return null;
  return await auditKeyAccount(db, await sha256Hex(key));
}

/**
 * Whether the account may use the service (the API-key operations, and
 * webhookIngest for its integrations): status active, or trialing with a
 * trial end that has not passed.
 */
export function isAccountInGoodStanding(
  account: Pick<Account, "status" | "trial_end">,
  now: Date,
): boolean {
  if (account.status === "active") return true;
  if (account.status !== "trialing") return false;
  return account.trial_end === null || Date.parse(account.trial_end) > now.getTime();
}
