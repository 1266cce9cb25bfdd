/** The project's layout promises (design.md): what tooling and newcomers rely on. */
import assert from "node:assert/strict";
import { functionImportMap } from "../scripts/sync_function_imports.ts";

const root = new URL("../", import.meta.url);
const FUNCTIONS = ["complianceAudit", "agentSubscribe", "runWebsiteAudit", "webhookIngest"];

Deno.test("each function's index.ts stays a few lines", async () => {
  for (const name of FUNCTIONS) {
    const source = await Deno.readTextFile(new URL(`supabase/functions/${name}/index.ts`, root));
    const lines = source.split("\n").filter((line) => line.trim() !== "");
    assert.ok(lines.length <= 6, `${name}/index.ts has ${lines.length} lines`);
    assert.match(source, /Deno\.serve\(/);
  }
});

Deno.test("config.toml turns verify_jwt off and names an import map for all four functions", async () => {
  const toml = await Deno.readTextFile(new URL("supabase/config.toml", root));
  for (const name of FUNCTIONS) {
    const section = toml.split(`[functions.${name}]`)[1]?.split(/\n\[/)[0];
    assert.ok(section, `config.toml lacks [functions.${name}]`);
    assert.match(section, /^verify_jwt = false$/m);
    assert.match(section, new RegExp(`^import_map = "\\./functions/${name}/deno\\.json"$`, "m"));
  }
});

Deno.test("each function's import map is the root one, rebased (deno task sync-imports)", async () => {
  const rootImports = JSON.parse(await Deno.readTextFile(new URL("deno.json", root))).imports;
  for (const name of FUNCTIONS) {
    const own = JSON.parse(
      await Deno.readTextFile(new URL(`supabase/functions/${name}/deno.json`, root)),
    );
    assert.deepEqual(own, { imports: functionImportMap(rootImports) }, `${name}/deno.json drifted`);
  }
});

Deno.test("every dependency is a pinned npm: specifier", async () => {
  const { imports } = JSON.parse(await Deno.readTextFile(new URL("deno.json", root)));
  for (const [name, target] of Object.entries(imports as Record<string, string>)) {
    if (target.startsWith("./")) continue;
    assert.match(target, /^npm:(@[a-z0-9-]+\/)?[a-z0-9.-]+@\d+\.\d+\.\d+$/, `${name} -> ${target}`);
  }
  const pkg = JSON.parse(await Deno.readTextFile(new URL("package.json", root)));
  assert.match(pkg.devDependencies.deno, /^\d+\.\d+\.\d+$/);
});

Deno.test("shared/ files are snake_case and there is no utils or helpers module", async () => {
  const walk = async (dir: URL, prefix: string): Promise<string[]> => {
    const out: string[] = [];
    for await (const entry of Deno.readDir(dir)) {
      if (entry.isDirectory) {
        out.push(...await walk(new URL(`${entry.name}/`, dir), `${prefix}${entry.name}/`));
      } else out.push(`${prefix}${entry.name}`);
    }
    return out;
  };
  const files = await walk(new URL("shared/", root), "shared/");
  assert.ok(files.length > 20);
  for (const file of files) {
    const base = file.split("/").pop()!;
    assert.match(base, /^[a-z0-9_]+\.ts$/, file);
    assert.equal(/^(utils|helpers)\.ts$/.test(base), false, file);
  }
});

Deno.test("the README documents the tier_key values and links the rulebook documentation", async () => {
  const readme = await Deno.readTextFile(new URL("README.md", root));
  for (const tier of ["tier1_severe", "tier2_significant", "tier3_standard", "tier4_licensing"]) {
    assert.ok(readme.includes(`\`${tier}\``), `README lacks ${tier}`);
  }
  assert.ok(readme.includes("(docs/rulebook.md)"), "README links docs/rulebook.md");
});

Deno.test("README.md and docs/api.md link only inside the repository, to files that exist", async () => {
  for (const file of ["README.md", "docs/api.md", "docs/rulebook.md", "corpus/README.md"]) {
    const text = await Deno.readTextFile(new URL(file, root));
    const targets = [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1]);
    assert.ok(
      file !== "README.md" || targets.includes("docs/api.md"),
      "README links the API reference",
    );
    for (const target of targets) {
      assert.equal(
        /^[a-z]+:/i.test(target) || target.startsWith("//"),
        false,
        `${file}: ${target}`,
      );
      const path = target.split("#")[0];
      if (path === "") continue;
      assert.equal(path.startsWith(".."), false, `${file}: ${target} leaves the repository`);
      await Deno.stat(new URL(path, new URL(file, root)));
    }
  }
});
