/**
 * A loopback TCP proxy the test controls, put between a client (the postgres
 * adapter) and a real server (PostgreSQL) to inject network faults:
 *
 * - `pause()`: a black hole. Connections are still accepted, but no byte is
 *   forwarded either way until `resume()` (what a dead peer or a dropped
 *   route looks like: nothing answers, nothing fails).
 * - `reset()`: every open connection is closed at once, both sides.
 * - `refuse()`: the port stops listening (connections are refused) and open
 *   connections are closed; `accept()` listens again on the same port.
 *
 * It listens on 127.0.0.1 only and connects only to a loopback target.
 */

/** A running proxy. */
export interface TcpProxy {
  /** The port the proxy listens on (127.0.0.1). */
  port: number;
  /** `url` (a postgres URL of the target) with the proxy as its host and port. */
  via(url: string): string;
  pause(): void;
  resume(): void;
  reset(): void;
  refuse(): void;
  accept(): void;
  /** Connections accepted so far. */
  accepted(): number;
  close(): Promise<void>;
}

interface Pair {
  client: Deno.Conn;
  upstream?: Deno.Conn;
  closed: boolean;
}

const LOOPBACK = /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/;

/** Starts a proxy to `target` (a loopback host and port). */
export function startTcpProxy(target: { hostname: string; port: number }): TcpProxy {
  if (!LOOPBACK.test(target.hostname)) throw new Error("the proxy's target must be loopback");
  const pairs = new Set<Pair>();
  const tasks = new Set<Promise<void>>();
  let paused = false;
  let resumed: PromiseWithResolvers<void> | undefined;
  let listener: Deno.Listener | undefined;
  let acceptedCount = 0;
  let port = 0;

  const track = (task: Promise<void>) => {
    tasks.add(task);
    task.finally(() => tasks.delete(task));
  };

  const gate = async () => {
    while (paused) {
      resumed ??= Promise.withResolvers<void>();
      await resumed.promise;
    }
  };

  const closePair = (pair: Pair) => {
    if (pair.closed) return;
    pair.closed = true;
    pairs.delete(pair);
    for (const conn of [pair.client, pair.upstream]) {
      try {
        conn?.close();
      } catch { /* already closed */ }
    }
  };

  const pump = async (from: Deno.Conn, to: Deno.Conn, pair: Pair) => {
    const buffer = new Uint8Array(64 * 1024);
    try {
      while (!pair.closed) {
        const n = await from.read(buffer);
        if (n === null) break;
        await gate();
        if (pair.closed) break;
        let offset = 0;
        while (offset < n) offset += await to.write(buffer.subarray(offset, n));
      }
    } catch { /* closed under it */ }
    closePair(pair);
  };

  const serve = async (client: Deno.Conn) => {
    const pair: Pair = { client, closed: false };
    pairs.add(pair);
    try {
      await gate();
      if (pair.closed) return;
      pair.upstream = await Deno.connect({ hostname: target.hostname, port: target.port });
      if (pair.closed) {
        pair.upstream.close();
        return;
      }
    } catch {
      closePair(pair);
      return;
    }
    await Promise.all([
      pump(client, pair.upstream, pair),
      pump(pair.upstream, client, pair),
    ]);
  };

  const listen = () => {
    const current = Deno.listen({ hostname: "127.0.0.1", port });
    listener = current;
    port = (current.addr as Deno.NetAddr).port;
    track((async () => {
      try {
        for await (const conn of current) {
          acceptedCount++;
          track(serve(conn));
        }
      } catch { /* listener closed */ }
    })());
  };

  const resetAll = () => {
    for (const pair of [...pairs]) closePair(pair);
  };

  listen();
  return {
    get port() {
      return port;
    },
    via(url: string) {
      const parsed = new URL(url);
      parsed.hostname = "127.0.0.1";
      parsed.port = String(port);
      return parsed.href;
    },
    pause() {
      paused = true;
    },
    resume() {
      paused = false;
      resumed?.resolve();
      resumed = undefined;
    },
    reset: resetAll,
    refuse() {
      listener?.close();
      listener = undefined;
      resetAll();
    },
    accept() {
      if (listener === undefined) listen();
    },
    accepted: () => acceptedCount,
    async close() {
      listener?.close();
      listener = undefined;
      paused = false;
      resumed?.resolve();
      resetAll();
      while (tasks.size > 0) await Promise.all([...tasks]);
    },
  };
}
