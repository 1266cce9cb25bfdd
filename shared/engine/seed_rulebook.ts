/**
 * The seed rulebook shipped with the project (`supabase/seed/rulebook_v1.json`).
 *
 * @module
 */
import type { Rulebook } from "./rulebook_schema.ts";
import { validateRulebook } from "./rulebook_validation.ts";

/** Location of the seed rulebook document. */
export const SEED_RULEBOOK_URL = new URL("../../supabase/seed/rulebook_v1.json", import.meta.url);

/** Reads and validates the seed rulebook (needs read permission on the file). */
export async function loadSeedRulebook(): Promise<Rulebook> {
  return validateRulebook(JSON.parse(await Deno.readTextFile(SEED_RULEBOOK_URL)));
}
