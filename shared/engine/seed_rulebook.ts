/**
 * The seed rulebooks shipped with the project (`supabase/seed/rulebook_v<N>.json`):
 * version 1 (format 1, phrase lists) and version 2 (format 2, the detector
 * language). A new embedded database imports both, so version 1 stays in the
 * history, and activates the newest.
 *
 * @module
 */
import type { Rulebook } from "./rulebook_schema.ts";
import { validateRulebook } from "./rulebook_validation.ts";

/** The seed versions, oldest first. */
export const SEED_VERSIONS = [1, 2] as const;

/** The newest seed version. */
export const NEWEST_SEED_VERSION = SEED_VERSIONS[SEED_VERSIONS.length - 1];

/** Location of a seed rulebook document. */
export function seedRulebookUrl(version: number = NEWEST_SEED_VERSION): URL {
  return new URL(`../../supabase/seed/rulebook_v${version}.json`, import.meta.url);
}

/** Location of the newest seed rulebook document. */
export const SEED_RULEBOOK_URL = seedRulebookUrl();

/** Reads and validates a seed rulebook, the newest by default (needs read permission on the file). */
export async function loadSeedRulebook(version: number = NEWEST_SEED_VERSION): Promise<Rulebook> {
  return validateRulebook(JSON.parse(await Deno.readTextFile(seedRulebookUrl(version))));
}
