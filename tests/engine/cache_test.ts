import assert from "node:assert/strict";
import {
  clearRulebookCache,
  getCompiledRulebook,
  loadSeedRulebook,
  type Rulebook,
  RulebookError,
} from "../../shared/engine/mod.ts";
import { rulebookOfVersion } from "../../shared/engine/active_rulebook.ts";
import { type Db, DbError } from "../../shared/db/db.ts";
import { readingRulebookAhead } from "../../shared/db/rulebooks.ts";

const seed = await loadSeedRulebook(1);

function versioned(version: number): Rulebook {
  return { ...seed, version };
}

Deno.test("getCompiledRulebook() compiles each version once, sharing concurrent first loads", async () => {
  clearRulebookCache();
  const calls: number[] = [];
  const load = async (version: number) => {
    calls.push(version);
    await new Promise((resolve) => setTimeout(resolve, 5));
    return versioned(version);
  };
  const [a, b] = await Promise.all([getCompiledRulebook(1, load), getCompiledRulebook(1, load)]);
  const c = await getCompiledRulebook(1, load);
  assert.equal(a, b);
  assert.equal(a, c);
  assert.deepEqual(calls, [1]);
  const v2 = await getCompiledRulebook(2, load);
  assert.equal(v2.version, 2);
  assert.deepEqual(calls, [1, 2]);
  clearRulebookCache();
  await getCompiledRulebook(1, load);
  assert.deepEqual(calls, [1, 2, 1]);
});

Deno.test("getCompiledRulebook() does not cache a failed load and never falls back", async () => {
  clearRulebookCache();
  let calls = 0;
  const failing = () => {
    calls += 1;
    return Promise.reject(new Error("database down"));
  };
  await assert.rejects(getCompiledRulebook(3, failing), /database down/);
  await assert.rejects(getCompiledRulebook(3, failing), /database down/);
  assert.equal(calls, 2);
  const compiled = await getCompiledRulebook(3, () => Promise.resolve(versioned(3)));
  assert.equal(compiled.version, 3);
});

Deno.test("getCompiledRulebook() validates what the loader returns", async () => {
  clearRulebookCache();
  await assert.rejects(
    getCompiledRulebook(4, () => Promise.resolve({ version: 4, rules: [{ rule_key: "x" }] })),
    RulebookError,
  );
  await assert.rejects(getCompiledRulebook(5, () => Promise.resolve(versioned(6))), /version 6/);
  clearRulebookCache();
});

/** A Db that answers the rulebook RPCs with seed version 1 and records each call. */
function rulebookDb(failGets = 0) {
  const calls: string[] = [];
  let failures = failGets;
  const db: Db = {
    rpc<T>(name: string): Promise<T> {
      calls.push(name);
      if (name === "rulebook_active") return Promise.resolve({ version: 1 } as T);
      if (name === "rulebook_get") {
        if (failures > 0) {
          failures -= 1;
          return Promise.reject(new DbError("database down"));
        }
        return Promise.resolve(
          { version: 1, status: "active", published_at: null, rules: seed.rules } as T,
        );
      }
      return Promise.reject(new Error(`unexpected RPC ${name}`));
    },
    close: () => Promise.resolve(),
  };
  return { db, calls };
}

Deno.test("readingRulebookAhead() reads the active rulebook before any request, and its first load takes it once", async () => {
  clearRulebookCache();
  const { db, calls } = rulebookDb();
  const deps = { db };
  assert.equal(readingRulebookAhead(deps), deps);
  assert.deepEqual(calls, ["rulebook_active"], "the read starts at once");
  const { compiled } = await rulebookOfVersion(db, 1);
  assert.equal(compiled.version, 1);
  assert.deepEqual(calls, ["rulebook_active", "rulebook_get"], "the load took what was read");
  // Taken once: a new load (another isolate's cache, here cleared) reads the database.
  clearRulebookCache();
  await rulebookOfVersion(db, 1);
  assert.deepEqual(calls, ["rulebook_active", "rulebook_get", "rulebook_get"]);
  clearRulebookCache();
});

Deno.test("a rulebook read ahead is dropped when it failed or is of another version", async () => {
  clearRulebookCache();
  const failing = rulebookDb(1);
  readingRulebookAhead({ db: failing.db });
  const { compiled } = await rulebookOfVersion(failing.db, 1);
  assert.equal(compiled.version, 1);
  assert.deepEqual(failing.calls, ["rulebook_active", "rulebook_get", "rulebook_get"]);
  clearRulebookCache();

  // Version 2 activated meanwhile: what was read (version 1) is not used for it.
  const other = rulebookDb();
  readingRulebookAhead({ db: other.db });
  await assert.rejects(rulebookOfVersion(other.db, 2), RulebookError);
  assert.deepEqual(other.calls, ["rulebook_active", "rulebook_get", "rulebook_get"]);
  clearRulebookCache();
});
