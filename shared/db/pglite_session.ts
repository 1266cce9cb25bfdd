/**
 * One PGlite, one Postgres session, several clients: the local server's
 * handlers and, over a loopback Postgres socket (`@electric-sql/pglite-socket`),
 * psql and the admin CLI.
 *
 * PGlite is a single backend. pglite-socket's own queue runs each protocol
 * message as it comes, so two connections interleave: one's Bind lands
 * between another's Parse and Execute, and a statement sent directly to
 * PGlite runs inside a socket client's open transaction (and is rolled back
 * with it). Here every client takes one session lock for a whole unit of
 * work: a socket client from its first message until a Sync or simple Query
 * leaves no transaction open (so a BEGIN holds it until COMMIT or ROLLBACK);
 * the handlers for one RPC, with a deadline, so a psql session left inside a
 * transaction makes requests fail fast (503/500) instead of hang.
 */
import { createServer, type Server, type Socket } from "node:net";
import type { PGlite } from "@electric-sql/pglite";
import { PGLiteSocketHandler } from "@electric-sql/pglite-socket";
import { E_TIMEOUT, Mutex, type MutexInterface, withTimeout } from "async-mutex";
import { DbError } from "./db.ts";

/** The session lock every client of one PGlite takes. */
export type SessionLock = MutexInterface;

/** A new session lock. */
export function createSessionLock(): SessionLock {
  return new Mutex();
}

/**
 * Runs `fn` holding the session lock; waiting longer than `timeoutMs` is a
 * DbError (SQLSTATE 55P03, lock_not_available).
 */
export async function withSession<T>(
  lock: SessionLock,
  timeoutMs: number,
  fn: () => Promise<T>,
): Promise<T> {
  try {
    return await withTimeout(lock, timeoutMs).runExclusive(fn);
  } catch (error) {
    if (error === E_TIMEOUT) {
      throw new DbError("The embedded database is busy with another session", "55P03");
    }
    throw error;
  }
}

const SYNC = 0x53; // 'S'
const QUERY = 0x51; // 'Q'
const TERMINATE = 0x58; // 'X'
const PROTOCOL_3 = 196608;

/** True when a frontend message ends a unit of work (the backend answers ReadyForQuery). */
function endsUnit(message: Uint8Array): boolean {
  const type = message[0];
  if (type === SYNC || type === QUERY || type === TERMINATE) return true;
  // StartupMessage: int32 length, then the protocol version; no type byte.
  if (type !== 0 || message.length < 8) return false;
  return new DataView(message.buffer, message.byteOffset, message.byteLength).getInt32(4) ===
    PROTOCOL_3;
}

/**
 * The queue pglite-socket's connection handlers call (its QueryQueueManager's
 * interface), scheduling whole units of work under the session lock.
 */
class SessionQueue {
  #owner: number | null = null;
  #release: (() => void) | null = null;
  readonly #gone = new Set<number>();

  constructor(readonly pg: PGlite, readonly lock: SessionLock) {}

  async enqueue(
    handlerId: number,
    message: Uint8Array,
    onData: (data: Uint8Array) => void,
  ): Promise<number> {
    if (this.#owner !== handlerId) {
      const release = await this.lock.acquire();
      if (this.#gone.has(handlerId)) {
        release();
        throw new Error("Connection closed");
      }
      this.#owner = handlerId;
      this.#release = release;
    }
    let bytes = 0;
    await this.pg.runExclusive(() =>
      this.pg.execProtocolRawStream(message, {
        onRawData: (data) => {
          bytes += data.length;
          onData(data);
        },
      })
    );
    if (endsUnit(message) && !this.pg.isInTransaction()) this.#end(handlerId);
    return bytes;
  }

  clearQueueForHandler(handlerId: number): void {
    this.#gone.add(handlerId);
  }

  async clearTransactionIfNeeded(handlerId: number): Promise<void> {
    if (this.#owner !== handlerId) return;
    try {
      if (this.pg.isInTransaction()) await this.pg.exec("rollback");
    } finally {
      this.#end(handlerId);
    }
  }

  #end(handlerId: number): void {
    if (this.#owner !== handlerId) return;
    const release = this.#release;
    this.#owner = null;
    this.#release = null;
    release?.();
  }
}

/** A listening Postgres socket over a PGlite. */
export interface PgliteSocket {
  host: string;
  port: number;
  /** `postgres://postgres@host:port/postgres` */
  url: string;
  /** Stops listening and closes every connection (rolling back an open transaction). */
  close(): Promise<void>;
}

/** Options of {@linkcode servePgliteSocket}. */
export interface PgliteSocketOptions {
  /** A loopback address; the socket has no password. */
  host: string;
  /** 0 picks a free port. */
  port: number;
  /** Concurrent connections; default 32. */
  maxConnections?: number;
}

/**
 * Serves a PGlite over a Postgres socket, every unit of work under `lock`.
 * Rejects with the listener's error (`EADDRINUSE` when the port is taken).
 */
export async function servePgliteSocket(
  pg: PGlite,
  lock: SessionLock,
  options: PgliteSocketOptions,
): Promise<PgliteSocket> {
  await pg.waitReady;
  const queue = new SessionQueue(pg, lock);
  const handlers = new Set<PGLiteSocketHandler>();
  const max = options.maxConnections ?? 32;
  const server: Server = createServer((socket: Socket) => {
    if (handlers.size >= max) {
      socket.end("Too many connections\n");
      return;
    }
    const handler = new PGLiteSocketHandler({
      // pglite-socket types its queue as its own class; ours keeps its interface.
      queryQueue: queue as unknown as ConstructorParameters<
        typeof PGLiteSocketHandler
      >[0]["queryQueue"],
      closeOnDetach: true,
    });
    handlers.add(handler);
    const forget = () => handlers.delete(handler);
    handler.addEventListener("close", forget);
    handler.addEventListener("error", forget);
    handler.attach(socket).catch(() => {
      forget();
      socket.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address();
  const port = typeof address === "object" && address !== null ? address.port : options.port;
  const host = options.host.includes(":") ? `[${options.host}]` : options.host;
  return {
    host: options.host,
    port,
    url: `postgres://postgres@${host}:${port}/postgres`,
    async close() {
      await Promise.all([...handlers].map((handler) => handler.detach(true)));
      handlers.clear();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
