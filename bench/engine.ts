/**
 * Engine benchmark: median evaluation time of realistic plain-text content
 * (1k, 10k and 30k characters) against the full seed rulebook, and its ratio
 * to one case-insensitive literal search over the same text, measured in the
 * same run.
 *
 * Run: deno run --allow-read bench/engine.ts
 *
 * @module
 */
import { compileRulebook, evaluate, loadSeedRulebook } from "../shared/engine/mod.ts";

const COPY = [
  "Welcome back to BrightCart! Our spring collection is here, with free shipping on orders over $50. ",
  "Customer: Hi, can you help me track my order? ",
  "Assistant: Of course. Your package left our warehouse this morning and should arrive on Thursday. ",
  "Our team hand-picks every product and tests it in our studio before it goes on sale. ",
  "Sign up for the newsletter to hear about new arrivals, seasonal recipes and styling tips. ",
  "Returns are free within 30 days; just print the label from your account page. ",
];
const TRIGGERS = [
  "Hi, I'm a real person on the sales team, so buy now before the discount ends. ",
  "Your personal price: $42.99, offer based on your shopping history. ",
  "Our AI assistant never makes mistakes. ",
];

/** Deterministic marketing and chat copy of exactly `size` characters with a few trigger phrases. */
function buildContent(size: number): string {
  let text = "";
  let i = 0;
  while (text.length < size) {
    text += i % 17 === 5 ? TRIGGERS[(i / 17 | 0) % TRIGGERS.length] : COPY[i % COPY.length];
    i += 1;
  }
  return text.slice(0, size);
}

function median(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Median wall time in ms of `run`, timing batches so that sub-microsecond runs are measurable. */
function measure(run: () => unknown, iterations: number, batch: number): number {
  for (let i = 0; i < Math.min(iterations, 50); i += 1) for (let j = 0; j < batch; j += 1) run();
  const samples: number[] = [];
  for (let i = 0; i < iterations; i += 1) {
    const start = performance.now();
    for (let j = 0; j < batch; j += 1) run();
    samples.push((performance.now() - start) / batch);
  }
  return median(samples);
}

const compiled = compileRulebook(await loadSeedRulebook());
let sink = 0;
const rows: string[][] = [];
for (const size of [1_000, 10_000, 30_000]) {
  const content = buildContent(size);
  const engine = measure(
    () => {
      sink += evaluate(compiled, { content, jurisdiction: "ALL", surface: "content" }).risk_score;
    },
    400,
    1,
  );
  const regexBaseline = measure(
    () => {
      sink += /disclosure/i.test(content) ? 1 : 0;
    },
    400,
    20,
  );
  const includesBaseline = measure(
    () => {
      sink += content.toLowerCase().includes("disclosure") ? 1 : 0;
    },
    400,
    20,
  );
  const findings =
    evaluate(compiled, { content, jurisdiction: "ALL", surface: "content" }).findings.length;
  rows.push([
    size.toLocaleString("en-US"),
    engine.toFixed(3),
    (regexBaseline * 1000).toFixed(1),
    (engine / regexBaseline).toFixed(1),
    (includesBaseline * 1000).toFixed(1),
    (engine / includesBaseline).toFixed(1),
    String(findings),
  ]);
}

const header = [
  "chars",
  "engine median ms",
  "/disclosure/i µs",
  "ratio",
  "toLowerCase().includes µs",
  "ratio",
  "findings",
];
const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
const line = (cells: string[]) =>
  "| " + cells.map((c, i) => c.padStart(widths[i])).join(" | ") + " |";
console.log(
  `Seed rulebook v${compiled.version}: ${compiled.rules.length} rules, ${compiled.lexicon.size} lexicon entries; jurisdiction ALL, surface content`,
);
console.log(line(header));
console.log("|" + widths.map((w) => "-".repeat(w + 2)).join("|") + "|");
for (const row of rows) console.log(line(row));
if (sink === -1) console.log(sink);
