/** Small statistics and printing helpers of the benchmarks. */

export function median(samples: readonly number[]): number {
  if (samples.length === 0) return NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** The p-th percentile (0..100) by nearest rank. */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank];
}

/** A Markdown table, right-aligned. */
export function table(header: string[], rows: string[][]): void {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) =>
    "| " + cells.map((c, i) => c.padStart(widths[i])).join(" | ") + " |";
  console.log(line(header));
  console.log("|" + widths.map((w) => "-".repeat(w + 1) + ":").join("|") + "|");
  for (const row of rows) console.log(line(row));
}

/** The machine a figure came from: CPUs, CPU model, load average, Deno. */
export async function machine(): Promise<string> {
  let model = "unknown CPU";
  try {
    // Deno reads /proc only with --allow-all; the benchmarks may run processes.
    const output = await new Deno.Command("cat", { args: ["/proc/cpuinfo"], stderr: "null" })
      .output();
    const cpuinfo = new TextDecoder().decode(output.stdout);
    model = cpuinfo.match(/^model name\s*:\s*(.+)$/m)?.[1] ?? model;
  } catch {
    // Not Linux: the model stays unknown.
  }
  const load = Deno.loadavg().map((n) => n.toFixed(2)).join(" ");
  return `${navigator.hardwareConcurrency} CPUs (${model}), load average ${load}, Deno ${Deno.version.deno}`;
}

/** Peak heap (used + external) and RSS, sampled every millisecond and at each `mark`. */
export class MemoryPeak {
  heap = 0;
  rss = 0;
  readonly #timer = setInterval(() => this.mark(), 1);
  mark(): void {
    const usage = Deno.memoryUsage();
    this.heap = Math.max(this.heap, usage.heapUsed + usage.external);
    this.rss = Math.max(this.rss, usage.rss);
  }
  stop(): void {
    clearInterval(this.#timer);
    this.mark();
  }
}

export const mib = (bytes: number): string => (bytes / 1024 / 1024).toFixed(2);
