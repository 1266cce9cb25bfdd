/**
 * Engine benchmark: the full newest seed rulebook on realistic content, each
 * figure next to a baseline timed in the same run on the same machine.
 *
 * - Plain text of 1k, 10k and 30k characters, jurisdiction ALL (every rule):
 *   the median time, its ratio to `toLowerCase().includes()` over the same
 *   text, and the time per 1,000 characters (linear cost keeps it flat).
 * - HTML of 30k characters: the evaluation (parse, walk, match, decide)
 *   against linkedom parsing the same page alone.
 *
 * Run: deno task bench (or deno run --allow-read bench/engine.ts)
 *
 * @module
 */
import { parseHTML } from "linkedom";
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
function buildText(size: number): string {
  let text = "";
  let i = 0;
  while (text.length < size) {
    text += i % 17 === 5 ? TRIGGERS[(i / 17 | 0) % TRIGGERS.length] : COPY[i % COPY.length];
    i += 1;
  }
  return text.slice(0, size);
}

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

console.log(
  `Seed rulebook v${compiled.version} (format ${compiled.format}): ${compiled.rules.length} rules, ` +
    `${
      Object.keys(rulebook.concepts).length
    } concepts, jurisdiction ALL (every rule), surface content\n`,
);
console.log("Plain text");
const rows: string[][] = [];
for (const size of [1_000, 10_000, 30_000]) {
  const content = buildText(size);
  const engine = measure(
    () => {
      sink += evaluate(compiled, { content, jurisdiction: "ALL", surface: "content" }).risk_score;
    },
    300,
    1,
  );
  const includes = measure(
    () => {
      sink += content.toLowerCase().includes("disclosure") ? 1 : 0;
    },
    300,
    20,
  );
  rows.push([
    size.toLocaleString("en-US"),
    engine.toFixed(3),
    (engine / (size / 1000)).toFixed(4),
    (includes * 1000).toFixed(1),
    (engine / includes).toFixed(0),
  ]);
}
table(["chars", "engine median ms", "ms per 1k chars", "toLowerCase().includes µs", "ratio"], rows);

console.log("\nHTML");
const page = buildHtml(30_000);
const engineHtml = measure(
  () => {
    sink +=
      evaluate(compiled, { content: page, jurisdiction: "ALL", surface: "website" }).risk_score;
  },
  200,
  1,
);
const parseOnly = measure(
  () => {
    // linkedom types its result with DOM lib types Deno does not load.
    const { document } = parseHTML(page) as unknown as {
      document: { childNodes: ArrayLike<unknown> };
    };
    sink += document.childNodes.length;
  },
  200,
  1,
);
table(["chars", "engine median ms", "linkedom parse alone ms", "ratio"], [[
  "30,000",
  engineHtml.toFixed(3),
  parseOnly.toFixed(3),
  (engineHtml / parseOnly).toFixed(2),
]]);
if (sink === -1) console.log(sink);
