/**
 * export_audit's memory, measured in a process of its own (spawned by
 * bench/http.ts) so that nothing else lives in its heap: it serves
 * agentSubscribe over real HTTP on 127.0.0.1 from the database given, warms
 * up with one export of an empty month, collects garbage, takes the idle
 * figures, then exports the month while sampling every 5 ms, when each
 * database call returns, when the client receives each chunk, and (for
 * `--whole`) once the month is parsed and once it is written:
 *
 * - the live heap (used + external) after a full collection, i.e. what the
 *   export holds, not garbage the collector has not yet reclaimed (V8 lets
 *   that grow to the young generation's size, many MiB, whatever the program
 *   holds);
 * - the heap without that collection, and the RSS, as they are.
 *
 * The client reads the body as it streams and keeps only a byte count. It
 * prints one JSON line: the CSV's bytes, the export's time, and the peaks
 * beyond idle. The time is not a benchmark figure (the scavenges slow it).
 *
 * With `--whole` the export is served as before streaming: the whole month
 * read at once (activity_month) and written with activityCsv.
 *
 * Usage: deno run --v8-flags=--expose-gc ... export_memory.ts <postgres-url|pglite> <month> [--whole]
 *
 * @module
 */
import { activityMonth } from "../../shared/db/activity.ts";
import type { Db } from "../../shared/db/db.ts";
import { createPostgresDb } from "../../shared/db/postgres_db.ts";
import { activityCsv } from "../../shared/handlers/activity_export.ts";
import { agentSubscribe } from "../../shared/handlers/agent_subscribe.ts";
import type { ServiceDeps } from "../../shared/handlers/deps.ts";
import { createLogger } from "../../shared/log/logger.ts";
import { createMemoryLimiter } from "../../shared/ratelimit/memory_limiter.ts";

const [target, month, mode] = Deno.args;
const whole = mode === "--whole";
const gc = (globalThis as { gc?: (options?: { type: "minor" | "major" }) => void }).gc;
if (gc === undefined) throw new Error("run with --v8-flags=--expose-gc");

/** Peaks of the live heap (after a scavenge), the heap as it is, and RSS. */
class Peaks {
  live = 0;
  heap = 0;
  rss = 0;
  readonly #timer = setInterval(() => this.mark(), 5);
  mark(): void {
    const before = Deno.memoryUsage();
    this.heap = Math.max(this.heap, before.heapUsed + before.external);
    this.rss = Math.max(this.rss, before.rss);
    gc!({ type: "major" });
    const after = Deno.memoryUsage();
    this.live = Math.max(this.live, after.heapUsed + after.external);
  }
  stop(): void {
    clearInterval(this.#timer);
    this.mark();
  }
}

let peak: Peaks | undefined;
let db: Db;
let apiKey: string;
let accountId: string;
if (target === "pglite") {
  const { openPgliteBench } = await import("./databases.ts");
  const { fillExportMonth } = await import("./export_month.ts");
  const bench = await openPgliteBench();
  db = bench.db;
  ({ apiKey, accountId } = await fillExportMonth(bench, month, 10_000));
} else {
  db = createPostgresDb(target);
  apiKey = Deno.env.get("EXPORT_API_KEY")!;
  accountId = Deno.env.get("EXPORT_ACCOUNT_ID")!;
}

const measured: Db = {
  async rpc<T>(name: string, args?: Record<string, unknown>): Promise<T> {
    const result = await db.rpc<T>(name, args);
    peak?.mark();
    return result;
  },
  close: () => db.close(),
};
const deps: ServiceDeps = {
  db: measured,
  limiter: createMemoryLimiter(),
  logger: createLogger({ level: "info", write: () => {} }),
  corsOrigins: ["*"],
  trustedProxyHops: 0,
};
const streamed = agentSubscribe(deps);
const handler = whole
  ? async (req: Request) => {
    const body = await req.json();
    if (body.month === month) {
      const rows = await activityMonth(measured, { accountId, month });
      peak?.mark();
      const csv = activityCsv(rows);
      peak?.mark();
      return new Response(csv, { headers: { "content-type": "text/csv" } });
    }
    return await streamed(
      new Request(req.url, { method: "POST", headers: req.headers, body: JSON.stringify(body) }),
    );
  }
  : streamed;
const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, handler);
const url = `http://127.0.0.1:${server.addr.port}/`;

async function exportOf(which: string): Promise<number> {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": apiKey },
    body: JSON.stringify({ action: "export_audit", month: which }),
  });
  if (response.status !== 200) throw new Error(`export answered ${response.status}`);
  let bytes = 0;
  for await (const chunk of response.body!) {
    bytes += chunk.byteLength;
    peak?.mark();
  }
  return bytes;
}

await exportOf("1999-01");
await exportOf("1999-01");
gc();
await new Promise((resolve) => setTimeout(resolve, 50));
gc();
const idle = Deno.memoryUsage();
peak = new Peaks();
const started = performance.now();
const bytes = await exportOf(month);
const ms = performance.now() - started;
peak.stop();
const { live, heap, rss } = peak;
peak = undefined;
console.log(JSON.stringify({
  bytes,
  ms,
  liveBeyond: live - (idle.heapUsed + idle.external),
  heapBeyond: heap - (idle.heapUsed + idle.external),
  rssBeyond: rss - idle.rss,
}));
await server.shutdown();
await db.close();
