/**
 * A loopback TCP server that answers each connection with whatever bytes a
 * test scripts, for responses no real HTTP server would send: dribbled
 * headers, oversized heads, broken framing. It listens on 127.0.0.1 and an
 * ephemeral port and counts the connections it accepts.
 */

/** A running raw server. */
export interface RawServer extends AsyncDisposable {
  port: number;
  /** Connections accepted so far. */
  accepted(): number;
  close(): Promise<void>;
}

/**
 * Starts the server; `respond` gets each connection and the request head
 * once it has been read (or the client has stopped sending), and may write,
 * wait, and return. The connection is closed when it returns or the server closes.
 */
export function startRawServer(
  respond: (conn: Deno.Conn, signal: AbortSignal, requestHead: string) => Promise<void>,
): RawServer {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const stop = new AbortController();
  const open = new Set<Deno.Conn>();
  const handling = new Set<Promise<void>>();
  let accepted = 0;
  const serve = async (conn: Deno.Conn) => {
    open.add(conn);
    try {
      const head = await readRequestHead(conn);
      await respond(conn, stop.signal, head);
    } catch {
      // the client went away, or the server is closing
    } finally {
      open.delete(conn);
      try {
        conn.close();
      } catch {
        // already closed
      }
    }
  };
  const accepting = (async () => {
    try {
      for await (const conn of listener) {
        accepted++;
        const task = serve(conn);
        handling.add(task);
        task.finally(() => handling.delete(task));
      }
    } catch {
      // listener closed
    }
  })();
  let closing: Promise<void> | undefined;
  const close = () => closing ??= shutDown();
  const shutDown = async () => {
    stop.abort();
    listener.close();
    for (const conn of open) {
      try {
        conn.close();
      } catch {
        // already closed
      }
    }
    await accepting;
    await Promise.all(handling);
  };
  return {
    port: (listener.addr as Deno.NetAddr).port,
    accepted: () => accepted,
    close,
    [Symbol.asyncDispose]: close,
  };
}

/**
 * A raw server as a whole site: `/robots.txt` answers 404 (allow all), every
 * other request goes to `respond`.
 */
export function startRawSite(
  respond: (conn: Deno.Conn, signal: AbortSignal, requestHead: string) => Promise<void>,
): RawServer {
  return startRawServer(async (conn, signal, requestHead) => {
    if (requestHead.startsWith("GET /robots.txt ")) {
      await writeText(conn, "HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n");
      return;
    }
    await respond(conn, signal, requestHead);
  });
}

/** Writes text (latin1 bytes as given). */
export async function writeText(conn: Deno.Conn, text: string): Promise<void> {
  const bytes = Uint8Array.from(text, (char) => char.charCodeAt(0) & 0xff);
  let written = 0;
  while (written < bytes.byteLength) written += await conn.write(bytes.subarray(written));
}

/** Resolves after `ms`, or at once when `signal` fires. */
export function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}

async function readRequestHead(conn: Deno.Conn): Promise<string> {
  const buffer = new Uint8Array(8192);
  let seen = "";
  while (!seen.includes("\r\n\r\n")) {
    const count = await conn.read(buffer);
    if (count === null) break;
    seen += new TextDecoder().decode(buffer.subarray(0, count));
  }
  return seen;
}
