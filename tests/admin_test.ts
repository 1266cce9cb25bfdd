/** The admin CLI: in process against each test database, and as the real command. */
import assert from "node:assert/strict";
import { runAdmin } from "../scripts/admin.ts";
import { accountForApiKey } from "../shared/auth/account.ts";
import { cli as runCli } from "./support/admin_cli.ts";
import { dbTargets, type TestDatabase } from "./support/db.ts";

function cli(database: TestDatabase, ...argv: string[]) {
  return runCli(database, argv);
}

for (const target of dbTargets()) {
  Deno.test(`admin [${target.name}] provisions an account, a key, a plan change and a revocation`, async () => {
    const database = await target.open();
    try {
      const created = await cli(
        database,
        "--json",
        "account",
        "create",
        "--plan",
        "pro",
        "--status",
        "trialing",
        "--trial-end",
        "2999-01-01T00:00:00Z",
        "--price",
        "49",
      );
      assert.equal(created.code, 0, created.err);
      const account = JSON.parse(created.out);
      assert.equal(account.plan, "pro");
      assert.equal(account.status, "trialing");
      assert.equal(account.price_per_month_usd, 49);

      const issued = await cli(database, "--json", "key", "issue", account.account_id);
      assert.equal(issued.code, 0, issued.err);
      const { api_key: key, key_prefix: prefix } = JSON.parse(issued.out);
      assert.match(key, /^cas_live_[A-Za-z0-9_-]{43}$/);
      assert.equal(key.startsWith(prefix), true);
      assert.equal((await accountForApiKey(database.db, key))?.account_id, account.account_id);
      const stored = await database.query<{ key_digest: string }>(
        "select key_digest from public.api_keys",
      );
      assert.equal(JSON.stringify(stored).includes(key), false);

      const human = await cli(database, "key", "issue", account.account_id);
      assert.match(human.out, /shown once/);

      const updated = await cli(
        database,
        "--json",
        "account",
        "update",
        account.account_id,
        "--plan",
        "enterprise",
        "--status",
        "active",
        "--clear-trial-end",
      );
      assert.equal(updated.code, 0, updated.err);
      assert.deepEqual(
        (({ plan, status, trial_end }) => ({ plan, status, trial_end }))(JSON.parse(updated.out)),
        { plan: "enterprise", status: "active", trial_end: null },
      );

      const accounts = await cli(database, "--json", "account", "list");
      assert.deepEqual(
        JSON.parse(accounts.out).map((a: { account_id: string }) => a.account_id),
        [account.account_id],
      );
      const list = await cli(database, "--json", "key", "list", account.account_id);
      assert.equal(JSON.parse(list.out).length, 2);
      assert.equal(list.out.includes(key), false);

      const revoked = await cli(database, "--json", "key", "revoke", prefix);
      assert.equal(revoked.code, 0, revoked.err);
      assert.equal(await accountForApiKey(database.db, key), null);

      const again = await cli(database, "key", "revoke", prefix);
      assert.equal(again.code, 1);
    } finally {
      await database.close();
    }
  });

  Deno.test(`admin [${target.name}] imports and activates rulebooks and refuses unsafe patterns naming the rule`, async () => {
    const database = await target.open();
    const dir = await Deno.makeTempDir();
    try {
      const seed = JSON.parse(
        await Deno.readTextFile(new URL("../supabase/seed/rulebook_v1.json", import.meta.url)),
      );
      await Deno.writeTextFile(`${dir}/v1.json`, JSON.stringify(seed));
      const imported = await cli(
        database,
        "--json",
        "rulebook",
        "import",
        `${dir}/v1.json`,
        "--activate",
      );
      assert.equal(imported.code, 0, imported.err);
      assert.equal(JSON.parse(imported.out).rule_count, seed.rules.length);

      const v2 = { version: 2, rules: seed.rules.slice(0, 3) };
      await Deno.writeTextFile(`${dir}/v2.json`, JSON.stringify(v2));
      assert.equal((await cli(database, "rulebook", "import", `${dir}/v2.json`)).code, 0);
      const activated = await cli(database, "--json", "rulebook", "activate", "2");
      assert.equal(activated.code, 0, activated.err);
      const listed = JSON.parse((await cli(database, "--json", "rulebook", "list")).out);
      assert.deepEqual(
        listed.map((b: { version: number; status: string }) => [b.version, b.status]).sort(),
        [[1, "retired"], [2, "active"]],
      );

      const evil = structuredClone(seed.rules[0]);
      evil.rule_key = "evil_backtracking_rule";
      evil.detector = { any: [{ pattern: "(a+)+$" }] };
      await Deno.writeTextFile(`${dir}/v3.json`, JSON.stringify({ version: 3, rules: [evil] }));
      const refused = await cli(database, "rulebook", "import", `${dir}/v3.json`);
      assert.equal(refused.code, 1);
      assert.match(refused.err, /evil_backtracking_rule/);
      const stillTwo = JSON.parse((await cli(database, "--json", "rulebook", "list")).out);
      assert.equal(stillTwo.length, 2);
    } finally {
      await Deno.remove(dir, { recursive: true });
      await database.close();
    }
  });
}

Deno.test("admin refuses bad command lines with exit code 2 before touching the database", async () => {
  let opened = 0;
  const run = async (...argv: string[]) => {
    const err: string[] = [];
    const code = await runAdmin(argv, {
      io: { out: () => {}, err: (t) => err.push(t) },
      openDatabase: () => {
        opened++;
        return Promise.reject(new Error("not expected"));
      },
    });
    return { code, err: err.join("\n") };
  };
  for (
    const argv of [
      [],
      ["account", "create", "--plan", "gold", "--status", "active"],
      ["account", "create", "--plan", "pro"],
      ["account", "update", "not-a-uuid", "--plan", "pro"],
      ["account", "update", "00000000-0000-4000-8000-000000000000"],
      ["key", "issue"],
      ["key", "revoke", "sk_live_x"],
      ["rulebook", "activate", "zero"],
      ["nonsense"],
      ["account", "create", "--bogus"],
    ]
  ) {
    const result = await run(...argv);
    assert.equal(result.code, 2, `${argv.join(" ")} -> ${result.code}`);
    assert.ok(result.err.length > 0);
  }
  assert.equal(opened, 0);
});

Deno.test("deno task admin --help and a failing command exit as documented", async () => {
  const deno = Deno.execPath();
  const run = (args: string[], env: Record<string, string> = {}) =>
    new Deno.Command(deno, {
      args: ["run", "--allow-all", "scripts/admin.ts", ...args],
      cwd: new URL("../", import.meta.url).pathname,
      env: { DENO_NO_PACKAGE_JSON: "1", ...env },
      stdout: "piped",
      stderr: "piped",
    }).output();
  const help = await run(["--help"]);
  assert.equal(help.code, 0);
  assert.match(new TextDecoder().decode(help.stdout), /Usage: deno task admin/);
  const badEnv = await run(["rulebook", "list"], { PORT: "nope" });
  assert.equal(badEnv.code, 2);
  assert.match(new TextDecoder().decode(badEnv.stderr), /PORT/);
});

Deno.test("deno task admin provisions against DATA_DIR and against DATABASE_URL as a real command", async () => {
  const deno = Deno.execPath();
  const run = async (args: string[], env: Record<string, string>) => {
    const output = await new Deno.Command(deno, {
      args: ["run", "--allow-all", "scripts/admin.ts", "--json", ...args],
      cwd: new URL("../", import.meta.url).pathname,
      env: { DENO_NO_PACKAGE_JSON: "1", ...env },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stdout = new TextDecoder().decode(output.stdout);
    assert.equal(output.code, 0, new TextDecoder().decode(output.stderr));
    return JSON.parse(stdout);
  };
  const environments: Array<{ env: Record<string, string>; cleanup: () => Promise<void> }> = [];
  const dir = await Deno.makeTempDir({ prefix: "cas-admin-" });
  environments.push({
    env: { DATA_DIR: `${dir}/pglite` },
    cleanup: () => Deno.remove(dir, { recursive: true }),
  });
  const serverUrl = Deno.env.get("TEST_DATABASE_URL");
  if (serverUrl) {
    const postgres = (await import("postgres")).default;
    const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
    const name = `cas_test_admin_${crypto.randomUUID().replaceAll("-", "")}`;
    await admin.unsafe(`create database ${name}`);
    const url = new URL(serverUrl);
    url.pathname = `/${name}`;
    environments.push({
      env: { DATABASE_URL: url.href },
      cleanup: async () => {
        await admin.unsafe(`drop database if exists ${name} with (force)`);
        await admin.end();
      },
    });
  }
  try {
    for (const { env } of environments) {
      assert.deepEqual(await run(["migrate"], env), { migrated: true });
      const account = await run(
        ["account", "create", "--plan", "starter", "--status", "active"],
        env,
      );
      const key = await run(["key", "issue", account.account_id], env);
      assert.match(key.api_key, /^cas_live_/);
      const shown = await run(["account", "show", account.account_id], env);
      assert.equal(shown.plan, "starter");
      assert.equal(JSON.stringify(shown).includes(key.api_key), false);
    }
  } finally {
    for (const { cleanup } of environments) await cleanup();
  }
});
