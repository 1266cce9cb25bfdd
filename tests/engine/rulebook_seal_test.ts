/**
 * The rulebook seal (issue 12 item 5): importRulebook seals the version it
 * stored; a cold load compiles a sealed version without validating it again
 * and judges exactly as a validated one; a document changed after sealing, or
 * sealed under other checks, is validated in full on load and refused when it
 * is corrupt. On PGlite, and PostgreSQL when TEST_DATABASE_URL is set.
 */
import assert from "node:assert/strict";
import { activateRulebook, importRulebook } from "../../shared/admin/provisioning.ts";
import { rulebookGet } from "../../shared/db/rulebooks.ts";
import { rulebookOfVersion, storedDocument } from "../../shared/engine/active_rulebook.ts";
import {
  clearRulebookCache,
  compileRulebook,
  evaluate,
  getCompiledRulebook,
  loadSeedRulebook,
  RulebookError,
  validateRulebook,
} from "../../shared/engine/mod.ts";
import { rulebookSeal, SealedDocument } from "../../shared/engine/rulebook_seal.ts";
import { dbTargets } from "../support/db.ts";

const CONTENT =
  "Hi! I'm Ava, the clinic's AI assistant. As a licensed therapist, I can help you. Are you a real person? Yes, I'm a real person, not a bot.";

for (const target of dbTargets()) {
  Deno.test(`a sealed rulebook loads without validation and judges as when validated [${target.name}]`, async () => {
    const t = await target.open();
    clearRulebookCache();
    try {
      const seed = await loadSeedRulebook();
      await importRulebook(t.db, seed);
      await activateRulebook(t.db, seed.version);
      const row = await rulebookGet(t.db, seed.version);
      const [document, seal] = storedDocument(row!);
      assert.equal(seal, await rulebookSeal(document), "import sealed what rulebook_get returns");

      const { compiled } = await rulebookOfVersion(t.db, seed.version);
      // As the load compiled every version before seals: the stored document, validated.
      const validated = compileRulebook(validateRulebook(document));
      for (const jurisdiction of ["CA", "NY", "UT", "ALL"] as const) {
        const input = { content: CONTENT, jurisdiction, surface: "content" } as const;
        assert.deepEqual(evaluate(compiled, input), evaluate(validated, input), jurisdiction);
      }
    } finally {
      clearRulebookCache();
      await t.close();
    }
  });

  Deno.test(`a sealed version is answered from the document kept when sealed; a change to its parts drops it and the seal [${target.name}]`, async () => {
    const t = await target.open();
    try {
      const seed = await loadSeedRulebook();
      await importRulebook(t.db, seed);
      const kept = async () => [
        ...await t.query<{ kept: boolean; same: boolean | null; sealed: boolean }>(
          `select b.sealed_document is not null as kept,
               b.sealed_document = app_private.rulebook_document(b) as same,
               b.checked_sha256 is not null as sealed
             from public.rulebooks b where b.version = $1`,
          [seed.version],
        ),
      ];
      assert.deepEqual(await kept(), [{ kept: true, same: true, sealed: true }]);

      // rulebook_get answers from the kept document, not from the rows.
      await t.query(
        `update public.rulebooks
         set sealed_document = pg_catalog.jsonb_set(sealed_document, '{definitions,kept_marker}', '{}')
         where version = $1`,
        [seed.version],
      );
      const [marked] = storedDocument((await rulebookGet(t.db, seed.version))!);
      assert.ok("kept_marker" in (marked as { definitions: object }).definitions);

      // A change to a part (here a concept) drops the kept document and the seal.
      await t.query(
        `update public.rulebooks set concepts = concepts || '{"added": {"terms": ["added"]}}'
         where version = $1`,
        [seed.version],
      );
      assert.deepEqual(await kept(), [{ kept: false, same: null, sealed: false }]);
      const [document, seal] = storedDocument((await rulebookGet(t.db, seed.version))!);
      assert.equal(seal, null);
      assert.ok("added" in (document as { concepts: object }).concepts, "built from the rows");
    } finally {
      await t.close();
    }
  });

  Deno.test(`a rulebook changed after sealing is validated again and refused when corrupt [${target.name}]`, async () => {
    const t = await target.open();
    clearRulebookCache();
    try {
      const seed = await loadSeedRulebook();
      await importRulebook(t.db, seed);
      await activateRulebook(t.db, seed.version);
      // A hand edit of the table: a detector naming a concept that does not exist.
      await t.query(
        `update public.rules set detector = '{"kind":"v2","violation":{"has":"no_such_concept"}}'::jsonb
         where rulebook_version = $1 and rule_key = (
           select min(rule_key) from public.rules where rulebook_version = $1)`,
        [seed.version],
      );
      await assert.rejects(rulebookOfVersion(t.db, seed.version), (error: unknown) => {
        assert.ok(error instanceof RulebookError);
        assert.match(error.message, /unknown concept "no_such_concept"/);
        return true;
      });
    } finally {
      clearRulebookCache();
      await t.close();
    }
  });
}

Deno.test("getCompiledRulebook() validates a document whose seal does not match it", async () => {
  clearRulebookCache();
  try {
    const corrupt = { version: 7, rules: [{ rule_key: "x" }] };
    // Sealed under other checks (or forged): the digest of another text.
    const forged = new SealedDocument(corrupt, "0".repeat(64));
    await assert.rejects(getCompiledRulebook(7, () => Promise.resolve(forged)), RulebookError);
    // Never sealed.
    const unsealed = new SealedDocument(corrupt, null);
    await assert.rejects(getCompiledRulebook(7, () => Promise.resolve(unsealed)), RulebookError);
    // A valid document with a stale seal still loads, through full validation.
    const seed = await loadSeedRulebook(1);
    const stale = new SealedDocument({ version: 8, rules: seed.rules }, "f".repeat(64));
    assert.equal((await getCompiledRulebook(8, () => Promise.resolve(stale))).version, 8);
  } finally {
    clearRulebookCache();
  }
});
