/**
 * Webhook credentials (webhookIngest): generation, and the caller behind the
 * value of the `x-webhook-secret` header, by integration credential or by the
 * deployment's shared secret.
 *
 * @module
 */
import { Buffer } from "node:buffer";
import { createHash, timingSafeEqual } from "node:crypto";
import type { Db } from "../db/db.ts";
import {
  type WebhookCaller,
  webhookCredentialCaller,
  webhookSharedCaller,
} from "../db/webhook_integrations.ts";
import { isAccountInGoodStanding } from "./account.ts";
import { generatePrefixedSecret, sha256Hex } from "./api_key.ts";

/** Every webhook credential starts with this fixed prefix (API keys start with `cas_live_`). */
export const WEBHOOK_CREDENTIAL_PREFIX = "cas_whk_";
/** Characters of a credential shown to operators and stored in clear: prefix plus four. */
export const WEBHOOK_CREDENTIAL_DISPLAY_LENGTH = WEBHOOK_CREDENTIAL_PREFIX.length + 4;

/** A new webhook credential in plaintext (shown once), its digest and display prefix. */
export interface IssuedWebhookCredential {
  credential: string;
  digest: string;
  displayPrefix: string;
}

/** Creates a random webhook credential: the fixed prefix and 32 random bytes, base64url. */
export async function generateWebhookCredential(): Promise<IssuedWebhookCredential> {
  const { value, ...stored } = await generatePrefixedSecret(
    WEBHOOK_CREDENTIAL_PREFIX,
    WEBHOOK_CREDENTIAL_DISPLAY_LENGTH,
  );
  return { credential: value, ...stored };
}

/** The deployment-issued shared secret and what it is bound to (contract 5.6). */
export interface SharedWebhookSecret {
  secret: string;
  accountId: string;
  integrationName: string;
}

/** The shared secret ready for comparison: its SHA-256 digest in place of the secret. */
export interface PreparedSharedSecret {
  digest: Uint8Array;
  accountId: string;
  integrationName: string;
}

/**
 * Hashes the shared secret once, when a handler is built, so that a request
 * hashes only the value it presents.
 */
export function prepareSharedSecret(shared: SharedWebhookSecret): PreparedSharedSecret {
  return {
    digest: Uint8Array.from(createHash("sha256").update(shared.secret, "utf8").digest()),
    accountId: shared.accountId,
    integrationName: shared.integrationName,
  };
}

/** An authenticated webhook caller. */
export interface AuthenticatedCaller extends WebhookCaller {
  /** How it authenticated. */
  authPath: "credential" | "shared_secret";
}

/**
 * The caller behind the value of `x-webhook-secret`, or null for a missing,
 * invalid, revoked or unknown credential, or one whose account is neither
 * active nor trialing: callers answer every null with one identical 401.
 *
 * The work does not depend on the value: whatever was sent (nothing counts as
 * the empty string) is hashed and looked up once by its SHA-256 digest, and
 * when the shared-secret path is open it is compared with the shared secret
 * in constant time (its digest with the shared secret's, prepared once by
 * {@linkcode prepareSharedSecret}, `timingSafeEqual`). Only the digest
 * reaches the database; the value is never logged or stored.
 */
export async function webhookCallerFor(
  db: Db,
  presented: string | null,
  options: { shared?: PreparedSharedSecret; now: Date },
): Promise<AuthenticatedCaller | null> {
  const value = presented ?? "";
  const digest = await sha256Hex(value);
  const byCredential = await webhookCredentialCaller(db, digest);
  const sharedMatches = options.shared !== undefined &&
    timingSafeEqual(hexBytes(digest), options.shared.digest);
  let caller: AuthenticatedCaller | null = null;
  if (byCredential !== null) {
    caller = { ...byCredential, authPath: "credential" };
  } else if (sharedMatches && options.shared !== undefined) {
    const shared = await webhookSharedCaller(db, {
      accountId: options.shared.accountId,
      integrationName: options.shared.integrationName,
    });
    // A shared secret bound to an account that does not exist is the
    // deployment's fault, not the caller's: a failure, not a 401.
    if (shared === null) throw new Error("The shared secret's account does not exist");
    caller = { ...shared, authPath: "shared_secret" };
  }
  if (caller === null || !isAccountInGoodStanding(caller, options.now)) return null;
  return caller;
}

function hexBytes(hex: string): Uint8Array {
  return Uint8Array.from(Buffer.from(hex, "hex"));
}
