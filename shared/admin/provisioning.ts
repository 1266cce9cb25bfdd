import { z } from "zod";
import { Account } from "../auth/account.ts";
import { generateApiKey } from "../auth/api_key.ts";
import type { AccountStatus, Plan } from "../contract/vocabulary.ts";
import type { Db } from "../db/db.ts";
import type { Rulebook } from "../engine/rulebook_schema.ts";
import { validateRulebook } from "../engine/rulebook_validation.ts";

/**
 * Operator provisioning, shared by the admin CLI and the local server's first
 * start. Every write goes through the same RPCs as the service.
 */

const Timestamp = z.iso.datetime({ offset: true });

/** An account as the admin RPCs return it: the lookup's fields, without usage. */
export const AdminAccount = Account.omit({ monthly_limit: true, usage_count: true }).passthrough();
export type AdminAccount = z.infer<typeof AdminAccount>;

/** Fields of a new account. */
export interface NewAccount {
  plan: Plan;
  status: AccountStatus;
  trialEnd?: string | null;
  pricePerMonthUsd?: number | null;
}

/** Creates an account. */
export async function createAccount(db: Db, input: NewAccount): Promise<AdminAccount> {
  if (input.trialEnd != null) Timestamp.parse(input.trialEnd);
  return AdminAccount.parse(
    await db.rpc("account_create", {
      p_plan: input.plan,
      p_status: input.status,
      p_trial_end: input.trialEnd ?? null,
      p_price_per_month_usd: input.pricePerMonthUsd ?? null,
    }),
  );
}

/** Changes of an account; what is left out stays as it is. */
export interface AccountChanges {
  plan?: Plan;
  status?: AccountStatus;
  /** A date-time, or null to clear the trial end. */
  trialEnd?: string | null;
}

/** Changes an account's plan, status or trial end. */
export async function updateAccount(
  db: Db,
  accountId: string,
  changes: AccountChanges,
): Promise<AdminAccount> {
  if (changes.trialEnd != null) Timestamp.parse(changes.trialEnd);
  return AdminAccount.parse(
    await db.rpc("account_update", {
      p_account_id: accountId,
      p_plan: changes.plan ?? null,
      p_status: changes.status ?? null,
      p_trial_end: changes.trialEnd ?? null,
      p_clear_trial_end: changes.trialEnd === null,
    }),
  );
}

/** A key just issued: the plaintext is in `api_key` and exists nowhere else. */
export interface IssuedKey {
  api_key: string;
  key_prefix: string;
  key_id: string;
  account_id: string;
}

/** Issues an API key for an account; only its digest and display prefix are stored. */
export async function issueApiKey(db: Db, accountId: string): Promise<IssuedKey> {
  const key = await generateApiKey();
  const row = await db.rpc<{ key_id: string; key_prefix: string; account_id: string }>(
    "api_key_create",
    { p_account_id: accountId, p_key_digest: key.digest, p_key_prefix: key.displayPrefix },
  );
  return {
    api_key: key.key,
    key_prefix: row.key_prefix,
    key_id: row.key_id,
    account_id: row.account_id,
  };
}

/** Revokes the keys with a display prefix; returns how many were revoked. */
export async function revokeApiKey(db: Db, keyPrefix: string): Promise<number> {
  const row = await db.rpc<{ revoked: number }>("api_key_revoke", { p_key_prefix: keyPrefix });
  return row.revoked;
}

/**
 * Validates a rulebook document (every detector checked, unsafe patterns
 * refused naming the rule) and stores it as a draft version.
 */
export async function importRulebook(
  db: Db,
  document: unknown,
): Promise<{ version: number; rule_count: number }> {
  const rulebook: Rulebook = validateRulebook(document);
  return await db.rpc(
    "rulebook_import",
    rulebook.format === 2
      ? {
        p_version: rulebook.version,
        p_rules: rulebook.rules,
        p_format: 2,
        p_statutes: rulebook.statutes,
        p_concepts: rulebook.concepts,
        p_definitions: rulebook.definitions,
      }
      : { p_version: rulebook.version, p_rules: rulebook.rules },
  );
}

/** Makes a version the active rulebook, retiring the one before, atomically. */
export async function activateRulebook(
  db: Db,
  version: number,
): Promise<{ version: number; previous_version: number | null }> {
  return await db.rpc("rulebook_activate", { p_version: version });
}
