/**
 * Cold start: the time from spawning `deno run` on a function's index.ts
 * (with that function's deno.json, as Supabase resolves it) to its first
 * answered request, against a hello-world `Deno.serve`
 * (bench/support/hello.ts) started the same way in the same run. Deno's
 * module cache is warm (one unmeasured start of each first), as a deployed
 * bundle's would be.
 *
 * Each function runs as deployed: DB_DRIVER postgres on a fresh, migrated
 * database of BENCH_DATABASE_URL (else TEST_DATABASE_URL; loopback only)
 * with the seed rulebook active, and Upstash through a loopback bridge to
 * the Redis of TEST_REDIS_URL (else 127.0.0.1:6379) when one answers. The
 * first request is a real one that needs the database, the limiter and the
 * operation: an audit of 1k characters, a verify, a 3-message transcript, a
 * scan of a small loopback page; its status is printed.
 *
 * Beside them, the floor (bench/support/cold_floor.ts): a `Deno.serve` that
 * loads only what every function's stack loads (zod, postgres.js), checks the
 * body against a schema and makes one `select 1` round trip. No function can
 * start faster, so its ratio to the hello world bounds the functions' ratios.
 *
 * Each function is started twice: from its source with its deno.json, as
 * `supabase functions serve` runs it, and bundled (`deno bundle --code-splitting`,
 * into a temporary directory), as `supabase functions deploy` ships it in one
 * file (an eszip) with its modules transpiled: the bundle's lazy imports stay
 * separate chunks, loaded on demand as from source.
 *
 * The clock starts just before the spawn and stops when the response's body
 * has been read; the port is learnt from the "Listening on" line
 * (DENO_SERVE_ADDRESS=tcp:127.0.0.1:0). Medians over BENCH_RUNS starts
 * (default 5), interleaved.
 *
 * Run: deno task bench-cold
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
import { loadSeedRulebook } from "../shared/engine/mod.ts";
import { startUpstashBridge, type UpstashBridge } from "../tests/support/upstash_bridge.ts";
import { buildText } from "./support/content.ts";
import { benchPostgresUrl, openPostgresBench } from "./support/databases.ts";
import { machine, median, table } from "./support/stats.ts";

const RUNS = Number(Deno.env.get("BENCH_RUNS") ?? 5);
const root = new URL("../", import.meta.url);

const server = benchPostgresUrl();
if (server === undefined) {
  console.log(
    "Cold start needs PostgreSQL: set BENCH_DATABASE_URL or TEST_DATABASE_URL (loopback).",
  );
  Deno.exit(0);
}

console.log(`Cold start: ${await machine()}`);
const bench = await openPostgresBench(server, 2);
const seed = await loadSeedRulebook();
await importRulebook(bench.db, seed);
await activateRulebook(bench.db, seed.version);
const account = await createAccount(bench.db, {
  plan: "enterprise",
  status: "active",
  trialEnd: null,
  pricePerMonthUsd: null,
});
const { api_key: apiKey } = await issueApiKey(bench.db, account.account_id);
const { credential } = await createIntegration(bench.db, {
  accountId: account.account_id,
  name: "cold start",
  provider: "bench",
});

let bridge: UpstashBridge | undefined;
try {
  bridge = await startUpstashBridge(Deno.env.get("TEST_REDIS_URL") || "redis://127.0.0.1:6379");
} catch {
  console.log("No Redis answers: limited requests are refused (503/500) without Upstash.");
}

const site = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (req) => {
  const path = new URL(req.url).pathname;
  if (path === "/robots.txt") return new Response("User-agent: *\nAllow: /\n");
  if (path === "/") {
    return new Response(
      "<!doctype html><html><head><title>Shop</title></head><body><h1>Oak chairs</h1><p>Handmade in Vermont, shipped flat in three days.</p></body></html>",
      { headers: { "content-type": "text/html; charset=utf-8" } },
    );
  }
  return new Response("not found", { status: 404 });
});

let sequence = 0;
/** A client IP per request (benchmarking range), so per-IP limits never bind. */
const nextIp = () => `198.18.${(++sequence >> 8) & 255}.${sequence & 255}`;

interface Subject {
  /** Its row's first column ("complianceAudit/index.ts"), unique: the figures are kept under it. */
  name: string;
  /** What its first request is, as the table says it. */
  first: string;
  entry: URL;
  config?: URL;
  request: () => { body: string; headers: Record<string, string> };
}

const fn = (name: string) => new URL(`supabase/functions/${name}/`, root);
const subjects: Subject[] = [
  {
    name: "hello world (Deno.serve)",
    first: "any",
    entry: new URL("bench/support/hello.ts", root),
    request: () => ({ body: "{}", headers: {} }),
  },
  {
    name: "floor (zod, postgres.js)",
    first: "select 1",
    entry: new URL("bench/support/cold_floor.ts", root),
    config: new URL("deno.json", fn("complianceAudit")),
    request: () => ({ body: "{}", headers: {} }),
  },
  {
    name: "complianceAudit/index.ts",
    first: "complianceAudit",
    entry: new URL("index.ts", fn("complianceAudit")),
    config: new URL("deno.json", fn("complianceAudit")),
    request: () => ({
      body: JSON.stringify({ content: buildText(1000), jurisdiction: "CA" }),
      headers: { "x-api-key": apiKey },
    }),
  },
  {
    name: "agentSubscribe/index.ts",
    first: "agentSubscribe verify",
    entry: new URL("index.ts", fn("agentSubscribe")),
    config: new URL("deno.json", fn("agentSubscribe")),
    request: () => ({
      body: JSON.stringify({ action: "verify" }),
      headers: { "x-api-key": apiKey },
    }),
  },
  {
    name: "webhookIngest/index.ts",
    first: "webhookIngest",
    entry: new URL("index.ts", fn("webhookIngest")),
    config: new URL("deno.json", fn("webhookIngest")),
    request: () => ({
      body: JSON.stringify({
        source: "bench",
        conversation_id: `cold-${crypto.randomUUID()}`,
        messages: [
          { sender: "user", text: "Are you a real person?" },
          { sender: "bot", text: "I'm an AI assistant. How can I help?" },
          { sender: "user", text: "Where is my order?" },
        ],
      }),
      headers: { "x-webhook-secret": credential },
    }),
  },
  {
    name: "runWebsiteAudit/index.ts",
    first: "runWebsiteAudit",
    entry: new URL("index.ts", fn("runWebsiteAudit")),
    config: new URL("deno.json", fn("runWebsiteAudit")),
    request: () => ({
      body: JSON.stringify({ target_url: `http://127.0.0.1:${site.addr.port}/` }),
      headers: {},
    }),
  },
];

const env: Record<string, string> = {
  DENO_NO_PACKAGE_JSON: "1",
  NO_COLOR: "1",
  DENO_SERVE_ADDRESS: "tcp:127.0.0.1:0",
  DB_DRIVER: "postgres",
  DATABASE_URL: bench.url!,
  TRUSTED_PROXY_HOPS: "1",
  SCAN_ALLOWED_TARGETS: `127.0.0.1:${site.addr.port}`,
  SCAN_ALLOWED_PORTS: String(site.addr.port),
  LOG_LEVEL: "error",
  ...(bridge === undefined
    ? {}
    : { UPSTASH_REDIS_REST_URL: bridge.url, UPSTASH_REDIS_REST_TOKEN: bridge.token }),
};

/** Resolves with the port once the child prints "Listening on http://127.0.0.1:<port>/". */
async function listeningPort(stream: ReadableStream<Uint8Array>): Promise<number> {
  let seen = "";
  const reader = stream.pipeThrough(new TextDecoderStream()).getReader();
  while (true) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the process ended before listening: ${seen.slice(0, 500)}`);
    seen += value;
    const match = seen.match(/Listening on https?:\/\/[^:\s]+:(\d+)\//);
    if (match) {
      // Keep draining so that the child never blocks on a full pipe.
      (async () => {
        while (!(await reader.read()).done) { /* drain */ }
      })().catch(() => {});
      return Number(match[1]);
    }
  }
}

async function coldStart(
  subject: Subject,
): Promise<{ ms: number; listenMs: number; status: number }> {
  const args = [
    "run",
    "--allow-net=127.0.0.1",
    "--allow-env",
    "--allow-read",
    "--allow-sys",
    "--no-lock",
    ...(subject.config === undefined ? [] : ["--config", subject.config.pathname]),
    subject.entry.pathname,
  ];
  const request = subject.request();
  const started = performance.now();
  const child = new Deno.Command(Deno.execPath(), {
    args,
    env,
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  try {
    const port = await Promise.any([listeningPort(child.stdout), listeningPort(child.stderr)]);
    const listenMs = performance.now() - started;
    const response = await fetch(`http://127.0.0.1:${port}/`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-forwarded-for": nextIp(),
        ...request.headers,
      },
      body: request.body,
    });
    await response.arrayBuffer();
    return { ms: performance.now() - started, listenMs, status: response.status };
  } finally {
    child.kill("SIGTERM");
    await child.status;
  }
}

/** Bundles each function (code splitting keeps its on-demand imports apart) into a temporary directory. */
const bundles = await Deno.makeTempDir({ prefix: "cold_start_bundles_" });
for (const subject of subjects.filter((s) => s.config !== undefined)) {
  const name = subject.entry.pathname.split("/").at(-2)!;
  const output = await new Deno.Command(Deno.execPath(), {
    args: [
      "bundle",
      "--quiet",
      "--platform",
      "deno",
      "--code-splitting",
      "--no-lock",
      "--outdir",
      `${bundles}/${name}`,
      "--config",
      subject.config!.pathname,
      subject.entry.pathname,
    ],
    env: { DENO_NO_PACKAGE_JSON: "1", NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!output.success) {
    throw new Error(
      `deno bundle ${name}: ${new TextDecoder().decode(output.stderr).slice(0, 500)}`,
    );
  }
  subjects.push({
    name: `${subject.name.replace(/\/index\.ts$/, "")}, bundled`,
    first: subject.first,
    entry: new URL(
      `file://${bundles}/${name}/${
        subject.entry.pathname.split("/").pop()!.replace(/\.ts$/, ".js")
      }`,
    ),
    request: subject.request,
  });
}

const times = new Map<string, number[]>(subjects.map((s) => [s.name, []]));
const listening = new Map<string, number[]>(subjects.map((s) => [s.name, []]));
const statuses = new Map<string, Set<number>>(subjects.map((s) => [s.name, new Set()]));
for (const subject of subjects) await coldStart(subject); // warm Deno's module cache
for (let run = 0; run < RUNS; run += 1) {
  for (const subject of subjects) {
    const { ms, listenMs, status } = await coldStart(subject);
    times.get(subject.name)!.push(ms);
    listening.get(subject.name)!.push(listenMs);
    statuses.get(subject.name)!.add(status);
  }
}

const hello = median(times.get(subjects[0].name)!);
console.log(
  `\nProcess start to first answered request, median of ${RUNS} (interleaved), warm module cache; ${
    bridge === undefined ? "no Upstash" : "Upstash through a loopback bridge"
  }, PostgreSQL on loopback:\n`,
);
table(
  ["process", "first request", "status", "listening ms", "answered ms", "× hello world"],
  subjects.map((subject) => [
    subject.name,
    subject.first,
    [...statuses.get(subject.name)!].join(","),
    median(listening.get(subject.name)!).toFixed(0),
    median(times.get(subject.name)!).toFixed(0),
    (median(times.get(subject.name)!) / hello).toFixed(2),
  ]),
);
console.log(
  "\nlistening: until Deno.serve listens (module graph loaded and evaluated); answered: until the first response is read (× hello world compares this). Target: within 3× the hello world. The floor loads only zod and postgres.js and makes one select 1: no function can start faster.",
);

await Deno.remove(bundles, { recursive: true });
await site.shutdown();
await bridge?.close();
await bench.close();
