/** Typed RPCs of accounts and API keys (migration 20261121000009_account_rpc.sql). */
import { z } from "zod";
import { ACCOUNT_STATUSES, type AccountStatus, type Plan, PLANS } from "../contract/vocabulary.ts";
import { rpcFunction } from "./rpc_function.ts";

const Timestamp = z.string();

/** An account as the admin RPCs return it. */
export const AccountRecord = z.object({
  account_id: z.uuid(),
  plan: z.enum(PLANS),
  status: z.enum(ACCOUNT_STATUSES),
  billing_interval: z.literal("month"),
  price_per_month_usd: z.number().nullable(),
  trial_end: Timestamp.nullable(),
  created_at: Timestamp,
});
export type AccountRecord = z.infer<typeof AccountRecord>;

/** An account with this UTC month's usage and its plan's quota (null = unlimited). */
export const AccountWithUsage = AccountRecord.extend({
  usage_count: z.number().int().min(0),
  monthly_limit: z.number().int().nullable(),
});
export type AccountWithUsage = z.infer<typeof AccountWithUsage>;

/** The account behind an API key, as the request path sees it. */
export const KeyAccount = AccountWithUsage.omit({ created_at: true });
export type KeyAccount = z.infer<typeof KeyAccount>;

/** Fields of a new account. */
export interface NewAccount {
  plan: Plan;
  status: AccountStatus;
  trialEnd?: string | null;
  pricePerMonthUsd?: number | null;
}

/** Creates an account. */
export const accountCreate = rpcFunction(
  "account_create",
  (input: NewAccount) => ({
    p_plan: input.plan,
    p_status: input.status,
    p_trial_end: input.trialEnd ?? null,
    p_price_per_month_usd: input.pricePerMonthUsd ?? null,
  }),
  AccountRecord,
);

/** An account with its usage, or null when there is none with this id. */
export const accountGet = rpcFunction(
  "account_get",
  (accountId: string) => ({ p_account_id: accountId }),
  AccountWithUsage.nullable(),
);

/** Every account, oldest first. */
export const accountList = rpcFunction("account_list", (_: void) => ({}), z.array(AccountRecord));

/** Changes of an account; what is left out stays as it is. */
export interface AccountChanges {
  accountId: string;
  plan?: Plan;
  status?: AccountStatus;
  /** A date-time, or null to clear the trial end. */
  trialEnd?: string | null;
}

/** Changes an account's plan, status or trial end; raises P0002 for an unknown account. */
export const accountUpdate = rpcFunction(
  "account_update",
  (input: AccountChanges) => ({
    p_account_id: input.accountId,
    p_plan: input.plan ?? null,
    p_status: input.status ?? null,
    p_trial_end: input.trialEnd ?? null,
    p_clear_trial_end: input.trialEnd === null,
  }),
  AccountRecord,
);

/** Stores a key as its digest and display prefix; never the key. */
export const apiKeyCreate = rpcFunction(
  "api_key_create",
  (input: { accountId: string; keyDigest: string; keyPrefix: string }) => ({
    p_account_id: input.accountId,
    p_key_digest: input.keyDigest,
    p_key_prefix: input.keyPrefix,
  }),
  z.object({
    key_id: z.uuid(),
    key_prefix: z.string(),
    account_id: z.uuid(),
    created_at: Timestamp,
  }),
);

/** Revokes every active key with a display prefix; returns how many were revoked. */
export const apiKeyRevoke = rpcFunction(
  "api_key_revoke",
  (keyPrefix: string) => ({ p_key_prefix: keyPrefix }),
  z.object({ revoked: z.number().int().min(0) }),
);

/** The keys of an account, oldest first; never a digest. */
export const apiKeyList = rpcFunction(
  "api_key_list",
  (accountId: string) => ({ p_account_id: accountId }),
  z.array(z.object({
    key_id: z.uuid(),
    key_prefix: z.string(),
    created_at: Timestamp,
    revoked_at: Timestamp.nullable(),
  })),
);

/** The account of an unrevoked key, by the key's SHA-256 digest; null otherwise. */
export const apiKeyAccount = rpcFunction(
  "api_key_account",
  (keyDigest: string) => ({ p_key_digest: keyDigest }),
  KeyAccount.nullable(),
);

/** The account of a key with the active rulebook's version (null when none is active). */
export const AuditKeyAccount = KeyAccount.extend({
  active_rulebook_version: z.number().int().min(1).nullable(),
});
export type AuditKeyAccount = z.infer<typeof AuditKeyAccount>;

/**
 * complianceAudit's one lookup (migration 20261124000601): the account of an
 * unrevoked key, by its SHA-256 digest, with the active rulebook's version;
 * null when the key is unknown or revoked.
 */
export const auditKeyAccount = rpcFunction(
  "audit_key_account",
  (keyDigest: string) => ({ p_key_digest: keyDigest }),
  AuditKeyAccount.nullable(),
);
