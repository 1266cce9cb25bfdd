/**
 * Group commit at the application level: calls of one RPC that arrive while
 * earlier ones are still in flight are sent together, as one call of a batch
 * RPC (one round trip, one transaction, one commit), instead of queueing for a
 * pooled connection one by one.
 *
 * - A call that finds fewer than `maxInFlight` sends in flight is sent at
 *   once, alone, with `single`: at low concurrency nothing waits and nothing
 *   changes.
 * - Otherwise it waits for the next free send, which takes every waiting call
 *   (at most `maxBatch`) with `many`. The batch size follows the load: as many
 *   calls as arrived during the sends before.
 * - `many` answers each call by its place: a value, or an Error for that call
 *   alone. A `many` that fails fails every call of its batch with its error
 *   (fail closed: none of them is answered as done).
 *
 * @module
 */

/** How a batcher sends one call, and several. */
export interface CallBatcherOptions<Args, Result> {
  /** Sends one call alone. */
  single(args: Args): Promise<Result>;
  /** Sends several calls at once; the answers in the calls' order, an Error for a call that failed. */
  many(calls: Args[]): Promise<Array<Result | Error>>;
  /**
   * Sends in flight at once; default 1: on a busy machine one send at a time
   * makes the largest batches, and the least work per call on both sides.
   */
  maxInFlight?: number;
  /** Calls in one send at most; default 64. */
  maxBatch?: number;
}

/** A batcher: `call` answers like `single` would. */
export interface CallBatcher<Args, Result> {
  call(args: Args): Promise<Result>;
}

interface Waiting<Args, Result> {
  args: Args;
  resolve(value: Result): void;
  reject(error: unknown): void;
}

/** A batcher over `single` and `many`. */
export function createCallBatcher<Args, Result>(
  options: CallBatcherOptions<Args, Result>,
): CallBatcher<Args, Result> {
  const maxInFlight = options.maxInFlight ?? 1;
  const maxBatch = options.maxBatch ?? 64;
  const waiting: Waiting<Args, Result>[] = [];
  let inFlight = 0;

  const send = async (batch: Waiting<Args, Result>[]) => {
    try {
      if (batch.length === 1) {
        batch[0].resolve(await options.single(batch[0].args));
        return;
      }
      const answers = await options.many(batch.map((each) => each.args));
      if (answers.length !== batch.length) {
        throw new Error(`a batch of ${batch.length} calls got ${answers.length} answers`);
      }
      batch.forEach((each, i) => {
        const answer = answers[i];
        if (answer instanceof Error) each.reject(answer);
        else each.resolve(answer);
      });
    } catch (error) {
      for (const each of batch) each.reject(error);
    }
  };

  const pump = () => {
    while (inFlight < maxInFlight && waiting.length > 0) {
      const batch = waiting.splice(0, maxBatch);
      inFlight += 1;
      send(batch).finally(() => {
        inFlight -= 1;
        pump();
      });
    }
  };

  return {
    call(args) {
      const { promise, resolve, reject } = Promise.withResolvers<Result>();
      waiting.push({ args, resolve, reject });
      pump();
      return promise;
    },
  };
}
