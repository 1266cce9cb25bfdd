/**
 * Builds a {@linkcode Document} in one pass over each piece of source text.
 *
 * Per character: HTML entities are decoded, the character is folded
 * (fold.ts), and it either extends the current word or separates words. A
 * word is a run of letters and digits, with these joins and splits:
 *
 * - contractions expand: "I'm" reads "i am", "isn't" reads "is not", "can't"
 *   reads "can not", "it's" reads "it is" (a possessive 's is dropped);
 * - dotted acronyms join: "A.I." reads "ai", "R.N." reads "rn";
 * - compounds split at a case change: "NurseBot" reads "nurse bot", "RNBot"
 *   reads "rn bot", "SentinelAI" reads "sentinel ai" (each part at least two
 *   letters).
 *
 * Sentences end at `.`, `!` or `?` followed by a space (not after a title
 * such as "Dr." or before a lower-case word); a blank line, a bullet, a
 * dialogue label or an HTML block starts a block. A single line break in
 * text (a wrapped line, a field of a form) ends a clause but not a sentence.
 * Clauses also end at `, ; : ( )`, a spaced dash, and before "but",
 * "however", "although", "though", "except" and "whereas": negation never
 * reaches across them. Text between double quotes is marked quoted.
 *
 * @module
 */
import { decodeHTMLStrict } from "entities";
import { foldCodePoint } from "./fold.ts";
import {
  type Document,
  type DocumentKind,
  type Piece,
  type Role,
  TOKEN_QUOTED,
  TOKEN_VISIBLE,
  type Turn,
  type Where,
} from "./document.ts";

/** How a word was read (see `#wordPlain`). */
const PLAIN_NO = 0;
const PLAIN_LETTERS = 1;
const PLAIN_DIGITS = 2;

/** Tokens the columns hold before they first grow, without a hint. */
const INITIAL_CAPACITY = 512;
const EMPTY_INT32 = new Int32Array(0);

/** A line where a dialogue turn (or a plain block) starts, found by dialogue.ts. */
export interface LineStart {
  /** Offset of the line's first character. */
  at: number;
  /** Offset where the turn's text starts (after the speaker label). */
  textAt: number;
  /** The speaker, or null for narration: a line that ends the open turn and starts a block. */
  role: Role | null;
}

/** How a piece is read. */
export interface PieceOptions {
  where: Where;
  /** The attribute or meta name, for evidence. */
  label?: string;
  /**
   * "text": a line break ends a sentence and a blank line starts a block;
   * "inline": line breaks are spaces (HTML text).
   */
  lines: "text" | "inline";
  /** Dialogue lines of a plain-text chat export, sorted by offset. */
  lineStarts?: readonly LineStart[];
  /** Read only text[from, to); offsets stay those of the whole text. */
  from?: number;
  to?: number;
}

/** Words before which a clause starts: "but", "however", "although", "though", "except", "whereas". */
function isClauseWord(word: string): boolean {
  return word === "but" || word === "however" || word === "although" || word === "though" ||
    word === "except" || word === "whereas";
}

/** A cheap test before the contraction table: "n't" words typed bare, or one of a few short ones. */
function mayBeBareContraction(word: string): boolean {
  const n = word.length;
  if (n < 2 || n > 8) return false;
  const last = word.charCodeAt(n - 1);
  if (last === 116) return word.charCodeAt(n - 2) === 110; // ...nt
  return last === 109 || last === 101 || last === 115 || word === "cannot"; // im, ive/youre/theyre, thats/whats
}

/** Words ending in "bot" that are not compounds of it. */
const NOT_BOT_COMPOUNDS = new Set([
  "robot",
  "robots",
  "abbot",
  "abbots",
  "sabot",
  "turbot",
  "turbots",
  "cabot",
]);

/**
 * Where "bot" or "bots" starts in a compound bot name ("chatbot", "medibot"), or
 * -1: the word ends in it, has at least three letters before it, and is not
 * an ordinary word that merely ends so ("robot", "turbot").
 */
function botSuffixAt(word: string): number {
  const n = word.length;
  const at = word.endsWith("bots") ? n - 4 : word.endsWith("bot") ? n - 3 : -1;
  if (at < 3 || NOT_BOT_COMPOUNDS.has(word)) return -1;
  return at;
}

function hasDigitAndLetter(word: string): boolean {
  let digit = false;
  let letter = false;
  for (let i = 0; i < word.length; i += 1) {
    const c = word.charCodeAt(i);
    if (c >= 48 && c <= 57) digit = true;
    else letter = true;
    if (digit && letter) return true;
  }
  return false;
}
const TITLE_ABBREVIATIONS = new Set([
  "dr",
  "mr",
  "mrs",
  "ms",
  "mx",
  "prof",
  "st",
  "sr",
  "jr",
  "vs",
  "eg",
  "ie",
  "etc",
  "inc",
  "co",
  "corp",
  "ltd",
  "esq",
  "atty",
  "attys",
  "pharm",
  "psy",
  "lic",
  "approx",
  "dept",
  "sec",
  "stat",
  "ann",
  "rev",
  "gen",
  "bus",
  "com",
  "cal",
  "tex",
  "fla",
  "mass",
  "ariz",
  "tenn",
  "colo",
  "admin",
  "elec",
  "jan",
  "feb",
  "mar",
  "apr",
  "jun",
  "jul",
  "aug",
  "sep",
  "sept",
  "oct",
  "nov",
  "dec",
]);
const IS_PRONOUNS = new Set([
  "it",
  "that",
  "what",
  "he",
  "she",
  "there",
  "here",
  "who",
  "this",
  "where",
  "everything",
  "nothing",
  "everyone",
  "someone",
  "nobody",
  "somebody",
  "how",
  "why",
  "when",
]);
const NOT_BASES = new Map([["ca", "can"], ["wo", "will"], ["ai", "is"], ["sha", "shall"]]);
/** Contractions typed without their apostrophe ("im", "dont"), read as with it. */
const BARE_CONTRACTIONS = new Map<string, readonly [string, string]>(Object.entries({
  im: ["i", "am"],
  ive: ["i", "have"],
  youre: ["you", "are"],
  theyre: ["they", "are"],
  thats: ["that", "is"],
  whats: ["what", "is"],
  dont: ["do", "not"],
  doesnt: ["does", "not"],
  didnt: ["did", "not"],
  isnt: ["is", "not"],
  arent: ["are", "not"],
  wasnt: ["was", "not"],
  werent: ["were", "not"],
  cant: ["can", "not"],
  cannot: ["can", "not"],
  wont: ["will", "not"],
  havent: ["have", "not"],
  hasnt: ["has", "not"],
  couldnt: ["could", "not"],
  shouldnt: ["should", "not"],
  wouldnt: ["would", "not"],
}) as [string, readonly [string, string]][]);

const ENTITY = /&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});/y;
const WORD_CHAR = /^[\p{L}\p{N}]$/u;
const wordCharCache = new Map<string, boolean>();

function isFoldedWordChar(ch: string): boolean {
  const c = ch.charCodeAt(0);
  if (c < 0x80) return (c >= 97 && c <= 122) || (c >= 48 && c <= 57);
  let known = wordCharCache.get(ch);
  if (known === undefined) {
    known = WORD_CHAR.test(ch);
    // Bounded: each distinct character ever seen would otherwise stay for the isolate's life.
    if (wordCharCache.size >= 20_000) wordCharCache.clear();
    wordCharCache.set(ch, known);
  }
  return known;
}

/** Capitalised endings that name an AI when a lower-case word runs into them ("SentinelAI"). */
const FINAL_AI_SUFFIXES = ["AI", "GPT", "BOT", "LLM"];

/**
 * Whether text[from] starts a capitalised AI suffix that ends the word:
 * "SentinelAI", "JusticeGPT", "NurseBOT".
 */
function isFinalAiSuffix(text: string, from: number): boolean {
  for (const suffix of FINAL_AI_SUFFIXES) {
    const end = from + suffix.length;
    if (
      text.startsWith(suffix, from) && (end >= text.length || !isAsciiAlnum(text.charCodeAt(end)))
    ) return true;
  }
  return false;
}

/** Whether text[at] is a lower-case ASCII letter. */
function isLowerAsciiAt(text: string, at: number): boolean {
  const c = text.charCodeAt(at);
  return c >= 97 && c <= 122;
}

/** Whether text[at] is an ASCII digit. */
function isDigitAt(text: string, at: number): boolean {
  const c = text.charCodeAt(at);
  return c >= 48 && c <= 57;
}

function isAsciiLetter(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90);
}

function isAsciiAlnum(c: number): boolean {
  return isAsciiLetter(c) || (c >= 48 && c <= 57);
}

/**
 * The words of a literal of lower-case ASCII letters separated by single
 * spaces or hyphens, as a document would read them, or null when the literal is not of
 * that form or one of its words is read otherwise ("u", a bare contraction
 * such as "dont", a compound bot name such as "medibot"): then only a
 * DocumentBuilder knows. Rulebook terms are mostly of this form, so that
 * compiling a lexicon tokenizes them without building a document each.
 */
export function plainLiteralWords(literal: string): string[] | null {
  const n = literal.length;
  if (n === 0) return null;
  let wordStart = 0;
  const words: string[] = [];
  for (let i = 0; i <= n; i += 1) {
    const c = i === n ? 32 : literal.charCodeAt(i);
    // A hyphen between words ends the first, as in content ("ai-powered": ai, powered).
    if (c === 32 || (c === 45 && i + 1 < n && isLowerAsciiAt(literal, i + 1))) {
      if (i === wordStart) return null;
      const word = literal.slice(wordStart, i);
      const length = i - wordStart;
      if (length <= 2 && (word === "u" || word === "ur")) return null;
      if (length >= 6 && botSuffixAt(word) > 0) return null;
      if (mayBeBareContraction(word) && BARE_CONTRACTIONS.has(word)) return null;
      words.push(word);
      wordStart = i + 1;
    } else if (c < 97 || c > 122) return null;
  }
  return words;
}

/** Accumulates pieces, blocks and turns into a Document. */
export class DocumentBuilder {
  readonly #kind: DocumentKind;
  readonly #pieces: Piece[] = [];
  /** The tokens' words: allocated with the columns (up to `#capacity`), `#count` of them set. */
  #words: string[] = [];
  #count = 0;
  // Per-token columns, views of one buffer grown as a whole; the document gets views, not copies.
  #capacity = 0;
  #piece = EMPTY_INT32;
  #start = EMPTY_INT32;
  #end = EMPTY_INT32;
  #sentence = EMPTY_INT32;
  #clause = EMPTY_INT32;
  #block = EMPTY_INT32;
  #wordId = EMPTY_INT32;
  #flags = new Uint8Array(0);
  /** Numbers of words pushed other than through the word table (contractions, split words). */
  readonly #otherIds = new Map<string, number>();
  readonly #question: number[] = [0];
  readonly #blockTurn: number[] = [-1];
  readonly #turns: Turn[] = [];
  #sentenceNo = 0;
  #clauseNo = 0;
  #blockNo = 0;
  #sentenceHasTokens = false;
  #blockHasContent = false;
  #quoted = false;
  #turn = -1;
  #turnStart = 0;
  #turnRole: Role = "user";
  #turnTime = NaN;
  #turnOpen = false;
  #turnPiece = -1;
  #turnTextStart = 0;
  #turnTextEnd = 0;
  readonly #roleCounts = { bot: 0, user: 0 };
  // Per piece while it is read.
  #pieceNo = -1;
  /** The document's distinct words, so that a repeated word is one string. */
  readonly #table: WordTable;
  #visible = 0;

  /**
   * @param kind what the document is read from
   * @param capacityHint expected number of words (a fifth of a text's length is plenty), so
   *   that the columns are allocated once
   */
  constructor(kind: DocumentKind, capacityHint = INITIAL_CAPACITY) {
    this.#kind = kind;
    this.#table = new WordTable(capacityHint >> 1);
    this.#allocate(Math.max(16, Math.min(capacityHint, 1 << 20)), 0);
  }

  /** Starts a new block (paragraph, list item, HTML block). */
  newBlock(): void {
    this.#endSentence(false);
    if (this.#blockHasContent) {
      this.#blockNo += 1;
      this.#blockTurn.push(this.#turn);
      this.#blockHasContent = false;
    } else {
      this.#blockTurn[this.#blockNo] = this.#turn;
    }
    this.#quoted = false;
  }

  /** Starts a dialogue turn; it lasts until the next turn or `endTurn`. */
  startTurn(role: Role, time = NaN): void {
    this.endTurn();
    this.#turnOpen = true;
    this.#turn = this.#turns.length;
    this.#turnRole = role;
    this.#turnTime = time;
    this.#turnStart = this.#count;
    this.#turnPiece = -1;
    this.#turnTextStart = -1;
    this.#turnTextEnd = -1;
    this.newBlock();
  }

  /** Ends the open turn, if any. */
  endTurn(): void {
    if (!this.#turnOpen) return;
    this.#endSentence(false);
    this.#turns.push({
      role: this.#turnRole,
      index: this.#turns.length,
      roleIndex: this.#roleCounts[this.#turnRole]++,
      time: this.#turnTime,
      firstToken: this.#turnStart,
      endToken: this.#count,
      piece: Math.max(0, this.#turnPiece),
      textStart: Math.max(0, this.#turnTextStart),
      textEnd: Math.max(0, this.#turnTextEnd),
    });
    this.#turnOpen = false;
    this.#turn = -1;
    this.newBlock();
  }

  /** Reads one piece of source text into the current block. */
  addPiece(text: string, options: PieceOptions): void {
    this.#pieces.push({
      text,
      where: options.where,
      block: this.#blockNo,
      ...(options.label === undefined ? {} : { label: options.label }),
      ...(options.from === undefined ? {} : { from: options.from }),
      ...(options.to === undefined ? {} : { to: options.to }),
    });
    this.#pieceNo = this.#pieces.length - 1;
    this.#visible = options.where === "text" ? TOKEN_VISIBLE : 0;
    this.#read(text, options);
  }

  /** The finished document. */
  build(): Document {
    this.endTurn();
    this.#endSentence(false);
    const n = this.#count;
    this.#words.length = n;
    return {
      kind: this.#kind,
      pieces: this.#pieces,
      words: this.#words,
      piece: this.#piece.subarray(0, n),
      start: this.#start.subarray(0, n),
      end: this.#end.subarray(0, n),
      sentence: this.#sentence.subarray(0, n),
      clause: this.#clause.subarray(0, n),
      block: this.#block.subarray(0, n),
      wordId: this.#wordId.subarray(0, n),
      wordIds: this.#table.idCount,
      flags: this.#flags.subarray(0, n),
      question: Uint8Array.from(this.#question),
      blockTurn: Int32Array.from(this.#blockTurn),
      turns: this.#turns,
      length: n,
    };
  }

  #endSentence(question: boolean): void {
    if (!this.#sentenceHasTokens) {
      if (question) this.#question[this.#sentenceNo] = 1;
      return;
    }
    if (question) this.#question[this.#sentenceNo] = 1;
    this.#sentenceNo += 1;
    this.#question.push(0);
    this.#clauseNo += 1;
    this.#sentenceHasTokens = false;
  }

  #newClause(): void {
    if (this.#sentenceHasTokens) this.#clauseNo += 1;
  }

  #push(word: string, start: number, end: number): void {
    let id = this.#otherIds.get(word);
    if (id === undefined) {
      id = this.#table.newId();
      this.#otherIds.set(word, id);
    }
    this.#pushWord(
      word,
      id,
      start,
      end,
      word.length >= 3 && word.length <= 8 && isClauseWord(word),
    );
  }

  /**
   * Appends a token; `id`: its word's number (see Document.wordId); `clause`: the word starts a
   * clause ("but", "however", ...).
   */
  #pushWord(word: string, id: number, start: number, end: number, clause: boolean): void {
    if (clause) this.#newClause();
    const at = this.#count;
    if (at === this.#capacity) this.#grow();
    this.#words[at] = word;
    this.#count = at + 1;
    this.#wordId[at] = id;
    this.#piece[at] = this.#pieceNo;
    this.#start[at] = start;
    this.#end[at] = end;
    this.#sentence[at] = this.#sentenceNo;
    this.#clause[at] = this.#clauseNo;
    this.#block[at] = this.#blockNo;
    this.#flags[at] = (this.#quoted ? TOKEN_QUOTED : 0) | this.#visible;
    this.#sentenceHasTokens = true;
    this.#blockHasContent = true;
    if (this.#turnOpen) {
      if (this.#turnPiece < 0) this.#turnPiece = this.#pieceNo;
      if (this.#turnTextStart < 0) this.#turnTextStart = start;
      if (this.#turnPiece === this.#pieceNo) this.#turnTextEnd = end;
    }
  }

  #grow(): void {
    this.#allocate(this.#capacity * 2, this.#count);
  }

  /** (Re)allocates the columns in one buffer, keeping the first `keep` tokens. */
  #allocate(capacity: number, keep: number): void {
    const buffer = new ArrayBuffer(capacity * (7 * 4 + 1));
    const column = (i: number, old: Int32Array) => {
      const next = new Int32Array(buffer, i * 4 * capacity, capacity);
      if (keep > 0) next.set(old.subarray(0, keep));
      return next;
    };
    this.#piece = column(0, this.#piece);
    this.#start = column(1, this.#start);
    this.#end = column(2, this.#end);
    this.#sentence = column(3, this.#sentence);
    this.#clause = column(4, this.#clause);
    this.#block = column(5, this.#block);
    this.#wordId = column(6, this.#wordId);
    const flags = new Uint8Array(buffer, 28 * capacity, capacity);
    if (keep > 0) flags.set(this.#flags.subarray(0, keep));
    this.#flags = flags;
    // Set by index, not pushed: an array grown by push is copied each time it fills.
    const words: string[] = new Array(capacity);
    for (let i = 0; i < keep; i += 1) words[i] = this.#words[i];
    this.#words = words;
    this.#capacity = capacity;
  }

  /** Emits a finished word, expanding contractions and splitting compounds. */
  #emit(raw: string, start: number, end: number, splits: number[], plain = PLAIN_NO): void {
    if (plain === PLAIN_LETTERS) {
      // The fast path's common case: ASCII letters only, no apostrophe, no compound split.
      this.#emitLetters(raw, start, end);
      return;
    }
    const word = hasDigitAndLetter(raw) ? unleet(raw) : raw;
    if (splits.length > 0) {
      let from = 0;
      for (const at of splits) {
        this.#emit(word.slice(from, at), start + from, start + at, []);
        from = at;
      }
      this.#emit(word.slice(from), start + from, end, []);
      return;
    }
    const apostrophe = plain === PLAIN_NO ? word.indexOf("'") : -1;
    if (apostrophe < 0) {
      this.#emitLetters(word, start, end);
      return;
    }
    const base = word.slice(0, apostrophe);
    const suffix = word.slice(apostrophe + 1).replaceAll("'", "");
    if (base === "") {
      if (suffix !== "") this.#push(suffix, start, end);
      return;
    }
    if (suffix === "t" && base.endsWith("n") && base.length > 1) {
      const stem = base.slice(0, -1);
      this.#push(NOT_BASES.get(stem) ?? stem, start, end);
      this.#push("not", start, end);
      return;
    }
    switch (suffix) {
      case "m":
        this.#push(base, start, end);
        this.#push("am", start, end);
        return;
      case "re":
        this.#push(base, start, end);
        this.#push("are", start, end);
        return;
      case "ve":
        this.#push(base, start, end);
        this.#push("have", start, end);
        return;
      case "ll":
        this.#push(base, start, end);
        this.#push("will", start, end);
        return;
      case "d":
        this.#push(base, start, end);
        this.#push("would", start, end);
        return;
      case "s":
        this.#push(base, start, end);
        if (IS_PRONOUNS.has(base)) this.#push("is", start, end);
        return;
      case "":
        this.#push(base, start, end);
        return;
      default:
        this.#push(base + suffix, start, end);
    }
  }

  /** A word without apostrophe or split: chat spellings, bot compounds, bare contractions. */
  #emitLetters(word: string, start: number, end: number): void {
    const n = word.length;
    if (n <= 2) {
      if (word === "u" || word === "ur") {
        // Chat spelling: "u" reads "you", "ur" reads "your".
        this.#push(word === "u" ? "you" : "your", start, end);
        return;
      }
    } else if (n >= 6) {
      const last = word.charCodeAt(n - 1);
      const botAt = last === 116 || last === 115 ? botSuffixAt(word) : -1;
      if (botAt > 0) {
        // A bot's compound name: "medibot" reads "medi bot", "NurseBots" "nurse bots".
        this.#push(word.slice(0, botAt), start, start + botAt);
        this.#push(word.slice(botAt), start + botAt, end);
        return;
      }
    }
    const bare = mayBeBareContraction(word) ? BARE_CONTRACTIONS.get(word) : undefined;
    if (bare === undefined) this.#push(word, start, end);
    else {
      this.#push(bare[0], start, end);
      this.#push(bare[1], start, end);
    }
  }

  // State of the piece being read (fields rather than closures, so the reader stays optimised).
  #text = "";
  #n = 0;
  #textLines = false;
  #word = "";
  // How the current word was read: PLAIN_LETTERS or PLAIN_DIGITS by the ASCII fast path, else PLAIN_NO.
  #wordPlain = PLAIN_NO;
  #wordStart = 0;
  #wordEnd = 0;
  #splits: number[] = [];
  #lettersSinceDot = 0;
  /** The current word is a dotted acronym ("C.N.A"); #lastDotted: the last word was. */
  #dotted = false;
  #lastDotted = false;
  #lastWasLower = false;
  #upperRun = 0;
  // Capitals after lower case in the current compound part: "gUaRa" is mixed case, not a compound.
  #innerUppers = 0;
  #segmentStart = 0;
  // A pending sentence end: 0 none, 1 period, 2 exclamation, 3 question.
  #pending = 0;
  #pendingQuestion = false;
  #newlines = 0;
  #spaceBefore = true;
  #lastWord = "";

  #flush(): void {
    if (this.#word === "") return;
    this.#emit(this.#word, this.#wordStart, this.#wordEnd, this.#splits, this.#wordPlain);
    this.#wordPlain = PLAIN_NO;
    this.#lastWord = this.#word;
    this.#lastDotted = this.#dotted;
    this.#dotted = false;
    this.#word = "";
    if (this.#splits.length > 0) this.#splits = [];
    this.#lettersSinceDot = 0;
    this.#lastWasLower = false;
    this.#upperRun = 0;
    this.#innerUppers = 0;
    this.#segmentStart = 0;
  }

  /** Called before a word character or a block start: settles line breaks and sentence ends. */
  #settle(nextIsLowerWord: boolean): void {
    if (this.#newlines >= 2 && this.#textLines) {
      this.newBlock();
      this.#pending = 0;
      this.#pendingQuestion = false;
    } else if (this.#pending !== 0) {
      // A title ("Dr."), a lower-case word next, or a dotted acronym's own last dot on the
      // same line ("C.N.A. Carebot") is no sentence end.
      const abbreviation = this.#pending === 1 &&
        (TITLE_ABBREVIATIONS.has(this.#lastWord) || nextIsLowerWord ||
          (this.#lastDotted && this.#newlines === 0));
      if (!abbreviation) this.#endSentence(this.#pendingQuestion);
      else if (this.#newlines > 0) this.#newClause();
      this.#pending = 0;
      this.#pendingQuestion = false;
    } else if (this.#newlines > 0 && this.#textLines) {
      // A single line break (a wrapped line, a field of a form) ends a clause, not a sentence.
      this.#newClause();
    }
    this.#newlines = 0;
  }

  /** Processes one folded character that came from text[from, to). */
  #take(ch: string, from: number, to: number, upper: boolean, lower: boolean): void {
    const text = this.#text;
    if (isFoldedWordChar(ch)) {
      const word = this.#word;
      if (word === "") {
        this.#settle(lower);
        this.#wordStart = from;
      } else if (upper && this.#lastWasLower && word.length >= 2 && this.#innerUppers === 0) {
        // A case change inside a word: "NurseBot" (but not "gUaRaNtEeD"), and a
        // product name ending in "AI" or "GPT": "SentinelAI" reads "sentinel ai".
        if (isLowerAt(text, to) || isFinalAiSuffix(text, from)) {
          this.#splits.push(word.length);
          this.#segmentStart = word.length;
        }
      } else if (upper && this.#upperRun >= 2 && isLowerAt(text, to)) {
        // "RNBot": split before the last capital of a run followed by lower case.
        if (word.length >= 2) {
          this.#splits.push(word.length);
          this.#segmentStart = word.length;
        }
      }
      if (upper && word.length > this.#segmentStart && this.#lastWasLower) this.#innerUppers += 1;
      this.#word = word + ch;
      this.#wordPlain = PLAIN_NO;
      this.#wordEnd = to;
      this.#lettersSinceDot += 1;
      this.#lastWasLower = lower;
      this.#upperRun = upper ? this.#upperRun + 1 : 0;
      this.#spaceBefore = false;
      return;
    }
    const c = ch.charCodeAt(0);
    if (c === 39 && this.#word !== "" && to < this.#n && isLetterAt(text, to)) {
      this.#word += "'";
      this.#wordPlain = PLAIN_NO;
      this.#wordEnd = to;
      this.#lettersSinceDot = 0;
      return;
    }
    if (
      c === 46 && this.#word !== "" && this.#lettersSinceDot === 1 && to + 1 <= this.#n &&
      isLetterAt(text, to) &&
      !isAlnumAt(text, to + (text.codePointAt(to) as number > 0xffff ? 2 : 1))
    ) {
      // "A.I.": the dot joins single letters.
      this.#lettersSinceDot = 0;
      this.#dotted = true;
      return;
    }
    // "1.5 seconds", "$4.99": a point between digits ends no sentence.
    const decimalPoint = c === 46 && from > 0 && isDigitAt(text, from - 1) && isDigitAt(text, to);
    this.#flush();
    switch (c) {
      case 32:
      case 9:
      case 13:
      case 12:
      case 11:
        this.#spaceBefore = true;
        return;
      case 10:
        if (this.#textLines) {
          this.#newlines += 1;
          if (this.#newlines === 1 && isBulletAt(text, to)) this.#newlines = 2;
        }
        this.#spaceBefore = true;
        return;
      case 46: // .
        if (this.#pending === 0 && !decimalPoint) this.#pending = 1;
        break;
      case 33: // !
        this.#pending = 2;
        break;
      case 63: // ?
        this.#pending = 3;
        this.#pendingQuestion = true;
        break;
      case 34: { // "
        this.#settle(false);
        // After a digit it is an inch mark (a 27" monitor), not a quotation.
        const before = from > 0 ? text.charCodeAt(from - 1) : 0;
        if (!(before >= 48 && before <= 57)) this.#quoted = !this.#quoted;
        break;
      }
      case 44: // ,
      case 59: // ;
      case 58: // :
      case 40: // (
      case 41: // )
        this.#settle(false);
        this.#newClause();
        break;
      case 45: // -
        this.#settle(false);
        if (this.#spaceBefore) this.#newClause();
        break;
      default:
        this.#settle(false);
    }
    this.#spaceBefore = false;
  }

  #read(text: string, options: PieceOptions): void {
    this.#text = text;
    this.#textLines = options.lines === "text";
    const lineStarts = options.lineStarts ?? [];
    let nextLine = 0;
    const n = Math.min(text.length, options.to ?? text.length);
    this.#n = n;
    this.#word = "";
    this.#splits = [];
    this.#lettersSinceDot = 0;
    this.#lastWasLower = false;
    this.#upperRun = 0;
    this.#innerUppers = 0;
    this.#segmentStart = 0;
    this.#pending = 0;
    this.#pendingQuestion = false;
    this.#newlines = 0;
    this.#spaceBefore = true;
    this.#lastWord = "";

    let i = options.from ?? 0;
    while (nextLine < lineStarts.length && lineStarts[nextLine].at < i) nextLine += 1;
    while (i < n) {
      if (nextLine < lineStarts.length && i === lineStarts[nextLine].at) {
        const line = lineStarts[nextLine];
        nextLine += 1;
        this.#flush();
        if (this.#pending !== 0 || this.#pendingQuestion) this.#endSentence(this.#pendingQuestion);
        this.#pending = 0;
        this.#pendingQuestion = false;
        this.#newlines = 0;
        if (line.role === null) {
          // Narration: the open turn ends, and the line, label and all, is plain text.
          this.endTurn();
          this.newBlock();
          continue;
        }
        this.startTurn(line.role);
        this.#turnPiece = this.#pieceNo;
        this.#turnTextStart = line.textAt;
        i = line.textAt;
        continue;
      }
      const c = text.charCodeAt(i);
      if (c === 32 && (this.#pending === 0 || !this.#textLines)) {
        // The commonest separator, without the general path.
        this.#flush();
        this.#spaceBefore = true;
        i += 1;
        continue;
      }
      if (c < 0x80) {
        if (c === 38) {
          ENTITY.lastIndex = i;
          const match = ENTITY.exec(text);
          if (match !== null) {
            const decoded = decodeHTMLStrict(match[0]);
            if (decoded !== match[0]) {
              const to = i + match[0].length;
              for (const ch of decoded) {
                const cp = ch.codePointAt(0) as number;
                const folded = cp < 0x80 ? ch.toLowerCase() : foldCodePoint(cp);
                for (const f of folded) this.#take(f, i, to, false, false);
              }
              i = to;
              continue;
            }
          }
        }
        if (this.#word === "" && isAsciiAlnum(c)) {
          // Fast path: a whole run of ASCII letters and digits that needs no compound split.
          let j = i;
          let sawLower = false;
          let sawUpper = false;
          let mixed = false;
          let sawDigit = false;
          // The lower-cased word as a base-37 number (digits 1-10, letters 11-36), for the
          // word table: exact, so one word's alone, up to WORD_CODE_EXACT characters.
          let code = 0;
          while (j < n) {
            const d = text.charCodeAt(j);
            if (d >= 97 && d <= 122) {
              sawLower = true;
              code = code * 37 + (d - 86);
            } else if (d >= 65 && d <= 90) {
              if (sawLower || (sawUpper && j + 1 < n && isLowerAt(text, j + 1))) mixed = true;
              sawUpper = true;
              code = code * 37 + (d - 54);
            } else if (d >= 48 && d <= 57) {
              sawDigit = true;
              code = code * 37 + (d - 47);
            } else break;
            j += 1;
          }
          const next = j < n ? text.charCodeAt(j) : 32;
          if (!mixed && endsWordPlainly(next, j - i)) {
            // The commonest case: the word cannot grow (no apostrophe, dotted acronym or
            // entity follows), so it is emitted at once, without the per-word state.
            // (#settle has nothing to settle without a line break or sentence end pending.)
            if (this.#newlines !== 0 || this.#pending !== 0) this.#settle(c >= 97 && c <= 122);
            const table = this.#table;
            const word = table.word(text, i, j, code, sawUpper);
            this.#lastWord = word;
            this.#lastDotted = false;
            if (sawDigit) this.#emit(word, i, j, NO_SPLITS, PLAIN_DIGITS);
            else {
              // How #emitLetters reads the word depends on the word alone: decided once per
              // distinct word of the document.
              const slot = table.slot;
              let plan = table.plans[slot];
              if (plan === PLAN_UNKNOWN) plan = table.plans[slot] = letterPlan(word);
              if (plan === PLAN_SPECIAL) this.#emitLetters(word, i, j);
              else this.#pushWord(word, table.ids[slot], i, j, plan === PLAN_CLAUSE);
            }
            if (next === 32 && (this.#pending === 0 || !this.#textLines)) {
              this.#spaceBefore = true;
              i = j + 1;
            } else {
              this.#spaceBefore = false;
              i = j;
            }
            continue;
          }
          if (!mixed && (j >= n || next < 0x80)) {
            this.#settle(c >= 97 && c <= 122);
            this.#wordStart = i;
            this.#word = sawUpper ? text.slice(i, j).toLowerCase() : text.slice(i, j);
            this.#wordPlain = sawDigit ? PLAIN_DIGITS : PLAIN_LETTERS;
            this.#wordEnd = j;
            this.#lettersSinceDot = j - i;
            const last = text.charCodeAt(j - 1);
            this.#lastWasLower = last >= 97 && last <= 122;
            this.#upperRun = last >= 65 && last <= 90 ? j - i : 0;
            this.#spaceBefore = false;
            i = j;
            continue;
          }
        }
        if (c >= 65 && c <= 90) this.#take(String.fromCharCode(c + 32), i, i + 1, true, false);
        else this.#take(text[i], i, i + 1, false, c >= 97 && c <= 122);
        i += 1;
        continue;
      }
      const cp = text.codePointAt(i) as number;
      const width = cp > 0xffff ? 2 : 1;
      const folded = foldCodePoint(cp);
      for (const f of folded) this.#take(f, i, i + width, false, false);
      i += width;
    }
    this.#flush();
    if (this.#pending !== 0) {
      this.#endSentence(this.#pendingQuestion);
      this.#pending = 0;
    }
    if (this.#textLines && this.#newlines >= 2) this.newBlock();
  }
}

const NO_SPLITS: number[] = [];

/** How a word of ASCII letters is emitted (see `letterPlan`). */
const PLAN_UNKNOWN = 0;
const PLAN_PLAIN = 1;
const PLAN_CLAUSE = 2;
const PLAN_SPECIAL = 3;

/**
 * What #emitLetters does with a word of lower-case ASCII letters, decided
 * from the word alone: PLAN_SPECIAL when it rewrites or splits it (chat
 * spellings, bot compounds, bare contractions), else one token, PLAN_CLAUSE
 * when that token starts a clause.
 */
function letterPlan(word: string): number {
  const n = word.length;
  if (n <= 2) {
    if (word === "u" || word === "ur") return PLAN_SPECIAL;
  } else if (n >= 6) {
    const last = word.charCodeAt(n - 1);
    if ((last === 116 || last === 115) && botSuffixAt(word) > 0) return PLAN_SPECIAL;
  }
  if (mayBeBareContraction(word) && BARE_CONTRACTIONS.has(word)) return PLAN_SPECIAL;
  return n >= 3 && n <= 8 && isClauseWord(word) ? PLAN_CLAUSE : PLAN_PLAIN;
}

/**
 * Words of at most this many characters have distinct codes (37^10 < 2^53: a
 * double holds the code exactly), so equal codes mean equal words.
 */
const WORD_CODE_EXACT = 10;

/** The table slot of a word code: its low 32 bits, mixed. */
function codeSlot(code: number, mask: number): number {
  const h = Math.imul(code | 0, 0x9e3779b1);
  return (h ^ (h >>> 15)) & mask;
}

/**
 * The distinct words of one document, by code of their folded characters (see
 * `#read`: a base-37 number of the lower-cased word, exact up to
 * WORD_CODE_EXACT characters, so that a short word found needs no
 * character comparison): a word seen before is returned as the same string, without slicing and
 * lower-casing it again, and a string reused keeps the hash V8 caches on it,
 * so the lexicon's lookups of repeated words do not hash them again. Holds
 * only the words of the document being built.
 */
class WordTable {
  #mask: number;
  #words: (string | undefined)[];
  #codes: Float64Array;
  /** Per slot: how the word is emitted (PLAN_UNKNOWN until set; the reader sets it). */
  plans: Int8Array;
  /** Per slot: the word's number (Document.wordId). */
  ids: Int32Array;
  #size = 0;
  /** Numbers given out, to the table's words and others'. */
  #nextId = 0;
  /** The slot of the word last returned by `word()`. */
  slot = 0;

  /** @param expected words the document is expected to hold (a few distinct ones need little room) */
  constructor(expected: number) {
    // Even a long text has a few hundred distinct words; the table grows when it has more.
    let capacity = 64;
    while (capacity < expected && capacity < 512) capacity *= 2;
    this.#mask = capacity - 1;
    this.#words = new Array(capacity);
    this.#codes = new Float64Array(capacity);
    this.plans = new Int8Array(capacity);
    this.ids = new Int32Array(capacity);
  }

  /** Word numbers given out so far. */
  get idCount(): number {
    return this.#nextId;
  }

  /** A new word number, for a word pushed without the table. */
  newId(): number {
    return this.#nextId++;
  }

  /** The lower-cased word text[from, to) (ASCII letters and digits), with its `code`. */
  word(text: string, from: number, to: number, code: number, upper: boolean): string {
    const words = this.#words;
    const length = to - from;
    let slot = codeSlot(code, this.#mask);
    for (;;) {
      const known = words[slot];
      if (known === undefined) break;
      if (this.#codes[slot] === code && known.length === length) {
        let k = 0;
        if (length <= WORD_CODE_EXACT) k = length;
        else if (!upper) {
          // Already lower case: a native comparison.
          if (text.startsWith(known, from)) k = length;
        } else {
          while (k < length) {
            const c = text.charCodeAt(from + k);
            if (known.charCodeAt(k) !== (c >= 65 && c <= 90 ? c + 32 : c)) break;
            k += 1;
          }
        }
        if (k === length) {
          this.slot = slot;
          return known;
        }
      }
      slot = (slot + 1) & this.#mask;
    }
    const word = upper ? text.slice(from, to).toLowerCase() : text.slice(from, to);
    words[slot] = word;
    this.#codes[slot] = code;
    this.plans[slot] = PLAN_UNKNOWN;
    this.ids[slot] = this.#nextId++;
    this.slot = slot;
    this.#size += 1;
    if (this.#size * 2 > this.#mask) this.#grow();
    return word;
  }

  #grow(): void {
    const words = this.#words;
    const codes = this.#codes;
    const plans = this.plans;
    const ids = this.ids;
    const last = this.slot;
    const mask = this.#mask * 2 + 1;
    this.#mask = mask;
    this.#words = new Array(mask + 1);
    this.#codes = new Float64Array(mask + 1);
    this.plans = new Int8Array(mask + 1);
    this.ids = new Int32Array(mask + 1);
    for (let i = 0; i < words.length; i += 1) {
      const word = words[i];
      if (word === undefined) continue;
      let slot = codeSlot(codes[i], mask);
      while (this.#words[slot] !== undefined) slot = (slot + 1) & mask;
      this.#words[slot] = word;
      this.#codes[slot] = codes[i];
      this.plans[slot] = plans[i];
      this.ids[slot] = ids[i];
      if (i === last) this.slot = slot;
    }
  }
}

/**
 * Whether the character after a plain ASCII word ends it for good: a space,
 * a line break or punctuation that never joins words (a period only after a
 * word of two or more characters, since "A.I." joins).
 */
function endsWordPlainly(next: number, length: number): boolean {
  switch (next) {
    case 32:
    case 10:
    case 13:
    case 9:
    case 44:
    case 59:
    case 58:
    case 33:
    case 63:
    case 40:
    case 41:
    case 34:
    case 45:
      return true;
    case 46:
      return length > 1;
    default:
      return false;
  }
}

const ORDINAL = /^\d+(?:st|nd|rd|th)$/;
const LEET = new Map([["0", "o"], ["1", "i"], ["3", "e"], ["4", "a"], ["5", "s"], ["7", "t"]]);

/**
 * Digits standing in for letters inside a word ("b0t", "hum4n") read as the
 * letters. Only a word with at least two letters and at most two such digits
 * is read this way, so numbers and codes ("401", "4g") stay as they are;
 * terms are folded the same way, so "a1c" in a term still matches "A1C".
 */
function unleet(word: string): string {
  // An ordinal ("1st", "3rd", "30th") is a number, and dates are read from it.
  if (ORDINAL.test(word)) return word;
  let letters = 0;
  let digits = 0;
  for (let i = 0; i < word.length; i += 1) {
    const c = word.charCodeAt(i);
    if (c >= 48 && c <= 57) {
      if (LEET.has(word[i])) digits += 1;
      else return word;
    } else if (c >= 97 && c <= 122) letters += 1;
  }
  if (digits === 0 || digits > 2 || letters < 2) return word;
  let out = "";
  for (const ch of word) out += LEET.get(ch) ?? ch;
  return out;
}

function isLowerAt(text: string, at: number): boolean {
  const c = text.charCodeAt(at);
  return c >= 97 && c <= 122;
}

function isLetterAt(text: string, at: number): boolean {
  if (at >= text.length) return false;
  const c = text.charCodeAt(at);
  if (c < 0x80) return isAsciiLetter(c);
  const folded = foldCodePoint(text.codePointAt(at) as number);
  return folded !== "" && /^\p{L}/u.test(folded);
}

/** Whether the character at `at` folds to a letter or digit (full-width letters included). */
function isAlnumAt(text: string, at: number): boolean {
  if (at >= text.length) return false;
  const c = text.charCodeAt(at);
  if (c < 0x80) return isAsciiAlnum(c);
  const folded = foldCodePoint(text.codePointAt(at) as number);
  return folded !== "" && /^[\p{L}\p{N}]/u.test(folded);
}

/** Whether a bullet ("- ", "* ", "• ", "1. ") starts at `at`, after spaces. */
function isBulletAt(text: string, at: number): boolean {
  let i = at;
  while (i < text.length && (text.charCodeAt(i) === 32 || text.charCodeAt(i) === 9)) i += 1;
  const c = text.charCodeAt(i);
  if ((c === 45 || c === 42 || c === 0x2022) && text.charCodeAt(i + 1) === 32) return true;
  let j = i;
  while (j < text.length && j - i < 3 && text.charCodeAt(j) >= 48 && text.charCodeAt(j) <= 57) {
    j += 1;
  }
  return j > i && (text.charCodeAt(j) === 46 || text.charCodeAt(j) === 41) &&
    text.charCodeAt(j + 1) === 32;
}
