import type { Db } from "../db/db.ts";
import { rulebookList } from "../db/rulebooks.ts";
import { loadSeedRulebook } from "../engine/seed_rulebook.ts";
import { activateRulebook, createAccount, importRulebook, issueApiKey } from "./provisioning.ts";

/** What a first start created: the demo account and its key, shown once. */
export interface FirstStart {
  rulebookVersion: number;
  accountId: string;
  apiKey: string;
}

/**
 * Prepares a new embedded database: imports and activates the seed rulebook
 * and creates a demo account (starter, active) with one API key. A database
 * that has any rulebook is left alone and null is returned.
 */
export async function firstStart(db: Db): Promise<FirstStart | null> {
  if ((await rulebookList(db)).length > 0) return null;
  const seed = await loadSeedRulebook();
  await importRulebook(db, seed);
  await activateRulebook(db, seed.version);
  const account = await createAccount(db, { plan: "starter", status: "active" });
  const key = await issueApiKey(db, account.account_id);
  return { rulebookVersion: seed.version, accountId: account.account_id, apiKey: key.api_key };
}
