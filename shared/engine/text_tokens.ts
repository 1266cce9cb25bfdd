/**
 * Word tokens of lower-cased text, produced in one pass, for phrase matching.
 *
 * A word is a run of letters and digits. Between two words lies a gap: it is
 * soft when it holds only whitespace (at most one line break), hyphens and
 * apostrophes, and hard otherwise (other punctuation, a blank line, emoji).
 * A phrase matches consecutive words joined by soft gaps, so "ai" never
 * matches inside "said", "AI-generated" matches "ai generated", and a phrase
 * never spans a sentence end or a paragraph break.
 *
 * @module
 */

/** Tokens of one text; parallel arrays indexed by token number. */
export interface TextTokens {
  /** The words, lower-cased as the input was. */
  readonly words: string[];
  /** Offset of each word's first character. */
  readonly starts: number[];
  /** Offset just past each word's last character. */
  readonly ends: number[];
  /** 1 when a hard gap (or the start of the text) precedes the word. */
  readonly hardBefore: number[];
}

/** Splits already lower-cased text into words and the kind of gap before each. */
export function tokenize(lowered: string): TextTokens {
  const words: string[] = [];
  const starts: number[] = [];
  const ends: number[] = [];
  const hardBefore: number[] = [];
  const n = lowered.length;
  let hard = true;
  let lineBreaks = 0;
  let i = 0;
  while (i < n) {
    const c = lowered.charCodeAt(i);
    if (isWordChar(c)) {
      const start = i;
      i += 1;
      while (i < n && isWordChar(lowered.charCodeAt(i))) i += 1;
      words.push(lowered.slice(start, i));
      starts.push(start);
      ends.push(i);
      hardBefore.push(hard || lineBreaks > 1 ? 1 : 0);
      hard = false;
      lineBreaks = 0;
      continue;
    }
    if (c === 10) lineBreaks += 1;
    else if (!isSoftChar(c)) hard = true;
    i += 1;
  }
  return { words, starts, ends, hardBefore };
}

/** Whether a UTF-16 code unit belongs to a word (ASCII letters and digits, most non-ASCII letters). */
export function isWordChar(c: number): boolean {
  if (c < 128) return (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || (c >= 65 && c <= 90);
  if (c < 0xc0) return false;
  if (c === 0xd7 || c === 0xf7) return false;
  if (c >= 0x2000 && c <= 0x2bff) return false; // punctuation, symbols, arrows
  if (c >= 0x3000 && c <= 0x303f) return false; // CJK punctuation
  if (c >= 0xd800 && c <= 0xdfff) return false; // surrogates: emoji and the like
  if (c >= 0xfe00 && c <= 0xfe0f) return false; // variation selectors
  if (c >= 0xfeff && c <= 0xff0f) return false; // BOM, full-width punctuation
  return true;
}

function isSoftChar(c: number): boolean {
  return c === 32 || c === 9 || c === 13 || c === 11 || c === 12 || c === 0xa0 ||
    c === 45 || c === 39 || c === 0x2019 || c === 0x2018 ||
    (c >= 0x2000 && c <= 0x200b) || (c >= 0x2010 && c <= 0x2013) ||
    c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff;
}
