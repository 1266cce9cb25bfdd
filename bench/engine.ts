/**
 * Engine benchmark: the full newest seed rulebook on realistic content, each
 * figure next to a baseline timed in the same run on the same machine.
 *
 * - Plain text of 1k, 10k and 30k characters, jurisdiction ALL (every rule)
 *   and one state (CA, the rules narrowed to that state's): the median time,
 *   its ratio to `toLowerCase().includes()` over the same text, and the time
 *   per 1,000 characters (linear cost keeps it flat).
 * - HTML of 30k characters: the evaluation (parse, walk, match, decide)
 *   against linkedom parsing the same page alone.
 * - Rulebook size: 30k characters against the rulebook at 1x, 4x and 16x its
 *   size (bench/synthetic_rulebook.ts), as a ratio to 1x.
 *
 * Every figure is the median of per-round medians, and the runs of a table
 * are interleaved iteration by iteration, so that a noisy neighbour on a
 * shared machine weighs on engine and baseline alike. The load average is
 * printed.
 *
 * Run: deno task bench (or deno run --allow-read --allow-sys=loadavg bench/engine.ts
 * [--rounds 7])
 *
 * @module
 */
import { parseHTML } from "linkedom";
import { parseArgs } from "node:util";
import {
  type CompiledRulebook,
  compileRulebook,
  evaluate,
  type Jurisdiction,
  loadSeedRulebook,
} from "../shared/engine/mod.ts";
import { scaleRulebook } from "./synthetic_rulebook.ts";
import { buildText, COPY, TRIGGERS } from "./support/content.ts";

const { values: args } = parseArgs({
  args: Deno.args,
  options: { rounds: { type: "string", default: "5" } },
});
const ROUNDS = Math.max(1, Number(args.rounds) || 5);

/** A page of exactly `size` characters: head, navigation, paragraphs, a chat widget, a footer. */
function buildHtml(size: number): string {
  const head =
    `<!doctype html><html><head><title>BrightCart</title><meta name="description" content="Shop spring">` +
    `<style>.sr{position:absolute;left:-9999px}</style></head><body><header><nav><a href="/">Home</a> ` +
    `<a href="/privacy">Privacy</a></nav></header><main>`;
  const tail =
    `</main><div class="chat" aria-label="Chat with our assistant"><button>Chat</button>` +
    `<span class="sr">AI assistant</span></div><script src="https://widget.intercom.io/w/x"></script>` +
    `<footer>BrightCart Inc.</footer></body></html>`;
  let body = "";
  let i = 0;
  while (head.length + body.length + tail.length < size) {
    body += i % 5 === 0
      ? `<h2>Section ${i}</h2>`
      : `<p class="copy">${COPY[i % COPY.length]}<b>${TRIGGERS[i % TRIGGERS.length]}</b></p>`;
    i += 1;
  }
  return (head + body).slice(0, size - tail.length) + tail;
}

function median(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/**
 * Median wall times in ms of several runs, measured interleaved: each
 * iteration times one batch of each run in turn (batches make sub-microsecond
 * runs measurable), so that a busy neighbour on a shared machine weighs on
 * all of them alike. Each figure is the median of per-round medians.
 */
function compare(
  runs: { run: () => unknown; batch?: number }[],
  iterations: number,
): number[] {
  for (const { run, batch = 1 } of runs) {
    for (let i = 0; i < 30; i += 1) for (let j = 0; j < batch; j += 1) run();
  }
  const rounds: number[][] = runs.map(() => []);
  for (let r = 0; r < ROUNDS; r += 1) {
    const samples: number[][] = runs.map(() => []);
    for (let i = 0; i < iterations; i += 1) {
      runs.forEach(({ run, batch = 1 }, k) => {
        const start = performance.now();
        for (let j = 0; j < batch; j += 1) run();
        samples[k].push((performance.now() - start) / batch);
      });
    }
    samples.forEach((s, k) => rounds[k].push(median(s)));
  }
  return rounds.map(median);
}

/** The 1, 5 and 15 minute load averages (with --allow-sys=loadavg), for context. */
function loadAverage(): string {
  try {
    return Deno.loadavg().map((n) => n.toFixed(2)).join(" ");
  } catch {
    return "unknown (run with --allow-sys=loadavg)";
  }
}

function table(header: string[], rows: string[][]): void {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) =>
    "| " + cells.map((c, i) => c.padStart(widths[i])).join(" | ") + " |";
  console.log(line(header));
  console.log("|" + widths.map((w) => "-".repeat(w + 2)).join("|") + "|");
  for (const row of rows) console.log(line(row));
}

const rulebook = await loadSeedRulebook();
const compiled = compileRulebook(rulebook);
let sink = 0;
const plain = (book: CompiledRulebook, content: string, jurisdiction: Jurisdiction) => () => {
  sink += evaluate(book, { content, jurisdiction, surface: "content" }).risk_score;
};

console.log(
  `Seed rulebook v${compiled.version} (format ${compiled.format}): ${compiled.rules.length} rules, ` +
    `${Object.keys(rulebook.concepts).length} concepts; ${ROUNDS} rounds; ` +
    `load average ${loadAverage()}\n`,
);
console.log("Plain text (surface content)");
const rows: string[][] = [];
for (const size of [1_000, 10_000, 30_000]) {
  const content = buildText(size);
  const iterations = size >= 10_000 ? 60 : 150;
  const [all, state, includes] = compare([
    { run: plain(compiled, content, "ALL") },
    { run: plain(compiled, content, "CA") },
    {
      run: () => {
        sink += content.toLowerCase().includes("disclosure") ? 1 : 0;
      },
      batch: 20,
    },
  ], iterations);
  rows.push([
    size.toLocaleString("en-US"),
    all.toFixed(3),
    (all / (size / 1000)).toFixed(4),
    state.toFixed(3),
    (includes * 1000).toFixed(1),
    (all / includes).toFixed(0),
  ]);
}
table([
  "chars",
  "ALL median ms",
  "ALL ms per 1k chars",
  "CA median ms",
  "toLowerCase().includes µs",
  "ALL ratio",
], rows);

console.log("\nHTML (surface website)");
const page = buildHtml(30_000);
const [engineHtml, parseOnly] = compare([
  {
    run: () => {
      sink += evaluate(compiled, { content: page, jurisdiction: "ALL", surface: "website" })
        .risk_score;
    },
  },
  {
    run: () => {
      // linkedom types its result with DOM lib types Deno does not load.
      const { document } = parseHTML(page) as unknown as {
        document: { childNodes: ArrayLike<unknown> };
      };
      sink += document.childNodes.length;
    },
  },
], 40);
table(["chars", "engine median ms", "linkedom parse alone ms", "ratio"], [[
  "30,000",
  engineHtml.toFixed(3),
  parseOnly.toFixed(3),
  (engineHtml / parseOnly).toFixed(2),
]]);

console.log("\nRulebook size (30,000 characters of plain text; copies with their own vocabulary)");
const text30k = buildText(30_000);
const scaled = [1, 4, 16].map((k) => {
  const book = scaleRulebook(rulebook, k);
  return { k, book: compileRulebook(book), concepts: Object.keys(book.concepts).length };
});
const sizeRuns = scaled.flatMap(({ book }) => [
  { run: plain(book, text30k, "ALL") },
  { run: plain(book, text30k, "CA") },
]);
const sizeTimes = compare(sizeRuns, 40);
table(
  ["size", "rules", "concepts", "ALL median ms", "ALL vs 1x", "CA median ms", "CA vs 1x"],
  scaled.map(({ k, book, concepts }, i) => [
    `${k}x`,
    String(book.rules.length),
    String(concepts),
    sizeTimes[2 * i].toFixed(3),
    (sizeTimes[2 * i] / sizeTimes[0]).toFixed(2),
    sizeTimes[2 * i + 1].toFixed(3),
    (sizeTimes[2 * i + 1] / sizeTimes[1]).toFixed(2),
  ]),
);
console.log(`\nload average ${loadAverage()}`);
if (sink === -1) console.log(sink);
