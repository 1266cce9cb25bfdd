import { z } from "zod";
import { generateApiKey } from "../auth/api_key.ts";
import { generateWebhookCredential } from "../auth/webhook_credential.ts";
import {
  type AccountChanges,
  accountCreate,
  type AccountRecord,
  accountUpdate,
  apiKeyCreate,
  apiKeyRevoke,
  type NewAccount,
} from "../db/accounts.ts";
import type { Db } from "../db/db.ts";
import { rulebookActivate, rulebookGet, rulebookImport, rulebookSealRpc } from "../db/rulebooks.ts";
import { storedDocument } from "../engine/active_rulebook.ts";
import { rulebookSeal } from "../engine/rulebook_seal.ts";
import {
  type IntegrationRecord,
  type NewIntegration,
  webhookCredentialRevoke,
  webhookCredentialRotate,
  webhookIntegrationCreate,
} from "../db/webhook_integrations.ts";
import type { Rulebook } from "../engine/rulebook_schema.ts";
import { RulebookError, validateRulebook } from "../engine/rulebook_validation.ts";

/**
 * Operator provisioning, shared by the admin CLI and the local server's first
 * start. Every write goes through the same typed RPCs as the service.
 */

const Timestamp = z.iso.datetime({ offset: true });

export type { AccountChanges, NewAccount };

/** Creates an account; a trial end must be an ISO 8601 date-time with an offset. */
export async function createAccount(db: Db, input: NewAccount): Promise<AccountRecord> {
  if (input.trialEnd != null) Timestamp.parse(input.trialEnd);
  return await accountCreate(db, input);
}

/** Changes an account's plan, status or trial end (null clears it). */
export async function updateAccount(db: Db, changes: AccountChanges): Promise<AccountRecord> {
  if (changes.trialEnd != null) Timestamp.parse(changes.trialEnd);
  return await accountUpdate(db, changes);
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
  const row = await apiKeyCreate(db, {
    accountId,
    keyDigest: key.digest,
    keyPrefix: key.displayPrefix,
  });
  return {
    api_key: key.key,
    key_prefix: row.key_prefix,
    key_id: row.key_id,
    account_id: row.account_id,
  };
}

/** Revokes the keys with a display prefix; returns how many were revoked. */
export async function revokeApiKey(db: Db, keyPrefix: string): Promise<number> {
  return (await apiKeyRevoke(db, keyPrefix)).revoked;
}

/** A webhook integration just created: the plaintext credential is in `credential` and nowhere else. */
export interface IssuedIntegration {
  integration: IntegrationRecord;
  credential: string;
}

/**
 * Creates a webhook integration of an account with its first credential;
 * only the credential's digest and display prefix are stored.
 */
export async function createIntegration(
  db: Db,
  input: Omit<NewIntegration, "credentialDigest" | "credentialPrefix">,
): Promise<IssuedIntegration> {
  const credential = await generateWebhookCredential();
  const integration = await webhookIntegrationCreate(db, {
    ...input,
    credentialDigest: credential.digest,
    credentialPrefix: credential.displayPrefix,
  });
  return { integration, credential: credential.credential };
}

/** A credential just rotated in: shown once; the previous one stopped at once. */
export interface RotatedCredential {
  integration_id: string;
  credential: string;
  credential_prefix: string;
  previous_prefix: string | null;
}

/** Gives an integration a new credential; its previous one stops at once. */
export async function rotateIntegrationCredential(
  db: Db,
  integrationId: string,
): Promise<RotatedCredential> {
  const credential = await generateWebhookCredential();
  const rotated = await webhookCredentialRotate(db, {
    integrationId,
    credentialDigest: credential.digest,
    credentialPrefix: credential.displayPrefix,
  });
  return { ...rotated, credential: credential.credential };
}

/** Revokes an integration's credential; returns how many were revoked (0 or 1). */
export async function revokeIntegrationCredential(db: Db, integrationId: string): Promise<number> {
  return (await webhookCredentialRevoke(db, integrationId)).revoked;
}

/**
 * Validates a rulebook document of either format (every detector checked;
 * unsafe patterns, unknown concepts and oversized terms refused naming the
 * rule) and stores it as a draft version.
 */
export async function importRulebook(
  db: Db,
  document: unknown,
): Promise<{ version: number; rule_count: number }> {
  const rulebook: Rulebook = validateRulebook(document);
  const { version, rule_count } = await rulebookImport(
    db,
    rulebook.format === 2
      ? {
        version: rulebook.version,
        format: 2,
        rules: rulebook.rules,
        statutes: rulebook.statutes,
        concepts: rulebook.concepts,
        definitions: rulebook.definitions,
      }
      : { version: rulebook.version, format: 1, rules: rulebook.rules },
  );
  await sealRulebook(db, version);
  return { version, rule_count };
}

/**
 * Validates a stored version exactly as the engine will read it back and
 * records its seal (rulebook_seal.ts), so that a cold function compiles it
 * without validating it again. Throws RulebookError when the stored document
 * does not pass (then it stays unsealed and is validated, and refused, on
 * load).
 */
export async function sealRulebook(db: Db, version: number): Promise<void> {
  const row = await rulebookGet(db, version);
  if (row === null) throw new RulebookError(`Rulebook v${version} does not exist`);
  const [document] = storedDocument(row);
  validateRulebook(document);
  await rulebookSealRpc(db, { version, seal: await rulebookSeal(document) });
}

/** Makes a version the active rulebook, retiring the one before, atomically. */
export async function activateRulebook(
  db: Db,
  version: number,
): Promise<{ version: number; previous_version: number | null }> {
  const { previous_version } = await rulebookActivate(db, version);
  return { version, previous_version };
}
