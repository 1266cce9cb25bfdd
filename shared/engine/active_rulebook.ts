import type { Db } from "../db/db.ts";
import {
  rulebookActive,
  rulebookGet,
  type StoredRulebook,
  takeRulebookReadAhead,
} from "../db/rulebooks.ts";
import type { CompiledRulebook } from "./compiler.ts";
import { getCompiledRulebook } from "./rulebook_cache.ts";
import { SealedDocument } from "./rulebook_seal.ts";

/** The active rulebook, compiled, with its version. */
export interface ActiveRulebook {
  version: number;
  compiled: CompiledRulebook;
}

/** There is no active rulebook: the operation must fail, never fall back. */
export class NoActiveRulebookError extends Error {
  constructor() {
    super("No active rulebook");
    this.name = "NoActiveRulebookError";
  }
}

/**
 * The database's active rulebook. One RPC asks for the active version; the
 * version's rules are loaded and compiled once per isolate (rulebook_cache).
 * There is no fallback rulebook anywhere: no active version, a failed load or
 * an invalid rulebook all throw.
 */
export async function activeRulebook(db: Db): Promise<ActiveRulebook> {
  const active = await rulebookActive(db);
  return await rulebookOfVersion(db, active?.version ?? null);
}

/**
 * The rulebook of an active version the caller already knows (complianceAudit
 * reads it with the account): no round trip when the version is cached, one
 * (rulebook_get) when it is not. A null version throws NoActiveRulebookError.
 */
export async function rulebookOfVersion(
  db: Db,
  version: number | null,
): Promise<ActiveRulebook> {
  if (version === null) throw new NoActiveRulebookError();
  const compiled = await getCompiledRulebook(version, async (version) => {
    // The version read ahead as the isolate started (readingRulebookAhead), else read now.
    const rulebook = (await takeRulebookReadAhead(db, version)) ?? await rulebookGet(db, version);
    if (rulebook === null) throw new NoActiveRulebookError();
    // The import document again: everything but the version's status, publication date and
    // seal; a sealed document is compiled without validating it again (rulebook_seal.ts).
    return new SealedDocument(...storedDocument(rulebook));
  });
  return { version, compiled };
}

/** A rulebook_get answer as the document the engine validated and sealed, and its seal. */
export function storedDocument(row: StoredRulebook): [document: unknown, seal: string | null] {
  const { status: _status, published_at: _published, seal, ...document } = row;
  return [document, seal ?? null];
}
