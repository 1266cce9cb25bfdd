/**
 * Writes the root import map into supabase/functions/<name>/deno.json. The
 * Supabase CLI reads import maps only there (or from config.toml), never from
 * the root deno.json, so each function carries a copy, with local paths such
 * as `@shared/` rebased onto the function's folder (the CLI mounts and
 * bundles what the map points at). tests/layout_test.ts fails when a copy
 * drifts. Run: deno task sync-imports
 */

/** The import map of a function three folders below the root. */
export function functionImportMap(rootImports: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(rootImports).map((
      [name, target],
    ) => [name, target.startsWith("./") ? `../../../${target.slice(2)}` : target]),
  );
}

if (import.meta.main) {
  const root = new URL("../", import.meta.url);
  const { imports } = JSON.parse(await Deno.readTextFile(new URL("deno.json", root)));
  for await (const entry of Deno.readDir(new URL("supabase/functions/", root))) {
    if (!entry.isDirectory) continue;
    const target = new URL(`supabase/functions/${entry.name}/deno.json`, root);
    await Deno.writeTextFile(
      target,
      JSON.stringify({ imports: functionImportMap(imports) }, null, 2) + "\n",
    );
    console.log(`wrote supabase/functions/${entry.name}/deno.json`);
  }
}
