import { ScanError } from "./scan_error.ts";

const MAX_DELAY = 2 ** 31 - 1;

/** Options of {@linkcode Deadline}. */
export interface DeadlineOptions {
  /** What the signal aborts with when this deadline's own time is up. */
  reason: ScanError;
  /** A deadline or signal that ends this one early, with its own reason. */
  parent?: Deadline | AbortSignal;
}

/**
 * A time limit with an AbortSignal that fires when it passes or when its
 * parent fires, whichever is first. The signal's reason is always a
 * {@linkcode ScanError}, so whoever sees it aborted can throw `signal.reason`.
 * Deadlines nest: the scan budget is the parent of each request's timeout,
 * which is the parent of its connect timeout. Dispose of it (or `using` it)
 * to clear its timer.
 *
 * @example
 * ```ts
 * using budget = new Deadline(20_000, { reason: new ScanError("unreachable", "scan_budget", "The scan ran out of time") });
 * using request = new Deadline(10_000, { reason: timeoutError, parent: budget });
 * await work(request.signal);
 * ```
 */
export class Deadline implements Disposable {
  readonly signal: AbortSignal;
  readonly #controller = new AbortController();
  readonly #expiresAt: number;
  readonly #parent: Deadline | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #unlink: (() => void) | undefined;

  constructor(ms: number, options: DeadlineOptions) {
    this.signal = this.#controller.signal;
    this.#expiresAt = performance.now() + ms;
    const parent = options.parent;
    this.#parent = parent instanceof Deadline ? parent : undefined;
    const parentSignal = parent instanceof Deadline ? parent.signal : parent;
    if (parentSignal?.aborted) {
      this.#controller.abort(asAbortReason(parentSignal.reason));
      return;
    }
    if (parentSignal !== undefined) {
      const onAbort = () => this.#abort(asAbortReason(parentSignal.reason));
      parentSignal.addEventListener("abort", onAbort, { once: true });
      this.#unlink = () => parentSignal.removeEventListener("abort", onAbort);
    }
    // setTimeout fires at once for delays past 2^31 - 1 ms; clamp rather than abort early.
    this.#timer = setTimeout(
      () => this.#abort(options.reason),
      Math.min(Math.max(0, ms), MAX_DELAY),
    );
  }

  /** Milliseconds left before this deadline or an ancestor passes; 0 once aborted. */
  remainingMs(): number {
    if (this.signal.aborted) return 0;
    const own = Math.max(0, this.#expiresAt - performance.now());
    return this.#parent === undefined ? own : Math.min(own, this.#parent.remainingMs());
  }

  /** Throws the abort reason if this deadline has passed. */
  throwIfExpired(): void {
    if (this.signal.aborted) throw this.signal.reason;
  }

  /** Clears the timer and detaches from the parent; the signal stays as it is. */
  dispose(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#unlink?.();
    this.#unlink = undefined;
  }

  [Symbol.dispose](): void {
    this.dispose();
  }

  #abort(reason: ScanError): void {
    this.dispose();
    this.#controller.abort(reason);
  }
}

/** A foreign abort (the caller's own signal) becomes a ScanError too. */
function asAbortReason(reason: unknown): ScanError {
  return reason instanceof ScanError
    ? reason
    : new ScanError("unreachable", "aborted", "The scan was cancelled");
}
