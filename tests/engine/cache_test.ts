import assert from "node:assert/strict";
import {
  clearRulebookCache,
  getCompiledRulebook,
  loadSeedRulebook,
  type Rulebook,
  RulebookError,
} from "../../shared/engine/mod.ts";

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
