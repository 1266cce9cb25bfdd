/**
 * Short evidence excerpts: the matched text with some context either side,
 * whitespace collapsed, at most `MAX_EXCERPT_CHARS` characters.
 *
 * @module
 */

/** Longest excerpt, ellipses included. */
export const MAX_EXCERPT_CHARS = 160;
const CONTEXT_CHARS = 60;

/** Returns the text around [start, end) as a single-line excerpt of at most 160 characters. */
export function excerptAround(text: string, start: number, end: number): string {
  const from = Math.max(0, start - CONTEXT_CHARS);
  const to = Math.min(text.length, Math.max(end, start) + CONTEXT_CHARS);
  const slice = text.slice(from, to);
  let excerpt = (collapsed(slice) ? slice : slice.replace(/\s+/g, " ")).trim();
  const lead = from > 0 ? "\u2026" : "";
  let tail = to < text.length ? "\u2026" : "";
  const room = MAX_EXCERPT_CHARS - lead.length - 1;
  if (excerpt.length > room) {
    excerpt = excerpt.slice(0, room).trimEnd();
    tail = "\u2026";
  }
  return lead + excerpt + tail;
}

/**
 * Whether `text` has no whitespace to collapse: no run of two spaces and no
 * whitespace (as `\s` reads it) other than a space. Most excerpts are so,
 * and need no regular expression then.
 */
function collapsed(text: string): boolean {
  let space = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (c === 32) {
      if (space) return false;
      space = true;
      continue;
    }
    space = false;
    if (c > 32 && c < 0xa0) continue;
    if (c <= 32 || isUnicodeSpace(c)) return false;
  }
  return true;
}

/** Whitespace above U+007F, as `\s` reads it. */
function isUnicodeSpace(c: number): boolean {
  return c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 ||
    c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff;
}
