/** A decoded response body. */
export interface BodyText {
  text: string;
  /** The WHATWG encoding name used, e.g. `utf-8`, `windows-1252`. */
  charset: string;
}

const PRESCAN_BYTES = 1024;

/**
 * Decodes a body as a browser would, simplified: a byte order mark first,
 * then the `charset` of the Content-Type, then (for HTML) a `<meta charset>`
 * or `<meta http-equiv content="...; charset=...">` in the first 1024 bytes,
 * else UTF-8. Unknown labels are skipped; malformed bytes become U+FFFD,
 * which also covers a multi-byte character cut by truncation.
 */
export function decodeBody(bytes: Uint8Array, contentType: string | null): BodyText {
  const bom = bomEncoding(bytes);
  if (bom !== undefined) return decodeWith(bom, bytes);
  const candidates = [
    /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(contentType ?? "")?.[1],
    metaCharset(bytes),
  ];
  for (const label of candidates) {
    if (label === undefined) continue;
    const decoder = decoderFor(label);
    if (decoder !== undefined) return { text: decoder.decode(bytes), charset: decoder.encoding };
  }
  return decodeWith("utf-8", bytes);
}

function bomEncoding(bytes: Uint8Array): string | undefined {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return "utf-8";
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return "utf-16be";
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return "utf-16le";
  return undefined;
}

/** A charset declared by a meta tag; a UTF-16 declaration means UTF-8 (HTML's rule: the bytes are ASCII-compatible). */
function metaCharset(bytes: Uint8Array): string | undefined {
  const start = new TextDecoder("windows-1252").decode(bytes.subarray(0, PRESCAN_BYTES));
  const label = /<meta\s[^>]*?charset\s*=\s*["']?\s*([A-Za-z0-9_:.-]+)/i.exec(start)?.[1];
  if (label === undefined) return undefined;
  return /^utf-16/i.test(label) ? "utf-8" : label;
}

function decoderFor(label: string): TextDecoder | undefined {
  try {
    return new TextDecoder(label);
  } catch {
    return undefined;
  }
}

function decodeWith(encoding: string, bytes: Uint8Array): BodyText {
  const decoder = new TextDecoder(encoding);
  return { text: decoder.decode(bytes), charset: decoder.encoding };
}
