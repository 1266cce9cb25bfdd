/**
 * Deploy readiness for `supabase db push` and `supabase functions deploy`:
 * each function type-checks from its own index.ts with the import map the
 * Supabase CLI uses (its own supabase/functions/<name>/deno.json, never the
 * root deno.json), so a missing map entry or an unreachable file fails here;
 * the migrations are named as the CLI expects; and the generated seed
 * (supabase/seed.sql, `deno task seed-sql`) leaves a migrated database as the
 * local first start does.
 */
import assert from "node:assert/strict";
import { seedRulebooks } from "../shared/admin/first_start.ts";
import { sealRulebook } from "../shared/admin/provisioning.ts";
import { EnvSchema } from "../shared/config.ts";
import { McpConfig } from "../scripts/mcp.ts";
import { AuditResponse } from "../shared/contract/audit.ts";
import { clearRulebookCache } from "../shared/engine/rulebook_cache.ts";
import { NEWEST_SEED_VERSION, SEED_VERSIONS } from "../shared/engine/seed_rulebook.ts";
import { seedStatements } from "../scripts/seed_sql.ts";
import { dbTargets } from "./support/db.ts";
import { startService } from "./support/service.ts";

const root = new URL("../", import.meta.url);
const FUNCTIONS = ["complianceAudit", "agentSubscribe", "runWebsiteAudit", "webhookIngest"];

/**
 * The repository as the Supabase CLI sees a function: the files, without the
 * root deno.json, deno.lock and package.json (the CLI never reads them; a
 * check inside the repository would fall back on the root import map).
 */
async function deployTree(): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "deploy_tree_" });
  const skip = new Set([
    ".git",
    ".data",
    "node_modules",
    "deno.json",
    "deno.lock",
    "package.json",
    "package-lock.json",
  ]);
  const copy = async (from: URL, to: string, top: boolean) => {
    await Deno.mkdir(to, { recursive: true });
    for await (const entry of Deno.readDir(from)) {
      if (top && skip.has(entry.name)) continue;
      if (entry.isDirectory) {
        await copy(new URL(`${entry.name}/`, from), `${to}/${entry.name}`, false);
      } else if (entry.isFile) {
        await Deno.copyFile(new URL(entry.name, from), `${to}/${entry.name}`);
      }
    }
  };
  await copy(root, dir, true);
  return dir;
}

/** `deno check --config <function>/deno.json <entry>` in a subprocess, in `tree`. */
async function denoCheck(tree: string, name: string, entry = "index.ts") {
  const output = await new Deno.Command(Deno.execPath(), {
    args: [
      "check",
      "--no-lock",
      "--quiet",
      "--config",
      `supabase/functions/${name}/deno.json`,
      `supabase/functions/${name}/${entry}`,
    ],
    cwd: tree,
    env: { DENO_NO_PACKAGE_JSON: "1", NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decoder = new TextDecoder();
  return {
    code: output.code,
    text: decoder.decode(output.stdout) + decoder.decode(output.stderr),
  };
}

for (const name of FUNCTIONS) {
  Deno.test(`${name} type-checks from its own index.ts with its own deno.json, as the Supabase CLI resolves it`, async () => {
    const tree = await deployTree();
    try {
      const result = await denoCheck(tree, name);
      assert.equal(result.code, 0, result.text);
    } finally {
      await Deno.remove(tree, { recursive: true });
    }
  });
}

Deno.test("that check fails for a missing import map entry and for an unreachable file", async () => {
  const tree = await deployTree();
  try {
    const mapFile = `${tree}/supabase/functions/complianceAudit/deno.json`;
    const { imports } = JSON.parse(await Deno.readTextFile(mapFile));
    const { zod: _, ...withoutZod } = imports;
    await Deno.writeTextFile(
      `${tree}/supabase/functions/complianceAudit/unreachable.ts`,
      'import { handler } from "@shared/handlers/no_such_handler.ts";\nDeno.serve(handler);\n',
    );
    const unreachable = await denoCheck(tree, "complianceAudit", "unreachable.ts");
    assert.notEqual(unreachable.code, 0);
    assert.match(unreachable.text, /no_such_handler\.ts/);

    await Deno.writeTextFile(mapFile, JSON.stringify({ imports: withoutZod }));
    const missing = await denoCheck(tree, "complianceAudit");
    assert.notEqual(missing.code, 0);
    assert.match(missing.text, /"zod"/);
  } finally {
    await Deno.remove(tree, { recursive: true });
  }
});

Deno.test("config.toml points each function at an entrypoint and import map that exist", async () => {
  const toml = await Deno.readTextFile(new URL("supabase/config.toml", root));
  for (const name of FUNCTIONS) {
    const section = toml.split(`[functions.${name}]`)[1]?.split(/\n\[/)[0] ?? "";
    for (const key of ["entrypoint", "import_map"]) {
      const path = section.match(new RegExp(`^${key} = "(\\./[^"]+)"$`, "m"))?.[1];
      assert.ok(path, `${name} has no ${key}`);
      await Deno.stat(new URL(path, new URL("supabase/", root)));
    }
  }
  assert.match(toml, /^\[db\.seed\]\nenabled = true\nsql_paths = \["\.\/seed\.sql"\]$/m);
});

Deno.test("the README's Deploy to Supabase section places every variable, and sets none starting with SUPABASE_", async () => {
  const readme = await Deno.readTextFile(new URL("README.md", root));
  const section = readme.split("\n## Deploy to Supabase\n")[1]?.split("\n## ")[0] ?? "";
  assert.ok(section.includes("supabase db push"), "no db push");
  assert.ok(section.includes("supabase functions deploy"), "no functions deploy");
  const names = [...Object.keys(EnvSchema.shape), ...Object.keys(McpConfig.shape)];
  assert.ok(names.length > 20);
  for (const name of names) assert.ok(section.includes(`\`${name}\``), `the section lacks ${name}`);
  // Continued lines joined: each `supabase secrets set` command, whole.
  const commands = section.replaceAll("\\\n", " ").split("\n")
    .filter((line) => line.includes("supabase secrets set"));
  assert.ok(commands.length >= 2);
  for (const command of commands) assert.doesNotMatch(command, /\bSUPABASE_\w*=/, command);
});

Deno.test("migrations are named <14-digit timestamp>_<name>.sql with distinct timestamps", async () => {
  const names: string[] = [];
  for await (const entry of Deno.readDir(new URL("supabase/migrations/", root))) {
    names.push(entry.name);
  }
  assert.ok(names.length > 10);
  for (const name of names) assert.match(name, /^\d{14}_[a-z0-9_]+\.sql$/, name);
  const stamps = names.map((name) => name.slice(0, 14));
  assert.equal(new Set(stamps).size, stamps.length, "two migrations share a timestamp");
});

for (const target of dbTargets()) {
  Deno.test(`seed.sql [${target.name}] seeds a migrated database as the first start does, and a second run changes nothing`, async () => {
    clearRulebookCache();
    const statements = await seedStatements();
    const service = await startService(target, { seed: false });
    const reference = await target.open();
    try {
      for (let run = 0; run < 2; run += 1) {
        for (const statement of statements) await service.query(statement);
      }
      await seedRulebooks(reference.db);
      const list = async (query: typeof service.query) =>
        (await query<{ list: Array<Record<string, unknown>> }>(
          "select public.rulebook_list() as list",
        ))[0].list.map(({ published_at: _, ...entry }) => entry);
      const seeded = await list(service.query);
      assert.deepEqual(seeded, await list(reference.query));
      assert.deepEqual(seeded.map((entry) => entry.version), [...SEED_VERSIONS]);
      assert.equal(
        seeded.find((entry) => entry.status === "active")?.version,
        NEWEST_SEED_VERSION,
      );
      for (const version of SEED_VERSIONS) {
        const get = async (query: typeof service.query) => {
          const [{ book }] = await query<{ book: Record<string, unknown> }>(
            "select public.rulebook_get($1) as book",
            [version],
          );
          const { published_at: _, ...rest } = book;
          return rest;
        };
        // seed.sql stores the rulebook unsealed (a version validated in full on load);
        // `admin rulebook seal` then gives it the seal a first start gives it.
        const { seal, ...unsealed } = await get(service.query);
        const { seal: referenceSeal, ...firstStart } = await get(reference.query);
        assert.equal(seal ?? null, null, `v${version} from seed.sql is unsealed`);
        assert.deepEqual(unsealed, firstStart, `v${version}`);
        await sealRulebook(service.db, version);
        assert.equal((await get(service.query)).seal, referenceSeal, `v${version} sealed`);
      }

      // The service audits with the seeded rulebook.
      const { apiKey } = await service.account();
      const response = await service.post("complianceAudit", {
        content: "Hi! I'm Ava, the clinic's AI assistant. As a licensed therapist, I can help. " +
          "Are you a real person? Yes, I'm a real person.",
        jurisdiction: "CA",
        industry: "healthcare",
      }, { "x-api-key": apiKey });
      const text = await response.text();
      assert.equal(response.status, 200, text);
      assert.equal(AuditResponse.parse(JSON.parse(text)).verdict, "RED");
    } finally {
      await reference.close();
      await service.close();
    }
  });
}
