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
  if (req.body === null) return new Uint8Array();
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (true) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes) {
        await reader.cancel().catch(() => {});
        throw tooLarge(maxBytes);
      }
      chunks.push(value);
    }
  } catch (error) {
    if (error instanceof HttpError) throw error;
    throw new HttpError(400, "invalid_request", "Request body could not be read");
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
