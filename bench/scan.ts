/**
 * Website-scan benchmark: a 1 MB page from a loopback site, scanned as
 * runWebsiteAudit scans it (safe fetcher with robots.txt and the SSRF policy,
 * the allow-list letting exactly this loopback IP:port through; the engine's
 * HTML document model; every website rule of the seed rulebook; score and
 * grade), against the raw fetch-and-read of the same page with `fetch` and
 * `text()`, measured in the same run. It prints the medians, the scan's time
 * beyond the raw fetch-and-read as a ratio to it, and the peak memory.
 *
 * Run: deno task bench-scan
 * (network permission is loopback only: --allow-net=127.0.0.1)
 *
 * @module
 */
import { compileRulebook, loadSeedRulebook } from "../shared/engine/mod.ts";
import { parseAllowedTargets } from "../shared/scanner/allowed_targets.ts";
import { createSafeFetcher } from "../shared/scanner/safe_fetcher.ts";
import { reportSite } from "../shared/scanner/site_report.ts";
import { scanSite } from "../shared/scanner/site_scan.ts";
import { buildPage } from "./support/content.ts";

const PAGE_BYTES = 1024 * 1024;
const RUNS = 15;
const WARMUP = 3;

function median(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Peak RSS and heap in use, sampled every few milliseconds and at each call of `mark`. */
class MemoryPeak {
  rss = 0;
  heap = 0;
  readonly #timer = setInterval(() => this.mark(), 2);
  mark(): void {
    const usage = Deno.memoryUsage();
    this.rss = Math.max(this.rss, usage.rss);
    this.heap = Math.max(this.heap, usage.heapUsed);
  }
  stop(): void {
    clearInterval(this.#timer);
    this.mark();
  }
}

const page = buildPage(PAGE_BYTES);
const pageBytes = new TextEncoder().encode(page);
const listening = Promise.withResolvers<void>();
const server = Deno.serve({
  hostname: "127.0.0.1",
  port: 0,
  onListen: () => listening.resolve(),
}, (req) => {
  const path = new URL(req.url).pathname;
  if (path === "/robots.txt") {
    return new Response("User-agent: *\nAllow: /\n", { headers: { "content-type": "text/plain" } });
  }
  if (path === "/page.html") {
    return new Response(pageBytes, { headers: { "content-type": "text/html; charset=utf-8" } });
  }
  return new Response("not found", { status: 404 });
});
await listening.promise;
const url = `http://127.0.0.1:${server.addr.port}/page.html`;

const compiled = compileRulebook(await loadSeedRulebook());
const fetcher = createSafeFetcher({
  allowedTargets: parseAllowedTargets([`127.0.0.1:${server.addr.port}`]),
});

async function rawFetchAndRead(): Promise<number> {
  const response = await fetch(url);
  return (await response.text()).length;
}

async function scan(peak?: MemoryPeak): Promise<number> {
  using session = fetcher.startScan();
  const site = await scanSite(session, url, { rulebook: compiled });
  peak?.mark();
  const report = reportSite(compiled, site.pages);
  peak?.mark();
  return report.grade.length;
}

let sink = 0;
for (let i = 0; i < WARMUP; i += 1) {
  sink += await rawFetchAndRead();
  sink += await scan();
}

const before = Deno.memoryUsage();
const raw: number[] = [];
const scanned: number[] = [];
const peak = new MemoryPeak();
// Interleaved, so that both see the same machine state.
for (let i = 0; i < RUNS; i += 1) {
  let start = performance.now();
  sink += await rawFetchAndRead();
  raw.push(performance.now() - start);
  start = performance.now();
  sink += await scan(peak);
  scanned.push(performance.now() - start);
}
peak.stop();
await server.shutdown();

const rawMs = median(raw);
const scanMs = median(scanned);
const beyond = scanMs - rawMs;
const mib = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);
console.log(
  `Website scan of a ${
    (pageBytes.byteLength / 1024).toFixed(0)
  } KiB page from a loopback site, seed rulebook v${compiled.version}, ${RUNS} runs (medians)`,
);
console.log(`  raw fetch-and-read (fetch + text)      ${rawMs.toFixed(2)} ms`);
console.log(`  scan (safe fetch, robots, read, rules) ${scanMs.toFixed(2)} ms`);
console.log(
  `  scan beyond fetch-and-read            ${beyond.toFixed(2)} ms = ${
    (beyond / rawMs).toFixed(1)
  } x the fetch-and-read`,
);
console.log(
  `  peak memory during the runs: RSS ${mib(peak.rss)} MiB (${
    mib(before.rss)
  } MiB before), heap used ${mib(peak.heap)} MiB (${mib(before.heapUsed)} MiB before)`,
);
if (sink === 0) console.log("");
