import { openPglite, createPgliteDb } from "./shared/db/pglite_db.ts";
const dir = "/tmp/dbw/pgdata/nested";
await Deno.remove("/tmp/dbw/pgdata", { recursive: true }).catch(() => {});
for (let i = 0; i < 2; i++) {
  const t = performance.now();
  const db = createPgliteDb(await openPglite(dir));
  console.log(i, performance.now() - t, await db.rpc("rulebook_list"));
  await db.close();
}
