import { HttpError } from "./http_error.ts";

/** How long a client may take to send a request body, by default: 10 seconds. */
export const DEFAULT_BODY_DEADLINE_MS = 10_000;

/**
 * Bounds how many request bodies are read at once (the local server gives
 * every operation one, shared). A body waits for its turn, within its own
 * deadline, with its bytes left in the socket.
 */
export interface BodyReadGate {
  /** Resolves with a release function once a read may start; rejects when `signal` aborts first. */
  acquire(signal: AbortSignal): Promise<() => void>;
}

/** Options of {@linkcode readJsonBody}. */
export interface ReadJsonBodyOptions {
  /** Largest accepted body in bytes; the stream is abandoned past it. */
  maxBytes: number;
  /**
   * Milliseconds the whole body may take to arrive, waiting for the gate
   * included; past it the stream is abandoned. Default 10,000.
   */
  deadlineMs?: number;
  /** Bounds concurrent body reads; none by default. */
  gate?: BodyReadGate;
}

/**
 * Thrown when the gate had no room for the body before its deadline: the
 * server is busy, not the client wrong. The endpoint answers its 5xx.
 */
export class BodyReadersBusyError extends Error {
  constructor() {
    super("Too many request bodies are being read at once");
    this.name = "BodyReadersBusyError";
  }
}

/**
 * Reads a JSON request body without ever holding more than `maxBytes` of it,
 * and without waiting for it longer than `deadlineMs`.
 *
 * Refuses a `Content-Encoding` other than `identity` (HttpError 415
 * `invalid_request`: bodies are never decompressed), and with HttpError 400
 * `invalid_request` a content type other than `application/json`, a body over
 * the cap (by Content-Length or while streaming), a body that does not arrive
 * within the deadline, bytes that are not UTF-8, and text that is not JSON.
 */
export async function readJsonBody(req: Request, options: ReadJsonBodyOptions): Promise<unknown> {
  assertIdentityEncoding(req);
  const type = (req.headers.get("content-type") ?? "").split(";")[0].trim().toLowerCase();
  if (type !== "application/json") {
    throw new HttpError(400, "invalid_request", "Content-Type must be application/json");
  }
  const declared = req.headers.get("content-length");
  if (declared !== null && Number(declared) > options.maxBytes) {
    throw tooLarge(options.maxBytes);
  }
  const bytes = await readCapped(req, options);
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new HttpError(400, "invalid_request", "Request body is not valid UTF-8");
  }
  if (text.trim() === "") throw new HttpError(400, "invalid_request", "Request body is empty");
  try {
    return JSON.parse(text);
  } catch {
    throw new HttpError(400, "invalid_request", "Request body is not valid JSON");
  }
}

/**
 * Refuses (HttpError 415) a `Content-Encoding` other than `identity`: a
 * compressed body would have to be inflated past its cap to be checked.
 */
export function assertIdentityEncoding(req: Request): void {
  const encoding = req.headers.get("content-encoding");
  if (encoding === null) return;
  const codings = encoding.split(",").map((part) => part.trim().toLowerCase()).filter((part) =>
    part !== ""
  );
  if (codings.every((coding) => coding === "identity")) return;
  throw new HttpError(
    415,
    "invalid_request",
    "Content-Encoding is not supported: send the JSON body uncompressed",
  );
}

async function readCapped(req: Request, options: ReadJsonBodyOptions): Promise<Uint8Array> {
  const deadlineMs = options.deadlineMs ?? DEFAULT_BODY_DEADLINE_MS;
  const deadline = AbortSignal.timeout(deadlineMs);
  let release: (() => void) | undefined;
  if (options.gate !== undefined && req.body !== null) {
    try {
      release = await options.gate.acquire(deadline);
    } catch {
      await req.body.cancel().catch(() => {});
      throw new BodyReadersBusyError();
    }
  }
  let bytes: Uint8Array | null;
  try {
    bytes = await readStreamCapped(req.body, options.maxBytes, deadline);
  } catch {
    if (deadline.aborted) {
      throw new HttpError(
        400,
        "invalid_request",
        `Request body was not received within ${Math.ceil(deadlineMs / 1000)} s`,
      );
    }
    throw new HttpError(400, "invalid_request", "Request body could not be read");
  } finally {
    release?.();
  }
  if (bytes === null) throw tooLarge(options.maxBytes);
  return bytes;
}

/**
 * Reads a byte stream to its end without ever holding more than `maxBytes`
 * of it: null (the stream cancelled) once it grows past that. A null stream
 * is empty; a failing stream rejects with its error, and so does `signal`
 * when it aborts first (the stream is cancelled).
 */
export async function readStreamCapped(
  stream: ReadableStream<Uint8Array> | null,
  maxBytes: number,
  signal?: AbortSignal,
): Promise<Uint8Array | null> {
  if (stream === null) return new Uint8Array();
  signal?.throwIfAborted();
  const reader = stream.getReader();
  const onAbort = () => {
    reader.cancel(signal?.reason).catch(() => {});
  };
  signal?.addEventListener("abort", onAbort, { once: true });
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (true) {
      const { done, value } = await reader.read();
      // A cancelled reader reports done; the deadline, not the client, ended it.
      signal?.throwIfAborted();
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes) {
        await reader.cancel().catch(() => {});
        return null;
      }
      chunks.push(value);
    }
  } finally {
    signal?.removeEventListener("abort", onAbort);
  }
  const out = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}

function tooLarge(maxBytes: number): HttpError {
  return new HttpError(400, "invalid_request", `Request body exceeds ${maxBytes} bytes`);
}
