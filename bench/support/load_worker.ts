/**
 * The load generator of bench/http.ts, in a Web Worker so that it runs on
 * its own thread, beside the servers under test rather than in their event
 * loop. It posts as many requests as it can for a while, `concurrency` at a
 * time, each on the next of its identities (an API key, a webhook credential,
 * a client IP) that has room left in its per-minute budget, and reports the
 * latencies and statuses.
 *
 * @module
 */

/** One run of load. */
export interface LoadPlan {
  url: string;
  concurrency: number;
  durationMs: number;
  /** Request bodies, used in turn; `{{n}}` is replaced by a number unique in the worker. */
  bodies: string[];
  /** Header sets, one per identity; each request takes the next with room in its budget. */
  identities: Record<string, string>[];
  /**
   * Requests each identity may make in any 60 seconds (below the service's
   * limit); 0 for a baseline, which has no limit and spends no budget.
   */
  perMinute: number;
}

/** What a run measured. */
export interface LoadResult {
  count: number;
  elapsedMs: number;
  latenciesMs: number[];
  statuses: Record<string, number>;
  /**
   * The most requests one identity of this run had made in the 60 seconds
   * before one of its requests (counting the worker's earlier runs).
   */
  busiestIdentityPerMinute: number;
  /** True when every identity's budget was used up and the run stopped early. */
  exhausted: boolean;
}

// Per identity, the send times of its requests within the last minute, for
// the whole life of the worker (runs follow each other within a minute).
const sent = new Map<string, number[]>();
let unique = 0;
let busiest = 0;

function takeIdentity(plan: LoadPlan, cursor: { next: number }): Record<string, string> | null {
  if (plan.perMinute === 0) {
    cursor.next = (cursor.next + 1) % plan.identities.length;
    return plan.identities[cursor.next];
  }
  const now = performance.now();
  for (let tried = 0; tried < plan.identities.length; tried += 1) {
    const index = cursor.next;
    cursor.next = (cursor.next + 1) % plan.identities.length;
    const identity = plan.identities[index];
    const key = JSON.stringify(identity);
    const times = sent.get(key) ?? [];
    while (times.length > 0 && now - times[0] > 60_000) times.shift();
    if (times.length < plan.perMinute) {
      times.push(now);
      sent.set(key, times);
      busiest = Math.max(busiest, times.length);
      return identity;
    }
  }
  return null;
}

async function run(plan: LoadPlan): Promise<LoadResult> {
  busiest = 0;
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  const cursor = { next: 0 };
  let bodyIndex = 0;
  let exhausted = false;
  const start = performance.now();
  const end = start + plan.durationMs;
  async function loop(): Promise<void> {
    while (performance.now() < end && !exhausted) {
      const identity = takeIdentity(plan, cursor);
      if (identity === null) {
        exhausted = true;
        return;
      }
      const template = plan.bodies[bodyIndex++ % plan.bodies.length];
      const body = template.includes("{{n}}")
        ? template.replaceAll("{{n}}", String(unique++))
        : template;
      const sentAt = performance.now();
      let status: string;
      try {
        const response = await fetch(plan.url, {
          method: "POST",
          headers: { "content-type": "application/json", ...identity },
          body,
        });
        await response.arrayBuffer();
        status = String(response.status);
      } catch {
        status = "network error";
      }
      latencies.push(performance.now() - sentAt);
      statuses[status] = (statuses[status] ?? 0) + 1;
    }
  }
  await Promise.all(Array.from({ length: plan.concurrency }, loop));
  return {
    count: latencies.length,
    elapsedMs: performance.now() - start,
    latenciesMs: latencies,
    statuses,
    busiestIdentityPerMinute: busiest,
    exhausted,
  };
}

// A worker's global scope; Deno types `self` as a window.
const scope = self as unknown as {
  onmessage: (event: MessageEvent<LoadPlan>) => void;
  postMessage(message: LoadResult): void;
};
scope.onmessage = async (event) => {
  scope.postMessage(await run(event.data));
};
