/**
 * The document every rule reads: content turned, once per request, into
 * folded word tokens with their sentence, clause, block, turn, visibility and
 * quotation, and offsets back into the original text.
 *
 * A document is built from pieces of source text (the whole content for plain
 * text; text runs and attribute values for HTML; one message each for a
 * transcript). Blocks are paragraphs, list items, HTML blocks or dialogue
 * turns; sentences and clauses lie within blocks. Tokens are stored as
 * parallel arrays indexed by token number.
 *
 * @module
 */

/** Where a piece of text sits in the content. */
export type Where =
  /** Visible text. */
  | "text"
  /** An attribute shown only on hover or to assistive technology: alt, title, aria-label, placeholder. */
  | "attribute"
  /** A meta tag or the page title. */
  | "meta"
  /** An element hidden from view: `hidden`, `display:none`, `visibility:hidden`, zero opacity. */
  | "hidden"
  /** Text too small or too faint to read: tiny font size or near-invisible colour. */
  | "tiny";

/** The speaker of a dialogue turn. */
export type Role = "bot" | "user";

/** A piece of source text; offsets of tokens are into `text`. */
export interface Piece {
  readonly text: string;
  readonly where: Where;
  /** Index of the block the piece starts in. */
  readonly block: number;
  /** For attributes and meta tags: the attribute or meta name. */
  readonly label?: string;
  /** The part of `text` this piece read, when not all of it (offsets stay the text's). */
  readonly from?: number;
  readonly to?: number;
}

/** A dialogue turn: consecutive blocks of one speaker. */
export interface Turn {
  readonly role: Role;
  /** Position among all turns, from 0. */
  readonly index: number;
  /** Position among the turns of the same role, from 0. */
  readonly roleIndex: number;
  /** Milliseconds since the epoch, or NaN when the turn has no timestamp. */
  readonly time: number;
  /** Tokens [firstToken, endToken). */
  readonly firstToken: number;
  readonly endToken: number;
  /** The piece holding the turn's text, and the offset of that text in it. */
  readonly piece: number;
  readonly textStart: number;
  readonly textEnd: number;
}

/** The kinds of content a document is built from. */
export type DocumentKind = "text" | "html" | "dialogue";

/** Flags of a token. */
export const TOKEN_QUOTED = 1;
export const TOKEN_VISIBLE = 2;

/** A built document. Arrays are indexed by token, sentence or block number. */
export interface Document {
  readonly kind: DocumentKind;
  readonly pieces: readonly Piece[];
  /** The folded word of each token. */
  readonly words: readonly string[];
  /**
   * A number per token, below `wordIds`, for per-document memos of per-word
   * work: tokens with the same number have the same word (the same word may
   * have more than one number).
   */
  readonly wordId: Int32Array;
  /** How many word numbers the document uses. */
  readonly wordIds: number;
  readonly piece: Int32Array;
  /** Offsets into the token's piece text: the original characters of the word. */
  readonly start: Int32Array;
  readonly end: Int32Array;
  readonly sentence: Int32Array;
  readonly clause: Int32Array;
  readonly block: Int32Array;
  /** TOKEN_QUOTED, TOKEN_VISIBLE. */
  readonly flags: Uint8Array;
  /** Per sentence: 1 when it ends with a question mark. */
  readonly question: Uint8Array;
  /** Per block: the turn it belongs to, or -1. */
  readonly blockTurn: Int32Array;
  readonly turns: readonly Turn[];
  /** Number of tokens. */
  readonly length: number;
}
