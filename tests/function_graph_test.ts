/**
 * Each deployed function's module graph holds only what its driver and
 * operation need, read from `deno info --json` with the function's own
 * deno.json (as `supabase functions deploy` resolves it):
 *
 * - no PGlite anywhere in a function's graph, not even behind a dynamic import;
 * - the database drivers (postgres.js, supabase-js) and the Upstash client
 *   only behind dynamic imports, loaded for the configured driver;
 * - linkedom statically only in runWebsiteAudit (complianceAudit imports it
 *   when content is HTML), the scanner's packages only in runWebsiteAudit,
 *   papaparse only in agentSubscribe; test-only packages in none.
 *
 * Type-only imports are erased at run time and are not followed.
 */
import assert from "node:assert/strict";

const root = new URL("../", import.meta.url);

interface InfoDependency {
  specifier: string;
  code?: { specifier: string };
  isDynamic?: boolean;
}
interface InfoModule {
  specifier: string;
  kind?: string;
  dependencies?: InfoDependency[];
}
interface Info {
  roots: string[];
  modules: InfoModule[];
  redirects: Record<string, string>;
}

/** The npm packages a function reaches: statically, and counting dynamic imports too. */
interface FunctionGraph {
  staticPackages: Set<string>;
  allPackages: Set<string>;
  staticFiles: Set<string>;
}

async function functionGraph(name: string): Promise<FunctionGraph> {
  const dir = new URL(`supabase/functions/${name}/`, root);
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", "--no-lock", "--config", "deno.json", "index.ts"],
    cwd: dir,
    env: { DENO_NO_PACKAGE_JSON: "1", NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.ok(output.success, `deno info failed for ${name}`);
  const info = JSON.parse(new TextDecoder().decode(output.stdout)) as Info;
  const modules = new Map(info.modules.map((m) => [m.specifier, m]));
  const walk = (followDynamic: boolean) => {
    const seen = new Set<string>([info.roots[0]]);
    const queue = [info.roots[0]];
    while (queue.length > 0) {
      const module = modules.get(queue.pop()!);
      for (const dependency of module?.dependencies ?? []) {
        if (dependency.code === undefined || (dependency.isDynamic && !followDynamic)) continue;
        const target = info.redirects[dependency.code.specifier] ?? dependency.code.specifier;
        if (!seen.has(target)) {
          seen.add(target);
          queue.push(target);
        }
      }
    }
    return seen;
  };
  // npm:/name@version or npm:/@scope/name@version -> name
  const packages = (specifiers: Set<string>) =>
    new Set(
      [...specifiers].filter((s) => s.startsWith("npm:/")).map((s) =>
        s.slice(5).replace(/^(@?[^@/]+(?:\/[^@/]+)?)@.*$/, "$1")
      ),
    );
  const staticSet = walk(false);
  return {
    staticPackages: packages(staticSet),
    allPackages: packages(walk(true)),
    staticFiles: new Set(
      [...staticSet].filter((s) => s.startsWith("file:")).map((s) => s.slice(root.href.length)),
    ),
  };
}

const NEVER = [
  "@electric-sql/pglite",
  "@electric-sql/pglite-socket",
  "fast-check",
  "redis",
  "rate-limiter-flexible",
];
const ON_DEMAND = ["postgres", "@supabase/supabase-js", "@upstash/ratelimit", "@upstash/redis"];

const OWN: Record<string, string[]> = {
  complianceAudit: [],
  agentSubscribe: ["papaparse"],
  runWebsiteAudit: ["linkedom", "robots-parser"],
  webhookIngest: [],
};
const OPERATION_ONLY = ["papaparse", "linkedom", "robots-parser"];

for (const name of Object.keys(OWN)) {
  Deno.test(`${name}'s module graph holds only what its driver and operation need`, async () => {
    const graph = await functionGraph(name);
    // The walk sees the graph: the function's own handler and zod are in it.
    assert.ok(graph.staticPackages.has("zod"), `${name}: zod missing; the walk is broken`);
    for (const pkg of NEVER) {
      assert.ok(!graph.allPackages.has(pkg), `${name} reaches ${pkg}`);
    }
    for (const file of graph.staticFiles) {
      assert.ok(!/pglite/.test(file), `${name} statically imports ${file}`);
    }
    for (const pkg of ON_DEMAND) {
      assert.ok(!graph.staticPackages.has(pkg), `${name} imports ${pkg} statically`);
      assert.ok(graph.allPackages.has(pkg), `${name} cannot load ${pkg} on demand`);
    }
    for (const pkg of OPERATION_ONLY) {
      assert.equal(
        graph.staticPackages.has(pkg),
        OWN[name].includes(pkg),
        `${name} ${OWN[name].includes(pkg) ? "lacks" : "imports"} ${pkg} statically`,
      );
    }
  });
}

Deno.test("complianceAudit can load linkedom on demand, for HTML content", async () => {
  const graph = await functionGraph("complianceAudit");
  assert.ok(!graph.staticPackages.has("linkedom"));
  assert.ok(graph.allPackages.has("linkedom"));
});
