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
 *
 * It also reads what clients send as PostgreSQL frontend messages
 * (`frontendMessages()`): the type byte of every message after the startup
 * packet, so a test can count round trips on the wire (each Sync `S` of the
 * extended protocol and each simple Query `Q` waits for the server's answer).
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
  /**
   * The type of every frontend message clients have sent so far (`P` Parse,
   * `B` Bind, `E` Execute, `S` Sync, `Q` Query, ...), in order of arrival;
   * startup packets (untyped) are not listed.
   */
  frontendMessages(): string[];
  close(): Promise<void>;
}

interface Pair {
  client: Deno.Conn;
  upstream?: Deno.Conn;
  closed: boolean;
}

const LOOPBACK = /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/;

/** The codes of the untyped requests that precede a startup packet. */
const SSL_REQUEST = 80877103;
const GSSENC_REQUEST = 80877104;

/**
 * Splits one connection's client-to-server bytes into frontend messages and
 * reports each one's type: untyped packets (length, code) until the startup
 * packet, then (type byte, length including itself, payload).
 */
function frontendReader(onMessage: (type: string) => void): (bytes: Uint8Array) => void {
  let pending = new Uint8Array(0);
  let startup = true;
  return (bytes) => {
    const joined = new Uint8Array(pending.length + bytes.length);
    joined.set(pending);
    joined.set(bytes, pending.length);
    const view = new DataView(joined.buffer);
    let at = 0;
    while (true) {
      if (startup) {
        if (joined.length - at < 8) break;
        const length = view.getInt32(at);
        const code = view.getInt32(at + 4);
        if (joined.length - at < length) break;
        at += length;
        if (code !== SSL_REQUEST && code !== GSSENC_REQUEST) startup = false;
      } else {
        if (joined.length - at < 5) break;
        const length = view.getInt32(at + 1);
        if (joined.length - at < 1 + length) break;
        onMessage(String.fromCharCode(joined[at]));
        at += 1 + length;
      }
    }
    pending = joined.slice(at);
  };
}

/** Starts a proxy to `target` (a loopback host and port). */
export function startTcpProxy(target: { hostname: string; port: number }): TcpProxy {
  if (!LOOPBACK.test(target.hostname)) throw new Error("the proxy's target must be loopback");
  const pairs = new Set<Pair>();
  const tasks = new Set<Promise<void>>();
  let paused = false;
  let resumed: PromiseWithResolvers<void> | undefined;
  let listener: Deno.Listener | undefined;
  let acceptedCount = 0;
  const messages: string[] = [];
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

  const pump = async (
    from: Deno.Conn,
    to: Deno.Conn,
    pair: Pair,
    observe?: (bytes: Uint8Array) => void,
  ) => {
    const buffer = new Uint8Array(64 * 1024);
    try {
      while (!pair.closed) {
        const n = await from.read(buffer);
        if (n === null) break;
        await gate();
        if (pair.closed) break;
        observe?.(buffer.subarray(0, n));
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
      pump(client, pair.upstream, pair, frontendReader((type) => messages.push(type))),
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
    frontendMessages: () => [...messages],
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
