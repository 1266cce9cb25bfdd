/** Typed RPCs of webhook integrations and credentials (migration 20261123000102). */
import { z } from "zod";
import {
  ACCOUNT_STATUSES,
  INDUSTRIES,
  type Industry,
  type Jurisdiction,
  JURISDICTIONS,
} from "../contract/vocabulary.ts";
import { rpcFunction } from "./rpc_function.ts";

const Timestamp = z.string();
const Jurisdictions = z.array(z.enum(JURISDICTIONS)).min(1);

/** An integration as the admin RPCs return it: the active credential by display prefix only. */
export const IntegrationRecord = z.object({
  integration_id: z.uuid(),
  account_id: z.uuid(),
  name: z.string(),
  provider: z.string(),
  jurisdictions: Jurisdictions,
  industry: z.enum(INDUSTRIES).nullable(),
  created_at: Timestamp,
  credential: z.object({ prefix: z.string(), created_at: Timestamp }).nullable(),
});
export type IntegrationRecord = z.infer<typeof IntegrationRecord>;

/** The caller of a webhook request: an integration, its account's standing and its settings. */
export const WebhookCaller = z.object({
  integration_id: z.uuid(),
  account_id: z.uuid(),
  name: z.string(),
  jurisdictions: Jurisdictions,
  industry: z.enum(INDUSTRIES).nullable(),
  status: z.enum(ACCOUNT_STATUSES),
  trial_end: Timestamp.nullable(),
});
export type WebhookCaller = z.infer<typeof WebhookCaller>;

/** Fields of a new integration and the digest and display prefix of its first credential. */
export interface NewIntegration {
  accountId: string;
  name: string;
  provider: string;
  /** Default `["ALL"]`. */
  jurisdictions?: readonly Jurisdiction[];
  /** Default none: rules of every industry. */
  industry?: Industry | null;
  credentialDigest: string;
  credentialPrefix: string;
}

/**
 * Creates an integration with its first credential, in one transaction;
 * raises P0002 for an unknown account and 23505 for a name the account uses.
 */
export const webhookIntegrationCreate = rpcFunction(
  "webhook_integration_create",
  (input: NewIntegration) => ({
    p_account_id: input.accountId,
    p_name: input.name,
    p_provider: input.provider,
    p_credential_digest: input.credentialDigest,
    p_credential_prefix: input.credentialPrefix,
    p_jurisdictions: input.jurisdictions === undefined ? null : [...input.jurisdictions],
    p_industry: input.industry ?? null,
  }),
  IntegrationRecord,
);

/** Changes of an integration's settings; what is left out stays as it is. */
export interface IntegrationChanges {
  integrationId: string;
  provider?: string;
  jurisdictions?: readonly Jurisdiction[];
  /** An industry, or null to remove it. */
  industry?: Industry | null;
}

/** Changes an integration's provider, jurisdictions or industry; raises P0002 when unknown. */
export const webhookIntegrationUpdate = rpcFunction(
  "webhook_integration_update",
  (input: IntegrationChanges) => ({
    p_integration_id: input.integrationId,
    p_provider: input.provider ?? null,
    p_jurisdictions: input.jurisdictions === undefined ? null : [...input.jurisdictions],
    p_industry: input.industry ?? null,
    p_clear_industry: input.industry === null,
  }),
  IntegrationRecord,
);

/** The integrations of an account (or of every account), oldest first. */
export const webhookIntegrationList = rpcFunction(
  "webhook_integration_list",
  (accountId: string | null) => ({ p_account_id: accountId }),
  z.array(IntegrationRecord),
);

/** Replaces an integration's active credential at once; raises P0002 when unknown. */
export const webhookCredentialRotate = rpcFunction(
  "webhook_credential_rotate",
  (input: { integrationId: string; credentialDigest: string; credentialPrefix: string }) => ({
    p_integration_id: input.integrationId,
    p_credential_digest: input.credentialDigest,
    p_credential_prefix: input.credentialPrefix,
  }),
  z.object({
    integration_id: z.uuid(),
    credential_prefix: z.string(),
    previous_prefix: z.string().nullable(),
  }),
);

/** Revokes an integration's active credential; raises P0002 when unknown. */
export const webhookCredentialRevoke = rpcFunction(
  "webhook_credential_revoke",
  (integrationId: string) => ({ p_integration_id: integrationId }),
  z.object({ integration_id: z.uuid(), revoked: z.number().int().min(0).max(1) }),
);

/** The caller behind an unrevoked credential, by the SHA-256 digest of what was sent; else null. */
export const webhookCredentialCaller = rpcFunction(
  "webhook_credential_caller",
  (credentialDigest: string) => ({ p_credential_digest: credentialDigest }),
  WebhookCaller.nullable(),
);

/**
 * The caller of the shared-secret path: the configured account's integration
 * of the configured name, created on first use; null when the account does
 * not exist.
 */
export const webhookSharedCaller = rpcFunction(
  "webhook_shared_caller",
  (input: { accountId: string; integrationName: string }) => ({
    p_account_id: input.accountId,
    p_name: input.integrationName,
  }),
  WebhookCaller.nullable(),
);
