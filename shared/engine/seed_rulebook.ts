/**
 * The seed rulebooks shipped with the project (`supabase/seed/rulebook_v<N>.json`):
 * version 1 (format 1, phrase lists), version 2 (format 2, the detector
 * language), version 3 (format 2, retuned on corpus rounds 4 to 6) and
 * version 4 (format 2, rules re-derived from the statutes and retuned on
 * round 7). A
 * corrected rulebook is a new version, never an edit of a shipped one: a
 * database that already holds a version keeps it, and imports only the
 * versions it lacks. A new embedded database imports them all, oldest first,
 * so the older ones stay in the history, and activates the newest.
 *
 * @module
 */
import type { Rulebook } from "./rulebook_schema.ts";
import { validateRulebook } from "./rulebook_validation.ts";

/** The seed versions, oldest first. */
export const SEED_VERSIONS = [1, 2, 3, 4] as const;

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
