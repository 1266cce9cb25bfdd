import type { BodyReadGate } from "./read_body.ts";

/**
 * A BodyReadGate that lets `max` body reads run at once; the others wait in
 * arrival order, each until its own signal aborts (its body deadline), when
 * it leaves the queue.
 *
 * @example
 * ```ts
 * const gate = createBodyReadGate(64);
 * const release = await gate.acquire(AbortSignal.timeout(10_000));
 * try { ...read... } finally { release(); }
 * ```
 */
export function createBodyReadGate(max: number): BodyReadGate & { readonly reading: number } {
  if (!Number.isSafeInteger(max) || max < 1) {
    throw new RangeError(`body read gate needs a positive integer, got ${max}`);
  }
  let reading = 0;
  const waiting: Array<() => void> = [];

  const releaser = () => {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = waiting.shift();
      if (next === undefined) reading--;
      else next(); // the slot passes straight to the next waiter
    };
  };

  return {
    get reading() {
      return reading;
    },
    acquire(signal) {
      if (signal.aborted) return Promise.reject(signal.reason);
      if (reading < max) {
        reading++;
        return Promise.resolve(releaser());
      }
      return new Promise((resolve, reject) => {
        const admit = () => {
          signal.removeEventListener("abort", abandon);
          resolve(releaser());
        };
        const abandon = () => {
          const index = waiting.indexOf(admit);
          if (index !== -1) waiting.splice(index, 1);
          reject(signal.reason);
        };
        waiting.push(admit);
        signal.addEventListener("abort", abandon, { once: true });
      });
    },
  };
}
