/** The admin CLI's webhook integrations and stored transcripts, in process against each database. */
import assert from "node:assert/strict";
import { runAdmin } from "../scripts/admin.ts";
import { sha256Hex } from "../shared/auth/api_key.ts";
import { loadConfig } from "../shared/config.ts";
import { webhookCredentialCaller } from "../shared/db/webhook_integrations.ts";
import { cli } from "./support/admin_cli.ts";
import { dbTargets, seedRulebook, type TestDatabase } from "./support/db.ts";

async function works(database: TestDatabase, credential: string): Promise<boolean> {
  return (await webhookCredentialCaller(database.db, await sha256Hex(credential))) !== null;
}

async function account(database: TestDatabase): Promise<string> {
  const created = await cli(database, [
    "--json",
    "account",
    "create",
    "--plan",
    "pro",
    "--status",
    "active",
  ]);
  return JSON.parse(created.out).account_id;
}

for (const target of dbTargets()) {
  Deno.test(`admin [${target.name}] creates, lists, updates, rotates and revokes webhook integrations`, async () => {
    const database = await target.open();
    try {
      const accountId = await account(database);
      const human = await cli(database, [
        "integration",
        "create",
        accountId,
        "--name",
        "Support chat",
        "--provider",
        "intercom",
      ]);
      assert.equal(human.code, 0, human.err);
      const shown = human.out.match(/cas_whk_[A-Za-z0-9_-]{43}/g) ?? [];
      assert.equal(shown.length, 1, "the credential is printed once");
      assert.match(human.out, /shown once/);
      assert.match(human.out, /ALL {2}all industries/, "defaults: ALL, no industry");
      const first = shown[0];
      assert.ok(await works(database, first));

      const scripted = await cli(database, [
        "--json",
        "integration",
        "create",
        accountId,
        "--name",
        "Zap",
        "--provider",
        "zapier",
        "--jurisdictions",
        "ca, ny",
        "--industry",
        "healthcare",
      ]);
      assert.equal(scripted.code, 0, scripted.err);
      const zap = JSON.parse(scripted.out);
      assert.deepEqual([zap.jurisdictions, zap.industry], [["CA", "NY"], "healthcare"]);
      assert.ok(await works(database, zap.credential));

      for (const argv of [["integration", "list"], ["--json", "integration", "list", accountId]]) {
        const listed = await cli(database, argv);
        assert.equal(listed.code, 0, listed.err);
        for (const credential of [first, zap.credential]) {
          assert.equal(listed.out.includes(credential), false, "never a credential");
          assert.equal(listed.out.includes(credential.slice(0, 12)), true, "its display prefix");
          assert.equal(listed.out.includes(await sha256Hex(credential)), false, "never a digest");
        }
      }

      const supportId = JSON.parse((await cli(database, ["--json", "integration", "list"])).out)
        .find((i: { name: string }) => i.name === "Support chat").integration_id;
      const rotated = await cli(database, ["integration", "rotate", supportId]);
      assert.equal(rotated.code, 0, rotated.err);
      assert.match(rotated.out, new RegExp(`${first.slice(0, 12)}… stopped working now`));
      const second = rotated.out.match(/cas_whk_[A-Za-z0-9_-]{43}/)![0];
      assert.equal(await works(database, first), false, "the old credential stops at once");
      assert.ok(await works(database, second));
      assert.ok(await works(database, zap.credential), "other integrations are untouched");

      const revoked = await cli(database, ["integration", "revoke", zap.integration_id]);
      assert.equal(revoked.code, 0, revoked.err);
      assert.equal(await works(database, zap.credential), false);
      assert.ok(await works(database, second));
      assert.equal((await cli(database, ["integration", "revoke", zap.integration_id])).code, 1);

      const updated = await cli(database, [
        "--json",
        "integration",
        "update",
        zap.integration_id,
        "--jurisdictions",
        "ALL",
        "--clear-industry",
      ]);
      assert.equal(updated.code, 0, updated.err);
      assert.deepEqual(
        (({ jurisdictions, industry, credential }) => ({ jurisdictions, industry, credential }))(
          JSON.parse(updated.out),
        ),
        { jurisdictions: ["ALL"], industry: null, credential: null },
      );

      const taken = await cli(database, [
        "integration",
        "create",
        accountId,
        "--name",
        "Zap",
        "--provider",
        "make",
      ]);
      assert.equal(taken.code, 1);
      assert.match(taken.err, /already has an integration of this name/);
      const unknown = await cli(database, ["integration", "rotate", crypto.randomUUID()]);
      assert.equal(unknown.code, 1);
      assert.match(unknown.err, /integration not found/);
    } finally {
      await database.close();
    }
  });

  Deno.test(`admin [${target.name}] lists stored transcripts without their text and purges them past retention`, async () => {
    const database = await target.open();
    try {
      await seedRulebook(database.db);
      const accountId = await account(database);
      const created = JSON.parse(
        (await cli(database, [
          "--json",
          "integration",
          "create",
          accountId,
          "--name",
          "chat",
          "--provider",
          "zendesk",
        ])).out,
      );
      for (const [key, age] of [["a", 400], ["b", 40], ["c", 0]] as const) {
        const { claim } = await database.db.rpc<{ claim: string }>("transcript_delivery_begin", {
          p_integration_id: created.integration_id,
          p_idempotency_key: key.repeat(64),
        });
        await database.db.rpc("transcript_scan_store", {
          p_claim: claim,
          p_account_id: accountId,
          p_integration_id: created.integration_id,
          p_auth_path: "credential",
          p_idempotency_key: key.repeat(64),
          p_source: "zendesk",
          p_channel: "email",
          p_channel_origin: "email",
          p_external_conversation_id: `t-${key}`,
          p_jurisdictions: ["ALL"],
          p_industry: null,
          p_rulebook_version: 1,
          p_grade: "B",
          p_score: 85,
          p_critical_violations: 0,
          p_warnings: 1,
          p_passed_checks: 9,
          p_payload: {
            messages: [{ sender: "user", text: "secret transcript words" }],
            findings: [],
            scan_meta: { rulebook_source: "database" },
          },
        });
        await database.query(
          `update public.transcript_scans set created_at = now() - make_interval(days => $1)
           where idempotency_key = $2`,
          [age, key.repeat(64)],
        );
      }
      const listed = await cli(database, ["transcript", "list", created.integration_id]);
      assert.equal(listed.code, 0, listed.err);
      assert.equal(listed.out.split("\n").length, 3);
      assert.match(
        listed.out,
        /via credential {2}account [0-9a-f-]{36} {2}email #t-c {2}grade B \(85\)/,
      );
      assert.equal(listed.out.includes("secret transcript words"), false);

      const byDefault = await cli(
        database,
        ["--json", "transcript", "purge"],
        loadConfig({ TRANSCRIPT_RETENTION_DAYS: "30" }),
      );
      assert.equal(byDefault.code, 0, byDefault.err);
      assert.deepEqual(
        (({ purged, retention_days }) => ({ purged, retention_days }))(JSON.parse(byDefault.out)),
        { purged: 2, retention_days: 30 },
      );
      const remaining = JSON.parse(
        (await cli(database, ["--json", "transcript", "list", created.integration_id])).out,
      );
      assert.deepEqual(
        remaining.map((s: { external_conversation_id: string }) => s.external_conversation_id),
        [
          "t-c",
        ],
      );
      const none = await cli(database, ["transcript", "purge", "--retention-days", "1"]);
      assert.match(none.out, /Purged 0 stored transcripts older than 1 days/);
    } finally {
      await database.close();
    }
  });
}

Deno.test("admin refuses bad webhook command lines with exit code 2 before touching the database", async () => {
  let opened = 0;
  const id = "00000000-0000-4000-8000-000000000000";
  for (
    const argv of [
      ["integration", "create", id, "--provider", "intercom"],
      ["integration", "create", id, "--name", "x"],
      ["integration", "create", id, "--name", "x", "--provider", "Intercom Inc"],
      ["integration", "create", id, "--name", "x", "--provider", "zapier", "--jurisdictions", "WA"],
      [
        "integration",
        "create",
        id,
        "--name",
        "x",
        "--provider",
        "zapier",
        "--jurisdictions",
        "ALL,CA",
      ],
      ["integration", "create", id, "--name", "x", "--provider", "zapier", "--industry", "crypto"],
      ["integration", "create", "not-a-uuid", "--name", "x", "--provider", "zapier"],
      ["integration", "update", id],
      ["integration", "update", id, "--industry", "hr", "--clear-industry"],
      ["integration", "rotate"],
      ["integration", "list", id, id],
      ["transcript", "list", id, "--limit", "0"],
      ["transcript", "purge", "--retention-days", "0"],
    ]
  ) {
    const err: string[] = [];
    const code = await runAdmin(argv, {
      io: { out: () => {}, err: (text) => err.push(text) },
      openDatabase: () => {
        opened++;
        return Promise.reject(new Error("not expected"));
      },
    });
    assert.equal(code, 2, `${argv.join(" ")} -> ${code}: ${err.join()}`);
  }
  assert.equal(opened, 0);
});
