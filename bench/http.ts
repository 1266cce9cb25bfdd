/**
 * End-to-end HTTP benchmark: the operations served by the local server's
 * router (the handlers a deployed function runs) over real HTTP on
 * 127.0.0.1, on a fresh PostgreSQL database (BENCH_DATABASE_URL, else
 * TEST_DATABASE_URL; loopback only) and on an in-memory PGlite, each next to
 * two baselines served in the same run on the same database:
 *
 * - (a) a `Deno.serve` that reads and parses the body, makes as many
 *   `select 1` round trips as the operation makes RPC calls (counted), and
 *   answers a body of the operation's size;
 * - (b) the same plus the operation's own work on the same input
 *   (complianceAudit and webhookIngest: the engine's evaluation;
 *   runWebsiteAudit: fetching robots.txt and the page with `fetch` and
 *   evaluating the page). verify and export_audit have no (b).
 *
 * complianceAudit also has a floor, (c): (b) whose last round trip is the
 * audit's own write, `audit_record` through the service's database adapter
 * (group commit included) on the request's account, instead of a `select 1`.
 * It is the least an audit evaluated and recorded by audit_record can cost
 * here, without authenticating, limiting or building an answer; its ratio
 * to (a) bounds the service's.
 *
 * complianceAudit is served twice on PostgreSQL: by the local server (its
 * router behind the connection guard, scripts/server.ts) and as a deployed
 * function runs it, its handler alone under its own `Deno.serve` (no guard,
 * no router), which is where the issue's targets are read. The baselines are
 * the same for both.
 *
 * Scenarios: complianceAudit with 1k and 30k characters, webhookIngest with
 * a 200-message transcript, runWebsiteAudit of a 1 MB loopback page,
 * agentSubscribe verify, and export_audit of a month of 10,000 records (with
 * its peak memory). Each at concurrency 1 and 32 (runWebsiteAudit 1 and 8),
 * for BENCH_SECONDS seconds (default 2) per run, BENCH_RUNS runs (default 3)
 * interleaved service, (a), (b) and (c); the figures are medians over the runs.
 *
 * The load generator (bench/support/load_worker.ts, a Worker) spreads the
 * requests over enough identities (API keys, webhook integrations, client
 * IPs through X-Forwarded-For) that no limit is reached: each identity makes
 * at most 80% of its per-minute limit in any 60 seconds, and every answer
 * must be a 200, else the run says so.
 *
 * Run: deno task bench-http [scenario...]   (scenarios: audit webhook scan verify export)
 *
 * @module
 */
import {
  activateRulebook,
  createAccount,
  createIntegration,
  importRulebook,
  issueApiKey,
} from "../shared/admin/provisioning.ts";
import { loadConfig } from "../shared/config.ts";
import { clearRulebookCache } from "../shared/engine/rulebook_cache.ts";
import { compileRulebook, evaluate, loadSeedRulebook } from "../shared/engine/mod.ts";
import { auditRecord } from "../shared/db/audits.ts";
import { complianceAudit } from "../shared/handlers/compliance_audit.ts";
import { DEFAULT_LIMITS, type ServiceDeps } from "../shared/handlers/deps.ts";
import { evaluateTranscript } from "../shared/handlers/transcript_evaluation.ts";
import { createLogger } from "../shared/log/logger.ts";
import { createMemoryLimiter } from "../shared/ratelimit/memory_limiter.ts";
import { parseAllowedTargets } from "../shared/scanner/allowed_targets.ts";
import { createSafeFetcher } from "../shared/scanner/safe_fetcher.ts";
import { serveLocal } from "../scripts/server.ts";
import {
  type BenchDb,
  benchPostgresUrl,
  countingDb,
  openPgliteBench,
  openPostgresBench,
} from "./support/databases.ts";
import type { LoadPlan, LoadResult } from "./support/load_worker.ts";
import { buildPage, buildText, buildTranscript } from "./support/content.ts";
import { fillExportMonth } from "./support/export_month.ts";
import { machine, median, mib, percentile, table } from "./support/stats.ts";

const SECONDS = Number(Deno.env.get("BENCH_SECONDS") ?? 2);
const RUNS = Number(Deno.env.get("BENCH_RUNS") ?? 3);
const ALL = ["audit", "webhook", "scan", "verify", "export"];
const chosen = Deno.args.length > 0 ? Deno.args : ALL;
const EXPORT_MONTH = "2026-03";
/** The account whose month export_audit exports. */
let exportAccount: { id: string; key: string } | undefined;

// ---------------------------------------------------------------- load worker

const worker = new Worker(new URL("./support/load_worker.ts", import.meta.url), {
  type: "module",
});
function load(plan: LoadPlan): Promise<LoadResult> {
  const { promise, resolve } = Promise.withResolvers<LoadResult>();
  worker.onmessage = (event: MessageEvent<LoadResult>) => resolve(event.data);
  worker.postMessage(plan);
  return promise;
}

/** CPU milliseconds per request of one run, by who spent them. */
interface CpuPerRequest {
  /** This process's main thread: the server under test (service or baseline). */
  server: number;
  /** This process's other threads but the load generator's: V8's GC helpers, Deno's runtime. */
  other: number;
  /** The load generator's thread (the Worker). */
  loadgen: number;
  /** The PostgreSQL backends connected to the run's database; NaN on PGlite (in the main thread). */
  postgres: number;
}

/** CPU ticks so far: each thread of this process (the main one as "main"), and each of `pgPids`. */
async function cpuTicks(pgPids: number[]): Promise<{ hz: number; ticks: Map<string, number> }> {
  // Deno reads /proc only with --allow-all; a shell may.
  const script = [
    "getconf CLK_TCK",
    `for t in /proc/${Deno.pid}/task/*; do echo "$(basename $t) $(tr ' ' _ < $t/comm) $(cut -d')' -f2 $t/stat | awk '{print $12+$13}')"; done`,
    ...pgPids.map((pid) =>
      `[ -r /proc/${pid}/stat ] && echo "${pid} postgres $(cut -d')' -f2 /proc/${pid}/stat | awk '{print $12+$13}')"`
    ),
    "true",
  ].join("; ");
  const output = await new Deno.Command("sh", { args: ["-c", script], stderr: "null" }).output();
  const [hz, ...lines] = new TextDecoder().decode(output.stdout).trim().split("\n");
  const ticks = new Map<string, number>();
  for (const line of lines) {
    const [id, name, count] = line.split(" ");
    const key = Number(id) === Deno.pid
      ? "main"
      : name === "postgres"
      ? `pg:${id}`
      : `${name}:${id}`;
    ticks.set(key, Number(count));
  }
  return { hz: Number(hz), ticks };
}

/** A run with its CPU per request. */
type MeasuredRun = LoadResult & { cpu: CpuPerRequest };

/** One run of `plan`, with the CPU it cost per request (PostgreSQL's: the pids `backends` lists). */
async function measuredLoad(
  plan: LoadPlan,
  backends: () => Promise<number[]>,
): Promise<MeasuredRun> {
  const before = await cpuTicks(await backends());
  const result = await load(plan);
  const after = await cpuTicks(await backends());
  const per = (counted: (key: string) => boolean) => {
    let sum = 0;
    for (const [key, value] of after.ticks) {
      if (counted(key)) sum += value - (before.ticks.get(key) ?? 0);
    }
    return (sum * 1000) / after.hz / Math.max(1, result.count);
  };
  const pg = [...after.ticks.keys()].some((key) => key.startsWith("pg:"));
  return {
    ...result,
    cpu: {
      server: per((key) => key === "main"),
      loadgen: per((key) => key.startsWith("worker")),
      other: per((key) => key !== "main" && !key.startsWith("worker") && !key.startsWith("pg:")),
      postgres: pg ? per((key) => key.startsWith("pg:")) : NaN,
    },
  };
}

// ---------------------------------------------------------------- baselines

/** What a baseline does for one request. */
interface BaselineWork {
  selects: number;
  /** The operation's own work on the parsed body (engine, fetch); none for (a). */
  work?: (body: unknown) => Promise<unknown> | unknown;
  response: Uint8Array<ArrayBuffer>;
  contentType: string;
}

/** One `Deno.serve` per database whose behaviour is set before each run. */
function startBaseline(bench: BenchDb) {
  let current: BaselineWork | undefined;
  let sink = 0;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    const spec = current!;
    const body = JSON.parse(await req.text());
    for (let i = 0; i < spec.selects; i += 1) await bench.select1();
    if (spec.work !== undefined) sink += JSON.stringify(await spec.work(body) ?? 0).length;
    return new Response(spec.response, { headers: { "content-type": spec.contentType } });
  });
  return {
    url: `http://127.0.0.1:${server.addr.port}/`,
    set(work: BaselineWork) {
      current = work;
    },
    async close() {
      await server.shutdown();
      if (sink === -1) console.log(sink);
    },
  };
}

// ---------------------------------------------------------------- the site

const page = new TextEncoder().encode(buildPage(1024 * 1024));
const site = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (req) => {
  const path = new URL(req.url).pathname;
  if (path === "/robots.txt") {
    return new Response("User-agent: *\nAllow: /\n", { headers: { "content-type": "text/plain" } });
  }
  if (path === "/") {
    return new Response(page, { headers: { "content-type": "text/html; charset=utf-8" } });
  }
  return new Response("not found", { status: 404 });
});
const siteUrl = `http://127.0.0.1:${site.addr.port}/`;

// ---------------------------------------------------------------- scenarios

interface Scenario {
  name: string;
  operation: string;
  concurrencies: number[];
  bodies: string[];
  identities: Record<string, string>[];
  /** The service's limit per identity per minute; the generator stays at 80% of it. */
  limitPerMinute: number;
  /** How the identities were made, said in the output. */
  spread: string;
  /** Builds baseline (b)'s work; none when the operation has no engine work. */
  work?: (body: unknown) => Promise<unknown> | unknown;
  workName?: string;
  /** The floor (c)'s work, in place of its last `select 1`: (b)'s and the operation's write. */
  floor?: (body: unknown) => Promise<unknown>;
}

interface Figures {
  throughput: number;
  p50: number;
  p99: number;
}

/** Who serves the operation: the local server (router behind the guard) or the function as deployed. */
type ServedBy = "local server" | "function";

interface Measured {
  scenario: string;
  driver: string;
  served: ServedBy;
  concurrency: number;
  rpcCalls: number;
  service: Figures;
  a: Figures;
  b?: Figures;
  c?: Figures;
  cpu: { service: CpuPerRequest; a: CpuPerRequest; b?: CpuPerRequest; c?: CpuPerRequest };
  notes: string[];
}

function cpuMedians(results: MeasuredRun[]): CpuPerRequest {
  return {
    server: median(results.map((r) => r.cpu.server)),
    other: median(results.map((r) => r.cpu.other)),
    loadgen: median(results.map((r) => r.cpu.loadgen)),
    postgres: median(results.map((r) => r.cpu.postgres)),
  };
}

function summarise(results: LoadResult[]): Figures {
  return {
    throughput: median(results.map((r) => r.count / (r.elapsedMs / 1000))),
    p50: median(results.map((r) => percentile(r.latenciesMs, 50))),
    p99: median(results.map((r) => percentile(r.latenciesMs, 99))),
  };
}

const seed = await loadSeedRulebook();
const compiled = compileRulebook(seed);

const rows: Measured[] = [];
const memoryLines: string[] = [];
const header = await machine();
console.log(`HTTP benchmark: ${header}`);
console.log(
  `${RUNS} runs of ${SECONDS} s per figure (medians), service and baselines interleaved; scenarios: ${
    chosen.join(" ")
  }\n`,
);

const postgresUrl = benchPostgresUrl();
if (postgresUrl === undefined) {
  console.log("BENCH_DATABASE_URL / TEST_DATABASE_URL unset: PGlite only.\n");
}
const openers: Array<() => Promise<BenchDb>> = [
  ...(postgresUrl === undefined ? [] : [() => openPostgresBench(postgresUrl)]),
  openPgliteBench,
];

for (const open of openers) {
  const bench = await open();
  clearRulebookCache();
  try {
    await benchDriver(bench);
  } finally {
    await bench.close();
  }
}
await site.shutdown();
worker.terminate();
report();

async function benchDriver(bench: BenchDb): Promise<void> {
  await importRulebook(bench.db, seed);
  await activateRulebook(bench.db, seed.version);
  const db = countingDb(bench.db);
  const deps: ServiceDeps = {
    db,
    limiter: createMemoryLimiter(),
    // Every log line is formatted as in production, then dropped.
    logger: createLogger({ level: "info", write: () => {} }),
    corsOrigins: ["*"],
    // The generator spreads per-IP limits over client IPs in X-Forwarded-For.
    trustedProxyHops: 1,
    scanFetcher: createSafeFetcher({
      allowedTargets: parseAllowedTargets([`127.0.0.1:${site.addr.port}`]),
      allowedPorts: [site.addr.port],
    }),
  };
  const server = serveLocal(loadConfig({ PORT: "0", HOST: "127.0.0.1" }), deps);
  // complianceAudit as a deployed function serves it (its index.ts is
  // `Deno.serve(complianceAudit(functionDeps()))`): the handler alone, no
  // connection guard, no router, on the postgres driver. The limiter is the
  // in-memory one of the local rows (a deployed function calls Upstash).
  const deployed = bench.name === "postgres"
    ? Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, complianceAudit(deps))
    : undefined;
  const baseline = startBaseline(bench);
  try {
    const scenarios = await buildScenarios(bench);
    for (const scenario of scenarios) {
      const functionUrl = deployed !== undefined && scenario.operation === "complianceAudit"
        ? `http://127.0.0.1:${deployed.addr.port}/complianceAudit`
        : undefined;
      await runScenario(bench, db, server.baseUrl, baseline, scenario, functionUrl);
    }
    if (chosen.includes("export")) await exportMemory(bench);
  } finally {
    await baseline.close();
    await deployed?.shutdown();
    await server.close();
  }
}

/** Client IPs for per-IP limits, from the benchmarking range 198.18.0.0/15 (RFC 2544). */
function clientIps(count: number): Record<string, string>[] {
  return Array.from({ length: count }, (_, i) => ({
    "x-forwarded-for": `198.18.${i >> 8}.${i & 255}`,
  }));
}

/** `count` enterprise accounts with a key each: the keys' headers, and the accounts in the same order. */
async function apiKeys(
  bench: BenchDb,
  count: number,
): Promise<{ keys: Record<string, string>[]; accounts: string[] }> {
  const keys: Record<string, string>[] = [];
  const accounts: string[] = [];
  for (let i = 0; i < count; i += 50) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(50, count - i) }, async () => {
        const account = await createAccount(bench.db, {
          plan: "enterprise",
          status: "active",
          trialEnd: null,
          pricePerMonthUsd: null,
        });
        const { api_key } = await issueApiKey(bench.db, account.account_id);
        return { key: api_key, account: account.account_id };
      }),
    );
    keys.push(...batch.map(({ key }) => ({ "x-api-key": key })));
    accounts.push(...batch.map(({ account }) => account));
  }
  return { keys, accounts };
}

async function buildScenarios(bench: BenchDb): Promise<Scenario[]> {
  const scenarios: Scenario[] = [];
  const accounts = Number(Deno.env.get("BENCH_ACCOUNTS") ?? 4000);
  if (chosen.includes("audit")) {
    const { keys, accounts: accountIds } = await apiKeys(bench, accounts);
    let next = 0;
    for (const size of [1_000, 30_000]) {
      const content = buildText(size);
      const evaluated = (body: unknown) => {
        const input = body as { content: string; jurisdiction: "CA"; industry: "healthcare" };
        return evaluate(compiled, {
          content: input.content,
          jurisdiction: input.jurisdiction,
          industry: input.industry,
          surface: "content",
        });
      };
      scenarios.push({
        name: `complianceAudit ${size / 1000}k chars`,
        operation: "complianceAudit",
        concurrencies: [1, 32],
        bodies: [JSON.stringify({ content, jurisdiction: "CA", industry: "healthcare" })],
        identities: keys,
        limitPerMinute: DEFAULT_LIMITS.auditPerMinute,
        spread: `${keys.length} enterprise accounts (no monthly quota), one key each`,
        work: (body) => evaluated(body).risk_score,
        workName: "the engine's evaluation",
        floor: async (body) => {
          const result = evaluated(body);
          const input = body as { content: string; jurisdiction: string; industry: string };
          const outcome = await auditRecord(bench.db, {
            accountId: accountIds[next++ % accountIds.length],
            contentSha256: "0".repeat(64),
            contentLength: input.content.length,
            jurisdiction: input.jurisdiction,
            industry: input.industry,
            assetUrl: null,
            verdict: result.verdict,
            riskScore: result.risk_score,
            penaltyExposureUsd: result.penalty_exposure_usd,
            rulebookVersion: seed.version,
            endpoint: "/complianceAudit",
            latencyMs: 1,
            isAgent: false,
          });
          if (!outcome.accepted) throw new Error("the floor's audit_record was refused");
          return result.risk_score;
        },
      });
    }
  }
  if (chosen.includes("webhook")) {
    const account = await createAccount(bench.db, {
      plan: "enterprise",
      status: "active",
      trialEnd: null,
      pricePerMonthUsd: null,
    });
    const count = Number(Deno.env.get("BENCH_INTEGRATIONS") ?? 200);
    const identities: Record<string, string>[] = [];
    for (let i = 0; i < count; i += 1) {
      const issued = await createIntegration(bench.db, {
        accountId: account.account_id,
        name: `bench ${i}`,
        provider: "bench",
      });
      identities.push({ "x-webhook-secret": issued.credential });
    }
    scenarios.push({
      name: "webhookIngest 200 messages",
      operation: "webhookIngest",
      concurrencies: [1, 32],
      // Each delivery is new content ({{n}}), so none is answered as a duplicate.
      bodies: [JSON.stringify({
        source: "bench",
        channel: "web",
        conversation_id: "conv-{{n}}",
        messages: buildTranscript(200),
      })],
      identities,
      limitPerMinute: DEFAULT_LIMITS.webhookPerMinute,
      spread: `${count} integrations of one account (the limit is per account and integration)`,
      work: (body) => {
        const input = body as { messages: { sender: "bot" | "user"; text: string }[] };
        return evaluateTranscript(compiled, input.messages, {
          jurisdictions: ["ALL"],
          industry: null,
          at: new Date(),
        }).score;
      },
      workName: "the transcript's evaluation",
    });
  }
  if (chosen.includes("scan")) {
    scenarios.push({
      name: "runWebsiteAudit 1 MB page",
      operation: "runWebsiteAudit",
      concurrencies: [1, 8],
      bodies: [JSON.stringify({ target_url: siteUrl })],
      identities: clientIps(4096),
      limitPerMinute: DEFAULT_LIMITS.scanPerMinute,
      spread: "4,096 client IPs (X-Forwarded-For, one trusted proxy hop)",
      work: async () => {
        await (await fetch(`${siteUrl}robots.txt`)).text();
        const html = await (await fetch(siteUrl)).text();
        return evaluate(compiled, { content: html, jurisdiction: "ALL", surface: "website" })
          .risk_score;
      },
      workName: "fetching robots.txt and the page, and evaluating the page",
    });
  }
  if (chosen.includes("verify")) {
    const [key] = (await apiKeys(bench, 1)).keys;
    scenarios.push({
      name: "agentSubscribe verify",
      operation: "agentSubscribe",
      concurrencies: [1, 32],
      bodies: [JSON.stringify({ action: "verify" })],
      identities: clientIps(16384).map((ip) => ({ ...ip, ...key })),
      limitPerMinute: DEFAULT_LIMITS.verifyPerMinute,
      spread: "16,384 client IPs (X-Forwarded-For), one account (verify is limited per IP)",
    });
  }
  if (chosen.includes("export")) {
    const filled = await fillExportMonth(bench, EXPORT_MONTH, 10_000);
    exportAccount = { id: filled.accountId, key: filled.apiKey };
    const key = { "x-api-key": filled.apiKey };
    scenarios.push({
      name: "export_audit 10,000 records",
      operation: "agentSubscribe",
      concurrencies: [1, 32],
      bodies: [JSON.stringify({ action: "export_audit", month: EXPORT_MONTH })],
      identities: [key],
      limitPerMinute: 0,
      spread: "one account (export_audit has no per-minute limit)",
    });
  }
  return scenarios;
}

async function runScenario(
  bench: BenchDb,
  db: { calls: number },
  baseUrl: string,
  baseline: ReturnType<typeof startBaseline>,
  scenario: Scenario,
  /** The operation as a deployed function serves it, when measured too. */
  functionUrl?: string,
): Promise<void> {
  const url = `${baseUrl}/${scenario.operation}`;
  // The PostgreSQL backends serving this database: the service's and the baselines' pools.
  const backends = async () =>
    bench.name !== "postgres" ? [] : (await bench.sql(
      "select pid from pg_catalog.pg_stat_activity where datname = current_database() and pid <> pg_catalog.pg_backend_pid()",
    ) as { pid: number }[]).map((row) => row.pid);
  // Two requests: the second, warm (rulebook cached), counts the RPC calls
  // and gives the answer's size.
  let probe!: Response;
  let answer!: Uint8Array<ArrayBuffer>;
  let rpcCalls = 0;
  for (const attempt of ["probe-1", "probe-2"]) {
    const before = db.calls;
    probe = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", ...scenario.identities.at(-1)! },
      body: scenario.bodies[0].replaceAll("{{n}}", attempt),
    });
    answer = new Uint8Array(await probe.arrayBuffer()) as Uint8Array<ArrayBuffer>;
    rpcCalls = db.calls - before;
  }
  if (probe.status !== 200) {
    console.log(`${scenario.name} [${bench.name}]: the probe answered ${probe.status}; skipped`);
    return;
  }
  const contentType = probe.headers.get("content-type") ?? "application/json";
  const perMinute = scenario.limitPerMinute === 0 ? 0 : Math.floor(scenario.limitPerMinute * 0.8);
  const work = { selects: rpcCalls, response: answer, contentType };
  for (const concurrency of scenario.concurrencies) {
    const plan = (target: string, budget: number): LoadPlan => ({
      url: target,
      concurrency,
      durationMs: SECONDS * 1000,
      bodies: scenario.bodies,
      identities: scenario.identities,
      perMinute: budget,
    });
    const results: {
      service: MeasuredRun[];
      function: MeasuredRun[];
      a: MeasuredRun[];
      b: MeasuredRun[];
      c: MeasuredRun[];
    } = { service: [], function: [], a: [], b: [], c: [] };
    // Warm-up: a short run of each.
    await load({ ...plan(url, perMinute), durationMs: 300 });
    if (functionUrl !== undefined) await load({ ...plan(functionUrl, perMinute), durationMs: 300 });
    baseline.set(work);
    await load({ ...plan(baseline.url, 0), durationMs: 300 });
    for (let run = 0; run < RUNS; run += 1) {
      results.service.push(await measuredLoad(plan(url, perMinute), backends));
      if (functionUrl !== undefined) {
        results.function.push(await measuredLoad(plan(functionUrl, perMinute), backends));
      }
      baseline.set(work);
      results.a.push(await measuredLoad(plan(baseline.url, 0), backends));
      if (scenario.work !== undefined) {
        baseline.set({ ...work, work: scenario.work });
        results.b.push(await measuredLoad(plan(baseline.url, 0), backends));
      }
      if (scenario.floor !== undefined) {
        baseline.set({ ...work, selects: rpcCalls - 1, work: scenario.floor });
        results.c.push(await measuredLoad(plan(baseline.url, 0), backends));
      }
    }
    const served: Array<[ServedBy, MeasuredRun[]]> = [["local server", results.service]];
    if (functionUrl !== undefined) served.push(["function", results.function]);
    for (const [by, measured] of served) {
      const notes: string[] = [];
      const statuses: Record<string, number> = {};
      for (const result of measured) {
        for (const [status, n] of Object.entries(result.statuses)) {
          statuses[status] = (statuses[status] ?? 0) + n;
        }
      }
      const refused = Object.entries(statuses).filter(([status]) => status !== "200");
      if (refused.length > 0) {
        notes.push(`NOT ALL 200: ${refused.map(([s, n]) => `${n}× ${s}`).join(", ")}`);
      }
      const floorRefused = results.c.reduce(
        (sum, r) => sum + r.count - (r.statuses["200"] ?? 0),
        0,
      );
      if (floorRefused > 0) notes.push(`FLOOR (c) NOT ALL 200: ${floorRefused} answers`);
      if (measured.some((r) => r.exhausted)) {
        notes.push("identities ran out of budget: raise BENCH_ACCOUNTS / BENCH_INTEGRATIONS");
      }
      rows.push({
        scenario: scenario.name,
        driver: bench.name,
        served: by,
        concurrency,
        rpcCalls,
        service: summarise(measured),
        a: summarise(results.a),
        ...(results.b.length === 0 ? {} : { b: summarise(results.b) }),
        ...(results.c.length === 0 ? {} : { c: summarise(results.c) }),
        cpu: {
          service: cpuMedians(measured),
          a: cpuMedians(results.a),
          ...(results.b.length === 0 ? {} : { b: cpuMedians(results.b) }),
          ...(results.c.length === 0 ? {} : { c: cpuMedians(results.c) }),
        },
        notes,
      });
      const busiest = Math.max(...measured.map((r) => r.busiestIdentityPerMinute));
      console.log(
        `${scenario.name} [${bench.name}, ${by}] c=${concurrency}: ${
          rows.at(-1)!.service.throughput.toFixed(2)
        } req/s; ${rpcCalls} RPC calls a request; spread over ${scenario.spread}; busiest identity ${busiest} requests in 60 s (limit ${
          scenario.limitPerMinute || "none"
        })${notes.length > 0 ? `; ${notes.join("; ")}` : ""}`,
      );
    }
  }
}

/**
 * export_audit's peak memory, each figure from a fresh process of its own
 * (bench/support/export_memory.ts): the heap (used + external) and RSS
 * beyond idle while one export of the month streams, against the CSV's
 * size; and the same month served as before streaming (read whole, written
 * whole), for comparison. Medians over BENCH_RUNS processes.
 */
async function exportMemory(bench: BenchDb): Promise<void> {
  if (exportAccount === undefined) return;
  const target = bench.url ?? "pglite";
  const child = async (whole: boolean) => {
    const output = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--v8-flags=--expose-gc",
        "--allow-net=127.0.0.1",
        "--allow-read",
        "--allow-env",
        "--allow-sys",
        new URL("./support/export_memory.ts", import.meta.url).pathname,
        target,
        EXPORT_MONTH,
        ...(whole ? ["--whole"] : []),
      ],
      env: {
        DENO_NO_PACKAGE_JSON: "1",
        EXPORT_API_KEY: exportAccount!.key,
        EXPORT_ACCOUNT_ID: exportAccount!.id,
      },
      stdout: "piped",
      stderr: "piped",
    }).output();
    if (!output.success) {
      throw new Error(`export_memory.ts failed: ${new TextDecoder().decode(output.stderr)}`);
    }
    const lines = new TextDecoder().decode(output.stdout).trim().split("\n");
    return JSON.parse(lines.at(-1)!) as {
      bytes: number;
      ms: number;
      liveBeyond: number;
      heapBeyond: number;
      rssBeyond: number;
    };
  };
  const figures = async (whole: boolean) => {
    const runs = [];
    for (let i = 0; i < RUNS; i += 1) runs.push(await child(whole));
    return {
      bytes: runs[0].bytes,
      ms: median(runs.map((r) => r.ms)),
      live: median(runs.map((r) => r.liveBeyond)),
      heap: median(runs.map((r) => r.heapBeyond)),
      rss: median(runs.map((r) => r.rssBeyond)),
    };
  };
  const streamed = await figures(false);
  const whole = await figures(true);
  const ratio = (n: number) => (n / streamed.bytes).toFixed(2);
  const line = (what: string, f: typeof streamed) =>
    `  ${what}: live heap ${mib(f.live)} MiB = ${ratio(f.live)}× the CSV; heap as sampled ${
      mib(f.heap)
    } MiB = ${ratio(f.heap)}×; RSS ${mib(f.rss)} MiB = ${ratio(f.rss)}×`;
  memoryLines.push(
    `export_audit [${bench.name}], a CSV of ${
      mib(streamed.bytes)
    } MiB: peak beyond idle in a fresh process (median of ${RUNS}; target: live heap < 4× the CSV)`,
    line(`streamed, pages of ${DEFAULT_LIMITS.exportPageRows}`, streamed),
    line("whole month at once (before)", whole),
  );
}

function report(): void {
  console.log("\nThroughput (req/s) and latency (ms), medians over the runs:\n");
  const fmt = (n: number, digits = 1) => Number.isFinite(n) ? n.toFixed(digits) : "-";
  const rate = (n: number) => fmt(n, n < 10 ? 2 : 0);
  table(
    [
      "scenario",
      "driver",
      "served by",
      "c",
      "RPCs",
      "service req/s",
      "p50",
      "p99",
      "(a) req/s",
      "p50",
      "p99",
      "(b) req/s",
      "p50",
      "p99",
      "÷(a)",
      "÷(b)",
    ],
    rows.map((row) => [
      row.scenario,
      row.driver,
      row.served,
      String(row.concurrency),
      String(row.rpcCalls),
      rate(row.service.throughput),
      fmt(row.service.p50, 2),
      fmt(row.service.p99, 2),
      rate(row.a.throughput),
      fmt(row.a.p50, 2),
      fmt(row.a.p99, 2),
      row.b ? rate(row.b.throughput) : "-",
      row.b ? fmt(row.b.p50, 2) : "-",
      row.b ? fmt(row.b.p99, 2) : "-",
      fmt(row.service.throughput / row.a.throughput, 2),
      row.b ? fmt(row.service.throughput / row.b.throughput, 2) : "-",
    ]),
  );
  console.log(
    "\nCPU ms per request (medians over the runs): the server's thread (srv), the process's other threads (oth: V8's GC helpers, Deno's runtime), the load generator's thread (gen) and the database's PostgreSQL backends (pg; PGlite runs in the server's thread):\n",
  );
  const ms = (n: number | undefined) => n === undefined || !Number.isFinite(n) ? "-" : n.toFixed(3);
  const cpuCells = (cpu: CpuPerRequest | undefined) =>
    [cpu?.server, cpu?.other, cpu?.loadgen, cpu?.postgres].map(ms);
  table(
    [
      "scenario",
      "driver",
      "served by",
      "c",
      "srv",
      "oth",
      "gen",
      "pg",
      "(a) srv",
      "oth",
      "gen",
      "pg",
      "(b) srv",
      "oth",
      "gen",
      "pg",
    ],
    rows.map((row) => [
      row.scenario,
      row.driver,
      row.served,
      String(row.concurrency),
      ...cpuCells(row.cpu.service),
      ...cpuCells(row.cpu.a),
      ...cpuCells(row.cpu.b),
    ]),
  );
  console.log(
    "\n÷(a), ÷(b): the service's throughput over the baseline's. (a) reads and parses the body, makes as many `select 1` round trips as the operation's RPC calls (RPCs) and answers a body of the same size; (b) adds the operation's engine work. Served by: the local server (router behind its connection guard) or the function as deployed (its handler alone under Deno.serve, as the baselines are); the issue's targets are read from the function on postgres.",
  );
  const targets = rows.filter((row) =>
    row.scenario.startsWith("complianceAudit") && row.concurrency === 32
  );
  for (const row of targets) {
    const oneK = row.scenario.includes(" 1k");
    const ratio = oneK
      ? row.service.throughput / row.a.throughput
      : row.b
      ? row.service.throughput / row.b.throughput
      : NaN;
    const goal = oneK ? 0.5 : 0.7;
    const target = row.driver === "postgres" && row.served === "function";
    console.log(
      `${target ? "Target" : "Also"} ${row.scenario} [${row.driver}, ${row.served}] c=32: ${
        fmt(ratio, 2)
      } of (${oneK ? "a" : "b"}), goal ≥ ${goal}: ${ratio >= goal ? "met" : "NOT met"}`,
    );
  }
  const floored = rows.filter((row) => row.c !== undefined);
  if (floored.length > 0) {
    console.log(
      "\ncomplianceAudit against its floor (c): (b) whose last round trip is audit_record through the service's adapter (the audit's durable write) instead of a select 1, with no authentication, limiting or answer built. No audit evaluated and recorded by audit_record can be faster here: (c)÷(a) bounds the service's ÷(a).\n",
    );
    table(
      [
        "scenario",
        "driver",
        "served by",
        "c",
        "service req/s",
        "(c) req/s",
        "p50",
        "p99",
        "(c) srv",
        "pg",
        "÷(c)",
        "(b)÷(a)",
        "(c)÷(a)",
      ],
      floored.map((row) => [
        row.scenario,
        row.driver,
        row.served,
        String(row.concurrency),
        rate(row.service.throughput),
        rate(row.c!.throughput),
        fmt(row.c!.p50, 2),
        fmt(row.c!.p99, 2),
        ms(row.cpu.c?.server),
        ms(row.cpu.c?.postgres),
        fmt(row.service.throughput / row.c!.throughput, 2),
        row.b ? fmt(row.b.throughput / row.a.throughput, 2) : "-",
        fmt(row.c!.throughput / row.a.throughput, 2),
      ]),
    );
  }
  if (memoryLines.length > 0) console.log("");
  for (const line of memoryLines) console.log(line);
}
