import type { Db } from "../db/db.ts";
import { rulebookList } from "../db/rulebooks.ts";
import { loadSeedRulebook, NEWEST_SEED_VERSION, SEED_VERSIONS } from "../engine/seed_rulebook.ts";
import { activateRulebook, createAccount, importRulebook, issueApiKey } from "./provisioning.ts";

/** What a first start created: the demo account and its key, shown once. */
export interface FirstStart {
  rulebookVersion: number;
  accountId: string;
  apiKey: string;
}

/** What seeding did: the seed versions imported now, and the version activated now (or null). */
export interface Seeding {
  imported: number[];
  activated: number | null;
}

/**
 * Imports every seed rulebook version the database lacks, oldest first, so
 * that older versions stay in the history, through the same path as
 * `admin rulebook import`. The newest seed is activated when it was
 * imported now and no newer version is active: an operator who later
 * activates another version keeps it across restarts.
 */
export async function seedRulebooks(db: Db): Promise<Seeding> {
  const versions = await rulebookList(db);
  const known = new Set(versions.map((entry) => entry.version));
  const active = versions.find((entry) => entry.status === "active")?.version ?? null;
  const imported: number[] = [];
  for (const version of SEED_VERSIONS) {
    if (known.has(version)) continue;
    await importRulebook(db, await loadSeedRulebook(version));
    imported.push(version);
  }
  let activated: number | null = null;
  if (
    imported.includes(NEWEST_SEED_VERSION) && (active === null || active < NEWEST_SEED_VERSION)
  ) {
    await activateRulebook(db, NEWEST_SEED_VERSION);
    activated = NEWEST_SEED_VERSION;
  }
  return { imported, activated };
}

/**
 * Prepares the embedded database at every start: imports the seed versions it
 * lacks (seedRulebooks). On the very first start, when the database had no
 * rulebook at all, it also creates a demo account (starter, active) with one
 * API key and returns it; otherwise null.
 */
export async function firstStart(db: Db): Promise<FirstStart | null> {
  const fresh = (await rulebookList(db)).length === 0;
  await seedRulebooks(db);
  if (!fresh) return null;
  const account = await createAccount(db, { plan: "starter", status: "active" });
  const key = await issueApiKey(db, account.account_id);
  return {
    rulebookVersion: NEWEST_SEED_VERSION,
    accountId: account.account_id,
    apiKey: key.api_key,
  };
}
