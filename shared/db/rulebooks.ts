/** Typed RPCs of the rulebook (migration 20261121000012_rulebook_rpc.sql). */
import { z } from "zod";
import { rpcFunction } from "./rpc_function.ts";

const Version = z.number().int().min(1);
const RulebookStatus = z.enum(["draft", "active", "retired"]);

/** The active rulebook's version, or null when none is active. */
export const rulebookActive = rpcFunction(
  "rulebook_active",
  (_: void) => ({}),
  z.object({ version: Version }).nullable(),
);

/** One version with its rules (unchecked here: the engine validates them), or null. */
export const rulebookGet = rpcFunction(
  "rulebook_get",
  (version: number) => ({ p_version: version }),
  z.object({
    version: Version,
    status: RulebookStatus,
    published_at: z.string().nullable(),
    rules: z.array(z.unknown()),
  }).nullable(),
);

/** Stores a new version as a draft, all or nothing. */
export const rulebookImport = rpcFunction(
  "rulebook_import",
  (input: { version: number; rules: readonly unknown[] }) => ({
    p_version: input.version,
    p_rules: input.rules,
  }),
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
  })),
);
