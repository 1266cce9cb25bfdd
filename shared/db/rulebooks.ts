/** Typed RPCs of the rulebook (migration 20261121000012_rulebook_rpc.sql). */
import { z } from "zod";
import type { Db } from "./db.ts";
import { rpcFunction } from "./rpc_function.ts";

const Version = z.number().int().min(1);
const RulebookStatus = z.enum(["draft", "active", "retired"]);

/** The active rulebook's version, or null when none is active. */
export const rulebookActive = rpcFunction(
  "rulebook_active",
  (_: void) => ({}),
  z.object({ version: Version }).nullable(),
);

/**
 * One version with its rules, and for format 2 its statutes, concepts and
 * definitions (unchecked here: the engine validates them), or null.
 */
export const rulebookGet = rpcFunction(
  "rulebook_get",
  (version: number) => ({ p_version: version }),
  z.object({
    version: Version,
    status: RulebookStatus,
    published_at: z.string().nullable(),
    rules: z.array(z.unknown()),
    format: z.literal(2).optional(),
    statutes: z.array(z.unknown()).optional(),
    concepts: z.record(z.string(), z.unknown()).optional(),
    definitions: z.record(z.string(), z.unknown()).optional(),
    /** The engine's seal of the document (rulebook_seal.ts), when the version has one. */
    seal: z.string().optional(),
  }).nullable(),
);

/** A version as rulebook_get returns it. */
export type StoredRulebook = NonNullable<Awaited<ReturnType<typeof rulebookGet>>>;

/** The active rulebook read ahead with a Db (readingRulebookAhead), until a load takes it. */
const readAhead = new WeakMap<Db, Promise<StoredRulebook | null>>();

/**
 * Starts reading the active rulebook (rulebook_active, then rulebook_get)
 * with `deps.db`, and returns `deps`. A deployed function that evaluates
 * content calls it before it imports its handler, so that the database
 * connection opens, and the 1 MB document arrives, while the engine's modules
 * load. The document waits for the first load of its version
 * (takeRulebookReadAhead); a failed read is dropped, and that load reads
 * again and fails closed then. This module is light (zod and the RPCs), so
 * the read starts before the engine is imported.
 */
export function readingRulebookAhead<D extends { db: Db }>(deps: D): D {
  const read = (async () => {
    const active = await rulebookActive(deps.db);
    return active === null ? null : await rulebookGet(deps.db, active.version);
  })();
  read.catch(() => {});
  readAhead.set(deps.db, read);
  return deps;
}

/**
 * The version read ahead with `db` when it is `version` (taken once: a later
 * load reads the database), else null; null too when the read failed.
 */
export async function takeRulebookReadAhead(
  db: Db,
  version: number,
): Promise<StoredRulebook | null> {
  const read = readAhead.get(db);
  if (read === undefined) return null;
  readAhead.delete(db);
  try {
    const stored = await read;
    return stored?.version === version ? stored : null;
  } catch {
    return null;
  }
}

/** Records the engine's seal of a validated version (migration 20261125000701_rulebook_seal.sql). */
export const rulebookSealRpc = rpcFunction(
  "rulebook_seal",
  (input: { version: number; seal: string }) => ({
    p_version: input.version,
    p_sha256: input.seal,
  }),
  z.object({ version: Version, sealed: z.literal(true) }),
);

/** A rulebook to store: format 1 is rules only; format 2 adds statutes, concepts and definitions. */
export type RulebookToImport =
  | { version: number; format: 1; rules: readonly unknown[] }
  | {
    version: number;
    format: 2;
    rules: readonly unknown[];
    statutes: readonly unknown[];
    concepts: Record<string, unknown>;
    definitions: Record<string, unknown>;
  };

/** Stores a new version as a draft, all or nothing (migration 20261122000001 for format 2). */
export const rulebookImport = rpcFunction(
  "rulebook_import",
  (input: RulebookToImport) =>
    input.format === 2
      ? {
        p_version: input.version,
        p_rules: input.rules,
        p_format: 2,
        p_statutes: input.statutes,
        p_concepts: input.concepts,
        p_definitions: input.definitions,
      }
      : { p_version: input.version, p_rules: input.rules },
  z.object({ version: Version, rule_count: z.number().int().min(0), status: z.literal("draft") }),
);

/** Makes a version the active one, retiring the one before, atomically. */
export const rulebookActivate = rpcFunction(
  "rulebook_activate",
  (version: number) => ({ p_version: version }),
  z.object({ version: Version, status: z.literal("active"), previous_version: Version.nullable() }),
);

/** Every version, oldest first. */
export const rulebookList = rpcFunction(
  "rulebook_list",
  (_: void) => ({}),
  z.array(z.object({
    version: Version,
    status: RulebookStatus,
    published_at: z.string().nullable(),
    rule_count: z.number().int().min(0),
    format: z.union([z.literal(1), z.literal(2)]).optional(),
  })),
);
