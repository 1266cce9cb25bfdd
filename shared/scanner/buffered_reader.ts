import { ScanError } from "./scan_error.ts";

/** Anything with Deno.Conn's `read`. */
export interface ByteSource {
  read(buffer: Uint8Array): Promise<number | null>;
}

const LF = 10;
const CR = 13;
const READ_SIZE = 16 * 1024;

/**
 * Reads an HTTP/1.1 response off a connection: a head up to its blank line,
 * single lines (chunk sizes, trailers), then body bytes as they come. Every
 * read is bounded by the caller's byte limit, so a peer can make it hold at
 * most that much.
 */
export class BufferedReader {
  readonly #source: ByteSource;
  #buffered = new Uint8Array(0);

  constructor(source: ByteSource) {
    this.#source = source;
  }

  /**
   * The bytes before the first empty line (CRLF CRLF, or bare LF LF), with
   * that line consumed; null when the peer closed before sending anything.
   */
  async readHead(maxBytes: number): Promise<Uint8Array | null> {
    let searchFrom = 0;
    while (true) {
      const end = findBlankLine(this.#buffered, searchFrom);
      if (end !== undefined && end.contentEnd <= maxBytes) {
        return this.#take(end.contentEnd, end.next);
      }
      if (end !== undefined || this.#buffered.byteLength > maxBytes) {
        throw new ScanError(
          "unreachable",
          "header_too_large",
          `The target's response headers exceed ${maxBytes} bytes`,
        );
      }
      searchFrom = Math.max(0, this.#buffered.byteLength - 3);
      if (!await this.#fill()) {
        if (this.#buffered.byteLength === 0) return null;
        throw malformed();
      }
    }
  }

  /** One line without its line end (CRLF or LF). */
  async readLine(maxBytes: number): Promise<Uint8Array> {
    let searchFrom = 0;
    while (true) {
      const lf = this.#buffered.indexOf(LF, searchFrom);
      if (lf !== -1) {
        const contentEnd = lf > 0 && this.#buffered[lf - 1] === CR ? lf - 1 : lf;
        return this.#take(contentEnd, lf + 1);
      }
      if (this.#buffered.byteLength > maxBytes) throw malformed();
      searchFrom = this.#buffered.byteLength;
      if (!await this.#fill()) throw malformed();
    }
  }

  /** Up to `maxBytes` bytes: what is buffered, else one read; null at the end of the stream. */
  async readSome(maxBytes: number): Promise<Uint8Array | null> {
    if (this.#buffered.byteLength === 0 && !await this.#fill()) return null;
    const size = Math.min(maxBytes, this.#buffered.byteLength);
    return this.#take(size, size);
  }

  #take(contentEnd: number, next: number): Uint8Array {
    const content = this.#buffered.slice(0, contentEnd);
    this.#buffered = this.#buffered.slice(next);
    return content;
  }

  async #fill(): Promise<boolean> {
    const scratch = new Uint8Array(READ_SIZE);
    const count = await this.#source.read(scratch);
    if (count === null) return false;
    const grown = new Uint8Array(this.#buffered.byteLength + count);
    grown.set(this.#buffered);
    grown.set(scratch.subarray(0, count), this.#buffered.byteLength);
    this.#buffered = grown;
    return true;
  }
}

/** A response that breaks HTTP/1.1 framing. */
export function malformed(): ScanError {
  return new ScanError("unreachable", "protocol", "The target sent a malformed HTTP response");
}

function findBlankLine(
  bytes: Uint8Array,
  from: number,
): { contentEnd: number; next: number } | undefined {
  for (let i = bytes.indexOf(LF, from); i !== -1; i = bytes.indexOf(LF, i + 1)) {
    if (bytes[i + 1] === LF) return { contentEnd: i + 1, next: i + 2 };
    if (bytes[i + 1] === CR && bytes[i + 2] === LF) return { contentEnd: i + 1, next: i + 3 };
  }
  return undefined;
}
