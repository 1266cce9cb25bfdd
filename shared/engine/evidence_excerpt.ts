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
  // Most excerpts have nothing to collapse: a test is cheaper than a replace.
  let excerpt = (TO_COLLAPSE.test(slice) ? slice.replace(/\s+/g, " ") : slice).trim();
  const lead = from > 0 ? "\u2026" : "";
  let tail = to < text.length ? "\u2026" : "";
  const room = MAX_EXCERPT_CHARS - lead.length - 1;
  if (excerpt.length > room) {
    excerpt = excerpt.slice(0, room).trimEnd();
    tail = "\u2026";
  }
  return lead + excerpt + tail;
}

/** Whitespace that collapsing would change: any but a space, or two spaces in a row. */
const TO_COLLAPSE = /[^\S ]| {2}/;
