/**
 * The local server's front door: Deno.serve gives a client as long as it
 * likes to send a request's headers (a connection that sends half a header
 * line is held open for good), and has no bound on connections. The guard
 * accepts connections itself, relays each to the HTTP server behind it on a
 * loopback port, and closes a connection that:
 *
 * - has not finished a request's headers within `headersTimeoutMs` of its
 *   first byte (or of opening);
 * - has moved no byte either way for `idleTimeoutMs` while no request is
 *   being handled (an idle keep-alive connection, or a body dribbled after
 *   its answer);
 * - would be one more than `maxConnections` (it is closed at once).
 *
 * How long a body may take is the handlers' body deadline (read_body.ts),
 * and how many bodies are read at once is their read gate (body_gate.ts).
 * The handler behind the guard learns the client's own address through
 * {@linkcode ConnectionTable.clientOf}.
 *
 * @module
 */

/** One client connection, as the handler behind the guard sees it. */
export interface GuardedConnection {
  /** The client's address (what Deno.serve would have reported). */
  remoteAddr: Deno.NetAddr;
  /** A request's headers arrived at the server: its header clock stops. */
  requestStarted(): void;
  /** The request's handler answered. */
  requestEnded(): void;
}

/** The guard's settings. */
export interface ConnectionGuardLimits {
  headersTimeoutMs: number;
  idleTimeoutMs: number;
  maxConnections: number;
}

/** Every connection of one or more guards in front of one server. */
export interface ConnectionTable {
  /** The connection whose relay reaches the server from `port` (the server's remote port). */
  clientOf(port: number): GuardedConnection | undefined;
  /** Connections open now. */
  readonly size: number;
}

/** A listening guard. */
export interface ConnectionGuard {
  addr: Deno.NetAddr;
  close(): void;
}

interface Relay extends GuardedConnection {
  client: Deno.TcpConn;
  server?: Deno.TcpConn;
  active: number;
  lastByteAt: number;
  /** When the headers now awaited must be complete; undefined while none is awaited. */
  headersBy: number | undefined;
  close(): void;
}

/** Shared state of the guards in front of one server, with its clock. */
export function createConnectionTable(
  limits: ConnectionGuardLimits,
): ConnectionTable & {
  limits: ConnectionGuardLimits;
  relays: Set<Relay>;
  byPort: Map<number, Relay>;
  sweep(now: number): void;
} {
  const relays = new Set<Relay>();
  const byPort = new Map<number, Relay>();
  return {
    limits,
    relays,
    byPort,
    clientOf: (port) => byPort.get(port),
    get size() {
      return relays.size;
    },
    sweep(now) {
      for (const relay of relays) {
        const lateHeaders = relay.headersBy !== undefined && now > relay.headersBy;
        const idle = relay.active === 0 && now - relay.lastByteAt > limits.idleTimeoutMs;
        if (lateHeaders || idle) relay.close();
      }
    },
  };
}

/**
 * Listens on `hostname:port` and relays every connection it keeps to the
 * server at `target` (loopback). Throws Deno.errors.AddrInUse like Deno.serve.
 */
export function guardConnections(
  table: ReturnType<typeof createConnectionTable>,
  listen: { hostname: string; port: number },
  target: { hostname: string; port: number },
): ConnectionGuard {
  const listener = Deno.listen({ hostname: listen.hostname, port: listen.port });
  const { limits } = table;
  const sweeper = setInterval(() => table.sweep(Date.now()), 250);
  Deno.unrefTimer(sweeper);

  const accept = async (client: Deno.TcpConn) => {
    if (table.relays.size >= limits.maxConnections) {
      client.close();
      return;
    }
    let closed = false;
    const relay: Relay = {
      client,
      remoteAddr: client.remoteAddr,
      active: 0,
      lastByteAt: Date.now(),
      headersBy: Date.now() + limits.headersTimeoutMs,
      requestStarted() {
        relay.active++;
        relay.headersBy = undefined;
      },
      requestEnded() {
        relay.active = Math.max(0, relay.active - 1);
        relay.lastByteAt = Date.now();
      },
      close() {
        if (closed) return;
        closed = true;
        table.relays.delete(relay);
        if (relay.server !== undefined) table.byPort.delete(relay.server.localAddr.port);
        for (const conn of [client, relay.server]) {
          try {
            conn?.close();
          } catch {
            // already closed
          }
        }
      },
    };
    table.relays.add(relay);
    try {
      relay.server = await Deno.connect({ hostname: target.hostname, port: target.port });
    } catch {
      relay.close();
      return;
    }
    if (closed) {
      relay.server.close();
      return;
    }
    // A relay forwards each read at once: with Nagle's algorithm a body the
    // relay writes in more than one piece waits for the peer's delayed ACK
    // (about 40 ms) before its last piece is sent, on both hops.
    try {
      client.setNoDelay(true);
      relay.server.setNoDelay(true);
    } catch {
      relay.close();
      return;
    }
    table.byPort.set(relay.server.localAddr.port, relay);
    const fromClient = () => {
      const now = Date.now();
      relay.lastByteAt = now;
      // Bytes while no request is being handled begin the next request's headers.
      if (relay.active === 0 && relay.headersBy === undefined) {
        relay.headersBy = now + limits.headersTimeoutMs;
      }
    };
    const fromServer = () => {
      relay.lastByteAt = Date.now();
    };
    await Promise.all([
      pump(client, relay.server, fromClient),
      pump(relay.server, client, fromServer),
    ]);
    relay.close();
  };

  (async () => {
    try {
      for await (const conn of listener) accept(conn).catch(() => {});
    } catch {
      // the listener was closed
    }
  })();

  return {
    addr: listener.addr as Deno.NetAddr,
    close() {
      clearInterval(sweeper);
      try {
        listener.close();
      } catch {
        // already closed
      }
      for (const relay of table.relays) relay.close();
    },
  };
}

/**
 * Copies `from` to `to` until `from` ends (then half-closes `to`) or either
 * fails (then the caller closes both).
 */
async function pump(from: Deno.TcpConn, to: Deno.TcpConn, onBytes: () => void): Promise<void> {
  const buffer = new Uint8Array(16 * 1024);
  try {
    while (true) {
      const n = await from.read(buffer);
      if (n === null) break;
      onBytes();
      let written = 0;
      while (written < n) written += await to.write(buffer.subarray(written, n));
    }
    await to.closeWrite();
  } catch {
    // a reset or a close: the relay closes both sides
    try {
      to.close();
    } catch {
      // already closed
    }
    try {
      from.close();
    } catch {
      // already closed
    }
  }
}
