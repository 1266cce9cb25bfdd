import { Deadline } from "./deadline.ts";
import { ScanError } from "./scan_error.ts";

/**
 * Opens a TCP connection to one IP address. The scanner only ever passes an
 * address its policy has checked; a connector never sees a host name, so
 * nothing between the check and the connection can resolve the name again.
 * Tests inject one that records what it was asked for.
 */
export type Connector = (
  target: { address: string; port: number },
  options: { signal: AbortSignal },
) => Promise<Deno.TcpConn>;

/** The real connector: `Deno.connect` to the IP literal, no name resolution involved. */
export function systemConnector(
  target: { address: string; port: number },
  options: { signal: AbortSignal },
): Promise<Deno.TcpConn> {
  return Deno.connect({
    hostname: target.address,
    port: target.port,
    transport: "tcp",
    signal: options.signal,
  });
}

/** Options of {@linkcode openPinnedConnection}. */
export interface PinnedConnectionOptions {
  /** Checked addresses, tried in order until one accepts. */
  addresses: readonly string[];
  port: number;
  /** For https: the URL's host name, for SNI and certificate verification. */
  tlsHostname?: string;
  /** Extra PEM root certificates (tests); the system roots are always used. */
  caCerts?: string[];
  connect: Connector;
  connectTimeoutMs: number;
  /** The request's deadline: when it fires, the connection is closed. */
  deadline: Deadline;
}

/** A connection that closes itself when its request's deadline fires. */
export interface PinnedConnection {
  read(buffer: Uint8Array): Promise<number | null>;
  /** Writes all of `bytes`. */
  write(bytes: Uint8Array): Promise<void>;
  /** Closes the connection; safe to call more than once. */
  close(): void;
}

const CONNECT_FAILED = "The target could not be reached";

/**
 * Connects to exactly one of the checked addresses (never a name) and, for
 * https, runs the TLS handshake over that socket with `Deno.startTls`, which
 * sends the original host name as SNI and verifies the certificate against
 * it. This is the DNS pinning: the address connected to is the address that
 * was checked.
 *
 * @throws {ScanError} `unreachable` (502): `connect`, `connect_timeout` or
 *   `tls`; or the deadline's own reason once it has fired.
 */
export async function openPinnedConnection(
  options: PinnedConnectionOptions,
): Promise<PinnedConnection> {
  const tcp = await connectToFirst(options);
  let conn: Deno.Conn = tcp;
  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    options.deadline.signal.removeEventListener("abort", close);
    try {
      conn.close();
    } catch {
      // already closed by the peer or by a failed handshake
    }
  };
  options.deadline.signal.addEventListener("abort", close, { once: true });
  if (options.tlsHostname !== undefined) {
    try {
      const tls = await Deno.startTls(tcp, {
        hostname: options.tlsHostname,
        caCerts: options.caCerts,
        alpnProtocols: ["http/1.1"],
      });
      conn = tls;
      await tls.handshake();
    } catch (error) {
      close();
      options.deadline.throwIfExpired();
      throw new ScanError("unreachable", "tls", "The TLS handshake with the target failed", {
        cause: error,
      });
    }
  }
  return {
    read: (buffer) => conn.read(buffer),
    write: async (bytes) => {
      let written = 0;
      while (written < bytes.byteLength) written += await conn.write(bytes.subarray(written));
    },
    close,
  };
}

async function connectToFirst(options: PinnedConnectionOptions): Promise<Deno.TcpConn> {
  let timedOut = false;
  let lastError: unknown;
  for (const address of options.addresses) {
    options.deadline.throwIfExpired();
    using attempt = new Deadline(options.connectTimeoutMs, {
      reason: new ScanError("unreachable", "connect_timeout", CONNECT_FAILED),
      parent: options.deadline,
    });
    try {
      return await untilAborted(
        options.connect({ address, port: options.port }, { signal: attempt.signal }),
        attempt.signal,
      );
    } catch (error) {
      options.deadline.throwIfExpired();
      timedOut ||= attempt.signal.aborted;
      lastError = error;
    }
  }
  throw new ScanError("unreachable", timedOut ? "connect_timeout" : "connect", CONNECT_FAILED, {
    cause: lastError,
  });
}

/**
 * Settles with `connecting`, or rejects with the signal's reason as soon as
 * it fires; a connection that arrives after that is closed. Guards against a
 * connector that ignores its signal.
 */
function untilAborted(
  connecting: Promise<Deno.TcpConn>,
  signal: AbortSignal,
): Promise<Deno.TcpConn> {
  if (signal.aborted) {
    connecting.then((late) => late.close(), () => {});
    return Promise.reject(signal.reason);
  }
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      connecting.then((late) => late.close(), () => {});
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
    connecting.then(
      (conn) => {
        signal.removeEventListener("abort", onAbort);
        resolve(conn);
      },
      (error) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}
