import { HttpError } from "./http_error.ts";

/** Options of {@linkcode readJsonBody}. */
export interface ReadJsonBodyOptions {
  /** Largest accepted body in bytes; the stream is abandoned past it. */
  maxBytes: number;
}

/**
 * Reads a JSON request body without ever holding more than `maxBytes` of it.
 *
 * Refuses (HttpError 400 `invalid_request`) a content type other than
 * `application/json`, a body over the cap (by Content-Length or while
 * streaming), bytes that are not UTF-8, and text that is not JSON.
 */
export async function readJsonBody(req: Request, options: ReadJsonBodyOptions): Promise<unknown> {
  const type = (req.headers.get("content-type") ?? "").split(";")[0].trim().toLowerCase();
  if (type !== "application/json") {
    throw new HttpError(400, "invalid_request", "Content-Type must be application/json");
  }
  const declared = req.headers.get("content-length");
  if (declared !== null && Number(declared) > options.maxBytes) {
    throw tooLarge(options.maxBytes);
  }
  const bytes = await readCapped(req, options.maxBytes);
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

async function readCapped(req: Request, maxBytes: number): Promise<Uint8Array> {
  let bytes: Uint8Array | null;
  try {
    bytes = await readStreamCapped(req.body, maxBytes);
  } catch {
    throw new HttpError(400, "invalid_request", "Request body could not be read");
  }
  if (bytes === null) throw tooLarge(maxBytes);
  return bytes;
}

/**
 * Reads a byte stream to its end without ever holding more than `maxBytes`
 * of it: null (the stream cancelled) once it grows past that. A null stream
 * is empty; a failing stream rejects with its error.
 */
export async function readStreamCapped(
  stream: ReadableStream<Uint8Array> | null,
  maxBytes: number,
): Promise<Uint8Array | null> {
  if (stream === null) return new Uint8Array();
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  while (true) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => {});
      return null;
    }
    chunks.push(value);
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
