/**
 * Character folding for matching: what one source character becomes in the
 * normalised text.
 *
 * - Unicode NFKC (full-width letters, ligatures, mathematical alphanumerics,
 *   superscripts) and case folding;
 * - combining marks dropped (so "naïve" and "nai\u0308ve" both read "naive");
 * - curly quotes, primes and backticks unified to `'` and `"`, dashes and
 *   minus signs to `-`;
 * - zero-width characters, soft hyphens, bidi controls and variation
 *   selectors removed;
 * - common Cyrillic and Greek look-alikes of Latin letters read as the Latin
 *   letter ("bоt" with a Cyrillic о reads "bot");
 * - every kind of space reads as a space.
 *
 * Folding is per code point and cached, so a text is folded in one pass.
 *
 * @module
 */

/** Removed entirely: zero-width characters, soft hyphen, bidi controls, variation selectors. */
function isInvisible(cp: number): boolean {
  return cp === 0xad || (cp >= 0x200b && cp <= 0x200f) || (cp >= 0x202a && cp <= 0x202e) ||
    (cp >= 0x2060 && cp <= 0x2064) || (cp >= 0x2066 && cp <= 0x206f) || cp === 0xfeff ||
    (cp >= 0xfe00 && cp <= 0xfe0f) || cp === 0x034f || cp === 0x180e ||
    (cp >= 0xe0100 && cp <= 0xe01ef);
}

/** Latin look-alikes (lower case) of Cyrillic and Greek letters seen in evasion. */
const CONFUSABLES = new Map<string, string>(Object.entries({
  "а": "a",
  "в": "b",
  "е": "e",
  "ё": "e",
  "к": "k",
  "м": "m",
  "н": "h",
  "о": "o",
  "р": "p",
  "с": "c",
  "т": "t",
  "у": "y",
  "х": "x",
  "і": "i",
  "ї": "i",
  "ј": "j",
  "ѕ": "s",
  "ԁ": "d",
  "ԛ": "q",
  "ԝ": "w",
  "ɑ": "a",
  "ɡ": "g",
  "ı": "i",
  "α": "a",
  "β": "b",
  "ε": "e",
  "η": "n",
  "ι": "i",
  "κ": "k",
  "ν": "v",
  "ο": "o",
  "ρ": "p",
  "τ": "t",
  "υ": "u",
  "χ": "x",
  "ϲ": "c",
  // Small capitals (IPA and phonetic extensions), which NFKC leaves alone.
  "ᴀ": "a",
  "ʙ": "b",
  "ᴄ": "c",
  "ᴅ": "d",
  "ᴇ": "e",
  "ꜰ": "f",
  "ɢ": "g",
  "ʜ": "h",
  "ɪ": "i",
  "ᴊ": "j",
  "ᴋ": "k",
  "ʟ": "l",
  "ᴍ": "m",
  "ɴ": "n",
  "ᴏ": "o",
  "ᴘ": "p",
  "ǫ": "q",
  "ʀ": "r",
  "ꜱ": "s",
  "ᴛ": "t",
  "ᴜ": "u",
  "ᴠ": "v",
  "ᴡ": "w",
  "ʏ": "y",
  "ᴢ": "z",
}));

const cache = new Map<number, string>();

/**
 * The folded form of one code point (above U+007F; ASCII is folded inline by
 * the tokenizer): "" when it is removed, else one or more characters.
 */
export function foldCodePoint(cp: number): string {
  let folded = cache.get(cp);
  if (folded !== undefined) return folded;
  folded = computeFold(cp);
  if (cache.size < 20_000) cache.set(cp, folded);
  return folded;
}

function computeFold(cp: number): string {
  if (isInvisible(cp)) return "";
  if (
    cp === 0xa0 || cp === 0x3000 || (cp >= 0x2000 && cp <= 0x200a) || cp === 0x202f ||
    cp === 0x205f || cp === 0x1680
  ) return " ";
  if (cp === 0x2028 || cp === 0x2029 || cp === 0x85) return "\n";
  if (
    cp === 0x2018 || cp === 0x2019 || cp === 0x201a || cp === 0x201b || cp === 0x2032 ||
    cp === 0x2035 || cp === 0x02bc || cp === 0xff07 || cp === 0x60
  ) return "'";
  if (
    cp === 0x201c || cp === 0x201d || cp === 0x201e || cp === 0x201f || cp === 0x2033 ||
    cp === 0x00ab || cp === 0x00bb || cp === 0xff02
  ) return '"';
  if (
    (cp >= 0x2010 && cp <= 0x2015) || cp === 0x2212 || cp === 0xfe58 || cp === 0xfe63 ||
    cp === 0xff0d
  ) return "-";
  let text = String.fromCodePoint(cp).normalize("NFKD").replace(/\p{M}/gu, "").normalize("NFKC")
    .toLowerCase();
  // Lower-casing can itself produce combining marks (İ -> i̇).
  text = text.replace(/\p{M}/gu, "");
  let out = "";
  for (const ch of text) out += CONFUSABLES.get(ch) ?? ch;
  return out;
}
