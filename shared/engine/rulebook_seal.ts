/**
 * A rulebook's seal: the SHA-256 of its document exactly as the database
 * returns it (rulebook_get, less status, publication date and seal), under
 * the name of the checks it passed. The admin path seals a version after
 * validating the document read back (provisioning.ts's importRulebook); the
 * per-isolate cache (rulebook_cache.ts) recomputes the digest on load and,
 * when it matches, compiles the document without validating it again. A
 * document changed after sealing, or sealed under older checks, does not
 * match and is validated in full, so a corrupt rulebook is still refused.
 *
 * @module
 */
import { sha256Hex } from "../auth/api_key.ts";
import type { Rulebook } from "./rulebook_schema.ts";

/**
 * The checks a seal vouches for. Change it whenever validateRulebook comes to
 * refuse something it accepted: every older seal then stops matching.
 */
export const SEAL_CHECKS = "rulebook-checks/2";

/** A loaded rulebook document with the seal stored with it (null: never sealed). */
export class SealedDocument {
  constructor(readonly document: unknown, readonly seal: string | null) {}
}

/** The seal of a document: hex SHA-256 of SEAL_CHECKS, a newline and its JSON. */
export function rulebookSeal(document: unknown): Promise<string> {
  return sha256Hex(`${SEAL_CHECKS}\n${JSON.stringify(document)}`);
}

/** Whether a loaded document carries a seal that matches it. */
export async function isSealed(loaded: SealedDocument): Promise<boolean> {
  return loaded.seal !== null && await rulebookSeal(loaded.document) === loaded.seal;
}

/**
 * A sealed document as validateRulebook returns it, without its checks: the
 * stored document is validateRulebook's output already (rules resolved from
 * their statutes); only the shape of format 1 differs.
 */
export function sealedRulebook(document: unknown): Rulebook {
  const d = document as Partial<Rulebook> & { format?: number };
  if (d.format === 2) {
    return {
      version: d.version!,
      format: 2,
      statutes: d.statutes!,
      concepts: d.concepts!,
      definitions: d.definitions ?? {},
      rules: d.rules!,
    };
  }
  return {
    version: d.version!,
    format: 1,
    statutes: [],
    concepts: {},
    definitions: {},
    rules: d.rules!,
  };
}
