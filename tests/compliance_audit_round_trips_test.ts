/**
 * complianceAudit's database round trips on a real database (PGlite, and
 * PostgreSQL when TEST_DATABASE_URL is set), counted at the Db port: at most 2
 * RPCs and 1 limiter call per audit once the rulebook is cached (the key
 * lookup, which also reads the active version, then audit_record), one more
 * (rulebook_get) only when a version is first seen, and a newly activated
 * version is applied on the very next audit (issue 12 item 2).
 *
 * On PostgreSQL the same is counted on the wire: a loopback proxy between the
 * postgres adapter and the server reads the frontend messages, and a warm
 * audit sends at most 2 after which it waits for an answer (Sync `S`,
 * simple Query `Q`, Flush `H`).
 */
import assert from "node:assert/strict";
import { generateApiKey, type IssuedApiKey } from "../shared/auth/api_key.ts";
import { AuditResponse } from "../shared/contract/audit.ts";
import type { Db } from "../shared/db/db.ts";
import { complianceAudit } from "../shared/handlers/compliance_audit.ts";
import { clearRulebookCache } from "../shared/engine/rulebook_cache.ts";
import { loadSeedRulebook } from "../shared/engine/seed_rulebook.ts";
import { rulebookActivate, rulebookImport, type RulebookToImport } from "../shared/db/rulebooks.ts";
import { createPostgresDb } from "../shared/db/postgres_db.ts";
import { dbTargets } from "./support/db.ts";
import { startTcpProxy } from "./support/tcp_proxy.ts";
import { fakeDeps, from, jsonRequest } from "./support/fake_deps.ts";

/** Content that breaks several seed rules (as in compliance_audit_test.ts). */
const VIOLATING_CONTENT =
  "Hi! I'm Ava, the clinic's AI assistant. As a licensed therapist, I can help you. Are you a real person? Yes, I'm a real person, not a bot.";

/** A Db that records the name of every RPC it passes on. */
function countingDb(db: Db): Db & { names: string[] } {
  const names: string[] = [];
  return {
    names,
    rpc: (name, args) => {
      names.push(name);
      return db.rpc(name, args);
    },
    close: () => db.close(),
  };
}

/** A starter account with one API key, made through the RPCs. */
async function starterKey(db: Db): Promise<IssuedApiKey> {
  const account = await db.rpc<{ account_id: string }>("account_create", {
    p_plan: "starter",
    p_status: "active",
  });
  const key = await generateApiKey();
  await db.rpc("api_key_create", {
    p_account_id: account.account_id,
    p_key_digest: key.digest,
    p_key_prefix: key.displayPrefix,
  });
  return key;
}

for (const target of dbTargets()) {
  Deno.test(`complianceAudit() makes at most 2 round trips and 1 limiter call [${target.name}]`, async () => {
    const t = await target.open();
    try {
      clearRulebookCache();
      // The two seed rulebooks: version 1 active, version 2 a draft.
      for (const version of [1, 2]) {
        await rulebookImport(t.db, (await loadSeedRulebook(version)) as RulebookToImport);
      }
      await rulebookActivate(t.db, 1);
      const key = await starterKey(t.db);
      const db = countingDb(t.db);
      const deps = { ...fakeDeps(), db };
      const handler = complianceAudit(deps);
      const audit = async () => {
        const response = await handler(
          jsonRequest("complianceAudit", {
            content: VIOLATING_CONTENT,
            jurisdiction: "CA",
          }, { "x-api-key": key.key }),
          from("127.0.0.1"),
        );
        assert.equal(
          response.status,
          200,
          JSON.stringify(deps.logs.filter((l) => l.level === "error")),
        );
        return AuditResponse.parse(await response.json());
      };

      // First audit of version 1: its body is read once.
      const first = await audit();
      assert.deepEqual(db.names, ["audit_key_account", "rulebook_get", "audit_record"]);
      assert.deepEqual(first.usage, { count: 1, monthly_limit: 1000 });

      // Warm: two round trips and one limiter call per audit.
      assert.ok(first.remediation.length > 0, "the content breaks seed rules");
      for (let n = 2; n <= 4; n++) {
        db.names.length = 0;
        const limiterCalls = deps.limiter.calls.length;
        const answer = await audit();
        assert.deepEqual(db.names, ["audit_key_account", "audit_record"]);
        assert.equal(deps.limiter.calls.length - limiterCalls, 1);
        assert.deepEqual(answer.usage, { count: n, monthly_limit: 1000 });
        assert.deepEqual(answer.remediation, first.remediation);
      }

      // A new active version is applied on the next audit: read once, then cached.
      await rulebookActivate(t.db, 2);
      db.names.length = 0;
      const second = await audit();
      assert.deepEqual(db.names, ["audit_key_account", "rulebook_get", "audit_record"]);
      assert.deepEqual(second.usage, { count: 5, monthly_limit: 1000 });
      const rows = await t.query<{ rulebook_version: number }>(
        "select rulebook_version from public.audits order by created_at desc, id desc limit 1",
      );
      assert.equal(Number(rows[0].rulebook_version), 2);
    } finally {
      clearRulebookCache();
      await t.close();
    }
  });
}

const postgresTarget = dbTargets().find((target) => target.name === "postgres");

Deno.test({
  name: "complianceAudit() makes at most 2 round trips on the wire to PostgreSQL",
  ignore: postgresTarget === undefined,
  async fn() {
    const t = await postgresTarget!.open();
    const real = new URL(t.url!);
    const proxy = startTcpProxy({ hostname: real.hostname, port: Number(real.port) });
    // One pooled connection: every audit uses the same, already warm session
    // (a new connection describes each statement once more, then is warm too).
    const db = createPostgresDb(proxy.via(t.url!), { max: 1 });
    try {
      clearRulebookCache();
      await rulebookImport(t.db, (await loadSeedRulebook(1)) as RulebookToImport);
      await rulebookActivate(t.db, 1);
      const key = await starterKey(t.db);
      const deps = { ...fakeDeps(), db };
      const handler = complianceAudit(deps);
      const audit = async () => {
        const response = await handler(
          jsonRequest("complianceAudit", { content: VIOLATING_CONTENT, jurisdiction: "CA" }, {
            "x-api-key": key.key,
          }),
          from("127.0.0.1"),
        );
        assert.equal(response.status, 200);
        return AuditResponse.parse(await response.json());
      };
      /**
       * Frontend messages after which the client waits for the server: Sync
       * (ends an extended-protocol exchange), a simple Query, and Flush (asks
       * for the answers so far: an unprepared statement is described that way
       * before it is bound, a round trip of its own).
       */
      const roundTrips = (types: string[]) =>
        types.filter((type) => type === "S" || type === "Q" || type === "H");

      // Cold: the rulebook is read and every statement described once.
      await audit();
      await audit();
      for (let n = 3; n <= 5; n++) {
        const before = proxy.frontendMessages().length;
        const answer = await audit();
        const sent = proxy.frontendMessages().slice(before);
        const trips = roundTrips(sent).length;
        assert.ok(trips >= 1 && trips <= 2, `a warm audit's round trips: ${sent.join(" ")}`);
        // The audit went through the proxy: it was counted and charged.
        assert.deepEqual(answer.usage, { count: n, monthly_limit: 1000 });
      }
    } finally {
      clearRulebookCache();
      await db.close();
      await proxy.close();
      await t.close();
    }
  },
});
