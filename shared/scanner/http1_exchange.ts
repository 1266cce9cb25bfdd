import { BufferedReader, malformed } from "./buffered_reader.ts";
import type { PinnedConnection } from "./pinned_connection.ts";
import { ScanError } from "./scan_error.ts";

/** What the scanner sends: always GET, one request per connection. */
export interface Http1Request {
  url: URL;
  userAgent: string;
  accept: string;
}

/** A response whose head has been read and whose body has not. */
export interface Http1Response {
  status: number;
  headers: Headers;
  /**
   * Reads the body, decoded from gzip or deflate if so encoded, keeping at
   * most `maxBytes` bytes: past that, reading stops, the connection is
   * closed and `truncated` is true.
   */
  readBody(maxBytes: number): Promise<{ bytes: Uint8Array; truncated: boolean }>;
}

const MAX_CHUNK_LINE_BYTES = 1024;
const MAX_TRAILER_BYTES = 8 * 1024;
const READ_SIZE = 64 * 1024;
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const latin1 = new TextDecoder("latin1");

/**
 * Sends a GET over `conn` and reads the response head (interim 1xx
 * responses skipped). The request asks for no compression and no keep-alive:
 * `Accept-Encoding: identity`, `Connection: close`.
 *
 * @throws {ScanError} `unreachable`: `protocol` for a malformed response,
 *   `header_too_large` past `maxHeaderBytes`, `content_encoding` for an
 *   encoding other than gzip or deflate; `connection` when the socket fails.
 */
export async function exchange(
  conn: PinnedConnection,
  request: Http1Request,
  options: { maxHeaderBytes: number },
): Promise<Http1Response> {
  const head = [
    `GET ${request.url.pathname}${request.url.search} HTTP/1.1`,
    `Host: ${request.url.host}`,
    `User-Agent: ${request.userAgent}`,
    `Accept: ${request.accept}`,
    "Accept-Encoding: identity",
    "Connection: close",
    "",
    "",
  ].join("\r\n");
  await conn.write(new TextEncoder().encode(head));
  const reader = new BufferedReader(conn);
  while (true) {
    const bytes = await reader.readHead(options.maxHeaderBytes);
    if (bytes === null) throw malformed();
    const { status, headers } = parseHead(latin1.decode(bytes));
    if (status === 101) throw malformed();
    if (status < 200) continue;
    const framing = bodyFraming(status, headers);
    const encoding = contentEncoding(headers);
    return {
      status,
      headers,
      readBody: (maxBytes) => readBody(reader, conn, framing, encoding, maxBytes),
    };
  }
}

function parseHead(text: string): { status: number; headers: Headers } {
  const lines = text.split(/\r?\n/).filter((line) => line !== "");
  const statusLine = /^HTTP\/1\.[01] ([1-9]\d\d)(?: .*)?$/.exec(lines[0] ?? "");
  if (statusLine === null) throw malformed();
  const headers = new Headers();
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(":");
    const name = line.slice(0, colon);
    if (colon < 1 || !TOKEN.test(name)) throw malformed();
    try {
      headers.append(name, line.slice(colon + 1).trim());
    } catch {
      throw malformed();
    }
  }
  return { status: Number(statusLine[1]), headers };
}

type Framing = { kind: "none" } | { kind: "length"; length: number } | { kind: "chunked" } | {
  kind: "close";
};

/** RFC 9112 section 6.3: how the body's end is known. */
function bodyFraming(status: number, headers: Headers): Framing {
  if (status === 204 || status === 304) return { kind: "none" };
  const transfer = headers.get("transfer-encoding");
  if (transfer !== null) {
    if (transfer.trim().toLowerCase() !== "chunked") {
      throw new ScanError(
        "unreachable",
        "transfer_encoding",
        "The target answered with an unsupported transfer encoding",
      );
    }
    return { kind: "chunked" };
  }
  const length = headers.get("content-length");
  if (length === null) return { kind: "close" };
  const values = new Set(length.split(",").map((part) => part.trim()));
  const [value] = values;
  if (values.size !== 1 || !/^\d{1,15}$/.test(value)) throw malformed();
  return { kind: "length", length: Number(value) };
}

function contentEncoding(headers: Headers): "identity" | "gzip" | "deflate" {
  const value = (headers.get("content-encoding") ?? "").trim().toLowerCase();
  if (value === "" || value === "identity") return "identity";
  if (value === "gzip" || value === "x-gzip") return "gzip";
  if (value === "deflate") return "deflate";
  throw new ScanError(
    "unreachable",
    "content_encoding",
    "The target answered with an unsupported content encoding",
  );
}

async function readBody(
  reader: BufferedReader,
  conn: PinnedConnection,
  framing: Framing,
  encoding: "identity" | "gzip" | "deflate",
  maxBytes: number,
): Promise<{ bytes: Uint8Array; truncated: boolean }> {
  const raw = framedChunks(reader, framing);
  const chunks = encoding === "identity" ? raw : ReadableStream.from(raw).pipeThrough(
    new DecompressionStream(encoding) as TransformStream<Uint8Array, Uint8Array>,
  );
  const kept: Uint8Array[] = [];
  let size = 0;
  let truncated = false;
  try {
    for await (const chunk of chunks) {
      if (size + chunk.byteLength > maxBytes) {
        kept.push(chunk.subarray(0, maxBytes - size));
        size = maxBytes;
        truncated = true;
        // Close first: ending the iteration waits for a pending socket read.
        conn.close();
        break;
      }
      kept.push(chunk);
      size += chunk.byteLength;
    }
  } catch (error) {
    if (error instanceof ScanError) throw error;
    throw new ScanError("unreachable", "connection", "The response from the target broke off", {
      cause: error,
    });
  } finally {
    conn.close();
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of kept) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return { bytes, truncated };
}

async function* framedChunks(
  reader: BufferedReader,
  framing: Framing,
): AsyncGenerator<Uint8Array> {
  if (framing.kind === "none") return;
  if (framing.kind === "close") {
    for (let chunk; (chunk = await reader.readSome(READ_SIZE)) !== null;) yield chunk;
    return;
  }
  if (framing.kind === "length") {
    yield* exactly(reader, framing.length);
    return;
  }
  while (true) {
    const line = latin1.decode(await reader.readLine(MAX_CHUNK_LINE_BYTES));
    const size = /^([0-9a-fA-F]{1,8})[ \t]*(?:;.*)?$/.exec(line);
    if (size === null) throw malformed();
    const length = parseInt(size[1], 16);
    if (length === 0) break;
    yield* exactly(reader, length);
    if ((await reader.readLine(2)).byteLength !== 0) throw malformed();
  }
  let trailers = 0;
  while (true) {
    const line = await reader.readLine(MAX_TRAILER_BYTES);
    trailers += line.byteLength;
    if (line.byteLength === 0) return;
    if (trailers > MAX_TRAILER_BYTES) throw malformed();
  }
}

async function* exactly(reader: BufferedReader, length: number): AsyncGenerator<Uint8Array> {
  let left = length;
  while (left > 0) {
    const chunk = await reader.readSome(Math.min(left, READ_SIZE));
    if (chunk === null) throw malformed();
    left -= chunk.byteLength;
    yield chunk;
  }
}
