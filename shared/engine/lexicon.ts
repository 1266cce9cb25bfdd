/**
 * Concept lexicons compiled into one word trie, and the single pass that
 * finds every concept's matches in a document.
 *
 * Terms are parsed (detector_schema.ts has the syntax), folded and tokenized
 * like content, and read as parts of word alternatives; the trie holds every
 * sequence of every concept that documents have reached, inserted part by
 * part as matches first reach it (Trie.insert). Matching walks the trie from
 * each token; a match never crosses a sentence end. The step from the root, the only one most
 * tokens take, is memoised per distinct word. Cost is linear in the number of
 * tokens times the depth of the longest term.
 *
 * @module
 */
import { DocumentBuilder, plainLiteralWords } from "./document/builder.ts";
import type { Document } from "./document/document.ts";
import { MAX_TERM_EXPANSIONS } from "./detector_schema.ts";

/** A term is malformed or expands too far; the message says why. */
export class TermError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "TermError";
  }
}

interface WordPattern {
  word: string;
  prefix: boolean;
}

/** A prefix word pattern (`licens*`) leaving a trie node, and the node it leads to. */
interface PrefixStep {
  prefix: string;
  node: number;
}

/** Words of literals already read: a rulebook repeats the same alternatives many times. */
const termWordsCache = new Map<string, readonly string[]>();

/**
 * The folded words of a literal, as content would be tokenized: most terms are
 * plain lower-case words, split without a document; the rest are read by a
 * DocumentBuilder (and remembered).
 */
export function termWords(literal: string): string[] {
  const plain = plainLiteralWords(literal);
  if (plain !== null) return plain;
  let words = termWordsCache.get(literal);
  if (words === undefined) {
    const builder = new DocumentBuilder("text", literal.length + 4);
    builder.addPiece(literal, { where: "text", lines: "inline" });
    words = builder.build().words;
    if (termWordsCache.size >= 100_000) termWordsCache.clear();
    termWordsCache.set(literal, words);
  }
  return [...words];
}

interface TermPart {
  alternatives: string[];
  optional: boolean;
}

/**
 * Splits a term into its parts: a word (`bot`), single-word alternatives
 * (`bot|chatbot`), or a group of phrase alternatives in parentheses
 * (`(virtual assistant|ai)`), whose alternatives may hold groups of their own
 * (`(to the (patient)? portal|home)`); a part may end in `?` (optional).
 * A group left open, or a `)` that closes none, is a TermError.
 */
function termParts(term: string): TermPart[] {
  const parts: TermPart[] = [];
  let i = 0;
  while (i < term.length) {
    if (term[i] === " ") {
      i += 1;
      continue;
    }
    let body: string;
    let alternatives: string[];
    const group = term[i] === "(";
    if (group) {
      const close = closingParen(term, i);
      body = term.slice(i + 1, close);
      alternatives = topLevelAlternatives(body);
      i = close + 1;
    } else {
      let end = i;
      while (end < term.length && term[end] !== " " && term[end] !== "(") end += 1;
      body = term.slice(i, end);
      if (body.includes(")")) throw new TermError(`term "${term}" has a ")" that closes no group`);
      alternatives = body.split("|");
      i = end;
    }
    let optional = false;
    if (term[i] === "?") {
      optional = true;
      i += 1;
    } else if (body.length > 1 && body.endsWith("?") && !body.includes(" ")) {
      optional = true;
      body = body.slice(0, -1);
      alternatives = group ? topLevelAlternatives(body) : body.split("|");
    }
    parts.push({ alternatives: alternatives.map((alt) => alt.trim()), optional });
  }
  return parts;
}

/** The index of the `)` that closes the group opened at `open`. */
function closingParen(term: string, open: number): number {
  let depth = 0;
  for (let k = open; k < term.length; k += 1) {
    if (term[k] === "(") depth += 1;
    else if (term[k] === ")") {
      depth -= 1;
      if (depth === 0) return k;
    }
  }
  throw new TermError(`term "${term}" has an unclosed group`);
}

/** A group's alternatives: split at the `|` outside its inner groups. */
function topLevelAlternatives(body: string): string[] {
  const alternatives: string[] = [];
  let depth = 0;
  let start = 0;
  for (let k = 0; k < body.length; k += 1) {
    if (body[k] === "(") depth += 1;
    else if (body[k] === ")") depth -= 1;
    else if (body[k] === "|" && depth === 0) {
      alternatives.push(body.slice(start, k));
      start = k + 1;
    }
  }
  alternatives.push(body.slice(start));
  return alternatives;
}

/**
 * Whether a part is punctuation only ("suicide & crisis lifeline"): it
 * separates words, as in content, and is left out of the term's parts.
 */
function isPunctuationOnly(part: TermPart): boolean {
  return part.alternatives.every((alt) =>
    alt !== "" && !alt.endsWith("*") && !isCompound(alt) && termWords(alt).length === 0
  );
}

/** Whether an alternative is a phrase of its own parts (it holds a group or an optional word). */
const isCompound = (alt: string) => alt.includes("(");

/** A compound alternative's word-pattern sequences: its own parts, expanded. */
function compoundSequences(term: string, alt: string): WordPattern[][] {
  return expandParts(term, termAlternatives(alt, false));
}

/** Every sequence of one alternative per part, in order; at most MAX_TERM_EXPANSIONS. */
function expandParts(term: string, parts: readonly WordPattern[][][]): WordPattern[][] {
  let sequences: WordPattern[][] = [[]];
  for (const alternatives of parts) {
    const next: WordPattern[][] = [];
    for (const sequence of sequences) {
      for (const alternative of alternatives) next.push([...sequence, ...alternative]);
    }
    if (next.length > MAX_TERM_EXPANSIONS) {
      throw new TermError(`term "${term}" expands to more than ${MAX_TERM_EXPANSIONS} sequences`);
    }
    sequences = next;
  }
  return sequences;
}

/**
 * A term's parts as word-pattern alternatives, in order: an optional part has
 * the empty alternative first; a part of punctuation only is left out.
 * Throws TermError when the term is malformed.
 */
function termAlternatives(term: string, literal: boolean): WordPattern[][][] {
  // Most terms are plain lower-case words: a part per word, each its one word.
  const plain = literal ? null : plainLiteralWords(term);
  if (plain !== null) return plain.map((word) => [[{ word, prefix: false }]]);
  const parts = literal ? [{ alternatives: [term], optional: false }] : termParts(term);
  const resolved: WordPattern[][][] = [];
  for (const part of parts) {
    if (isPunctuationOnly(part)) continue;
    const alternatives: WordPattern[][] = part.optional ? [[]] : [];
    for (const alt of part.alternatives) {
      if (alt === "") throw new TermError(`term "${term}" has an empty alternative`);
      if (!literal && isCompound(alt)) {
        for (const sequence of compoundSequences(term, alt)) {
          // An inner phrase that may be empty makes its part optional.
          if (sequence.length === 0) {
            if (!alternatives.some((a) => a.length === 0)) alternatives.unshift([]);
          } else alternatives.push(sequence);
        }
        continue;
      }
      const prefix = !literal && alt.endsWith("*");
      const words = termWords(prefix ? alt.slice(0, -1) : alt);
      if (words.length === 0) throw new TermError(`term "${term}" has no word in "${alt}"`);
      if (prefix) {
        if (words.length !== 1 || words[0].length < 3) {
          throw new TermError(
            `term "${term}": a * ends a single word of at least three letters ("${alt}")`,
          );
        }
        alternatives.push([{ word: words[0], prefix: true }]);
      } else {
        alternatives.push(words.map((word) => ({ word, prefix: false })));
      }
    }
    resolved.push(alternatives);
  }
  return resolved;
}

/**
 * The words a term's sequences can start with, as termAlternatives reads it
 * (the first part's alternatives' first words, and the next part's while the
 * parts before are optional), or null when one of them is a prefix pattern.
 * Only the first parts are read. Throws TermError as termAlternatives does.
 */
export function termFirstWords(term: string, literal = false): string[] | null {
  // A literal, or a term of plain lower-case words (most terms): its first word.
  const plain = literal ? termWords(term) : plainLiteralWords(term);
  if (plain !== null) return plain.length === 0 ? [] : [plain[0]];
  const first = new Set<string>();
  for (const part of termParts(term)) {
    if (isPunctuationOnly(part)) continue;
    let optional = part.optional;
    for (const alt of part.alternatives) {
      if (alt === "") throw new TermError(`term "${term}" has an empty alternative`);
      if (isCompound(alt)) {
        // Its sequences' first words; one that may be empty lets the next part start too.
        for (const sequence of compoundSequences(term, alt)) {
          if (sequence.length === 0) optional = true;
          else if (sequence[0].prefix) return null;
          else first.add(sequence[0].word);
        }
        continue;
      }
      if (alt.endsWith("*")) return null;
      const words = termWords(alt);
      if (words.length === 0) throw new TermError(`term "${term}" has no word in "${alt}"`);
      first.add(words[0]);
    }
    if (!optional) break;
  }
  return [...first];
}

/** Expands one term into word-pattern sequences; throws TermError when it is malformed. */
export function expandTerm(term: string, options: { literal?: boolean } = {}): WordPattern[][] {
  const sequences = expandParts(term, termAlternatives(term, options.literal === true))
    .filter((sequence) => sequence.length > 0);
  if (sequences.length === 0) throw new TermError(`term "${term}" can match nothing`);
  return sequences;
}

/** Matches of one lexicon entry: token ranges [starts[k], ends[k]), in order of start. */
export interface Matches {
  starts: number[];
  ends: number[];
}

/** The shared, empty matches of an entry that matched nothing (never written to). */
const NO_MATCHES: Matches = Object.freeze({
  starts: Object.freeze([]) as unknown as number[],
  ends: Object.freeze([]) as unknown as number[],
});

/** Most words whose first step a lexicon remembers, over its whole trie and all its views. */
const ROOT_STEP_BUDGET = 200_000;

/**
 * A document word whose lexicon number match() has not looked up yet. A word
 * looked up and missing is stored as -2 - (the lexicon's word count then):
 * terms inserted as the match goes can give it a number later.
 */
const NOT_LOOKED_UP = -1;

/** The first step of a word that starts no term (shared, never written to). */
const NO_STEPS: readonly number[] = Object.freeze([]);

/**
 * Node flags: the node has children by whole word; by prefix; terms whose
 * next parts are not inserted below it yet (see Trie.insert).
 */
const HAS_WORDS = 1;
const HAS_PREFIXES = 2;
const HAS_PENDING = 4;

/** The rest of a term, from one of its parts on, to be inserted below a node. */
interface Continuation {
  readonly parts: readonly (readonly WordPattern[])[][];
  readonly part: number;
  readonly id: number;
}

/**
 * A word trie of some lexicon entries' sequences, with its memoised first
 * step. The tries of a lexicon (the whole one and its views) share one budget
 * of remembered words, so that views never multiply the memory the memo may
 * take: a trie that finds the budget spent forgets its own words first.
 *
 * Nodes are numbers (the root is 0) and the edges by whole word live in one
 * open-addressing table of typed arrays keyed by (node, word number): no
 * object or Map per node, so that building a view allocates little and a large
 * rulebook's tries stay small. Edges by prefix (`licens*`), which are rare,
 * are lists per node.
 */
class Trie {
  static readonly ROOT = 0;
  readonly #rootSteps = new Map<string, readonly number[]>();
  /** Terms not inserted yet, by each word they can start with. */
  readonly #pending = new Map<string, TermRef[]>();
  /** Reads a term's parts, for its insertion. */
  readonly #parse: (ref: TermRef) => readonly (readonly WordPattern[])[][];
  readonly #budget: { left: number };
  /** The lexicon's word numbers (shared by its tries). */
  readonly #numbers: Map<string, number>;
  #nodes = 1;
  /** Per node: HAS_WORDS | HAS_PREFIXES | HAS_PENDING. */
  flags = new Uint8Array(64);
  /** Per node: the lexicon entries whose term ends there. */
  readonly ends: (number[] | null)[] = [null];
  /** Per node with prefix edges: its prefix steps. */
  readonly prefixes = new Map<number, PrefixStep[]>();
  /** Per node with HAS_PENDING: the terms to go on with below it, when a match first reaches it. */
  readonly #continuations = new Map<number, Continuation[]>();
  // The edge table: parent node, word number, child node (0: an empty slot, since the root
  // is nobody's child); its size is a power of two, at most half full.
  #parents = new Int32Array(1024);
  #words = new Int32Array(1024);
  #children = new Int32Array(1024);
  #mask = 1023;
  #edges = 0;

  constructor(
    budget: { left: number },
    numbers: Map<string, number>,
    parse: (ref: TermRef) => readonly (readonly WordPattern[])[][],
  ) {
    this.#budget = budget;
    this.#numbers = numbers;
    this.#parse = parse;
  }

  /**
   * Adds a term, to be inserted when a document first has one of the words it
   * can start with (`firstWords`; null when it can start with a prefix
   * pattern: then it is inserted now). A root child's subtree comes only from
   * the terms that start with its word, so inserting them all the first time
   * the word is looked up keeps every later walk exact, and a cold isolate
   * builds only the part of a view its documents' words reach.
   */
  addTerm(ref: TermRef, firstWords: readonly string[] | null): void {
    if (firstWords === null) {
      this.insert(this.#parse(ref), ref.entry);
      return;
    }
    for (const word of firstWords) {
      const list = this.#pending.get(word);
      if (list === undefined) this.#pending.set(word, [ref]);
      else list.push(ref);
    }
  }

  /** Inserts the pending terms that can start with `word` (each term once). */
  #insertPending(word: string): void {
    const list = this.#pending.get(word);
    if (list === undefined) return;
    this.#pending.delete(word);
    for (const ref of list) {
      if (ref.inserted.includes(this)) continue;
      ref.inserted.push(this);
      this.insert(this.#parse(ref), ref.entry);
    }
  }

  /** The child of `node` by word number `word`, or 0 when there is none. */
  child(node: number, word: number): number {
    const parents = this.#parents;
    const words = this.#words;
    const mask = this.#mask;
    let slot = edgeSlot(node, word, mask);
    while (true) {
      const child = this.#children[slot];
      if (child === 0) return 0;
      if (parents[slot] === node && words[slot] === word) return child;
      slot = (slot + 1) & mask;
    }
  }

  #addNode(): number {
    const node = this.#nodes;
    this.#nodes += 1;
    if (node >= this.flags.length) {
      const grown = new Uint8Array(this.flags.length * 2);
      grown.set(this.flags);
      this.flags = grown;
    }
    this.ends.push(null);
    return node;
  }

  #setEdge(node: number, word: number, child: number): void {
    const mask = this.#mask;
    let slot = edgeSlot(node, word, mask);
    while (this.#children[slot] !== 0) slot = (slot + 1) & mask;
    this.#parents[slot] = node;
    this.#words[slot] = word;
    this.#children[slot] = child;
  }

  #grow(): void {
    const parents = this.#parents;
    const words = this.#words;
    const children = this.#children;
    const size = children.length * 2;
    this.#parents = new Int32Array(size);
    this.#words = new Int32Array(size);
    this.#children = new Int32Array(size);
    this.#mask = size - 1;
    for (let slot = 0; slot < children.length; slot += 1) {
      if (children[slot] !== 0) this.#setEdge(parents[slot], words[slot], children[slot]);
    }
  }

  /**
   * The child of `node` for one word pattern, made when missing. Whole words
   * get a number in the lexicon's `numbers` (shared by its tries).
   */
  #step(node: number, pattern: WordPattern): number {
    if (pattern.prefix) {
      let list = this.prefixes.get(node);
      if (list === undefined) {
        list = [];
        this.prefixes.set(node, list);
        this.flags[node] |= HAS_PREFIXES;
      }
      let entry = list.find((p) => p.prefix === pattern.word);
      if (entry === undefined) {
        entry = { prefix: pattern.word, node: this.#addNode() };
        list.push(entry);
      }
      return entry.node;
    }
    let number = this.#numbers.get(pattern.word);
    if (number === undefined) {
      number = this.#numbers.size;
      this.#numbers.set(pattern.word, number);
    }
    const found = this.child(node, number);
    if (found !== 0) return found;
    const child = this.#addNode();
    if ((this.#edges + 1) * 2 > this.#children.length) this.#grow();
    this.#setEdge(node, number, child);
    this.#edges += 1;
    this.flags[node] |= HAS_WORDS;
    return child;
  }

  /**
   * Inserts a term's parts (termAlternatives) for entry `id`, one part at a
   * time and only as far as documents go: the first part's words now, below
   * the root; the next part below a node only when a match first reaches that
   * node (expand()). A document's words reach few of a term's paths ("is
   * this", not "are these automated"), so a cold isolate's first evaluation
   * inserts those paths, not every sequence of every term its first words
   * start; a warm trie holds each path documents have reached, as if it had
   * been inserted whole. Where the paths of one part meet at one node, the
   * rest goes on from it once. A term whose parts may all be empty matches
   * nothing, as expandTerm drops the empty sequence.
   */
  insert(parts: readonly (readonly WordPattern[])[][], id: number): void {
    // A term of punctuation only has no part (expandTerm refuses it at import).
    if (parts.length > 0) this.#insertPart(Trie.ROOT, parts, 0, id);
  }

  /**
   * Inserts part `part` of a term below `node`, and defers the parts after
   * it to the nodes it leads to; an empty alternative (an optional part) goes
   * on below `node` at once.
   */
  #insertPart(
    node: number,
    parts: readonly (readonly WordPattern[])[][],
    part: number,
    id: number,
  ): void {
    const last = part === parts.length - 1;
    const reached: number[] = [];
    for (const alternative of parts[part]) {
      let child = node;
      for (let k = 0; k < alternative.length; k += 1) child = this.#step(child, alternative[k]);
      if (reached.includes(child)) continue;
      reached.push(child);
      if (child === node) {
        if (!last) this.#insertPart(node, parts, part + 1, id);
        else if (node !== Trie.ROOT) this.#addEnd(node, id);
      } else if (last) this.#addEnd(child, id);
      else this.#defer(child, { parts, part: part + 1, id });
    }
  }

  #addEnd(node: number, id: number): void {
    const ends = this.ends[node] ??= [];
    if (!ends.includes(id)) ends.push(id);
  }

  #defer(node: number, continuation: Continuation): void {
    const list = this.#continuations.get(node);
    if (list === undefined) {
      this.#continuations.set(node, [continuation]);
      this.flags[node] |= HAS_PENDING;
    } else if (
      !list.some((c) =>
        c.id === continuation.id && c.part === continuation.part && c.parts === continuation.parts
      )
    ) list.push(continuation);
  }

  /**
   * Inserts the terms deferred to `node` (its flag HAS_PENDING), before a
   * match reads its ends and children. A node's continuations all arrive
   * before any match can first reach it: from its parent's expansion, or,
   * below the root, when its word is first looked up (each term that can
   * start with the word is inserted then).
   */
  expand(node: number): void {
    const list = this.#continuations.get(node);
    this.#continuations.delete(node);
    this.flags[node] &= ~HAS_PENDING;
    if (list === undefined) return;
    for (const c of list) this.#insertPart(node, c.parts, c.part, c.id);
  }

  #forget(): void {
    this.#budget.left += this.#rootSteps.size;
    this.#rootSteps.clear();
  }

  /** Returns the words it remembers to the budget (a view dropped). */
  release(): void {
    this.#forget();
  }

  /** The nodes one word leads to from the root: the step most tokens take, memoised per word. */
  fromRoot(word: string): readonly number[] {
    let steps = this.#rootSteps.get(word);
    if (steps === undefined) {
      this.#insertPending(word);
      const found: number[] = [];
      const number = this.#numbers.get(word);
      const child = number === undefined ? 0 : this.child(Trie.ROOT, number);
      if (child !== 0) found.push(child);
      const prefixes = this.prefixes.get(Trie.ROOT);
      if (prefixes !== undefined) {
        for (const entry of prefixes) {
          if (word.startsWith(entry.prefix)) found.push(entry.node);
        }
      }
      steps = found.length === 0 ? NO_STEPS : found;
      if (this.#budget.left <= 0) this.#forget();
      if (this.#budget.left > 0) {
        this.#rootSteps.set(word, steps);
        this.#budget.left -= 1;
      }
    }
    return steps;
  }
}

/** The edge table's slot for (node, word number). */
function edgeSlot(node: number, word: number, mask: number): number {
  const h = Math.imul(node, 0x9e3779b1) ^ Math.imul(word + 1, 0x85ebca77);
  return (h ^ (h >>> 16)) & mask;
}

/**
 * A lexicon narrowed to some of its entries (those the rules of one
 * jurisdiction, industry and surface read): its own smaller trie, so that
 * matching never walks the terms of rules that cannot apply. Entry ids stay
 * the lexicon's; entries outside the view match nothing.
 */
export interface LexiconView {
  /** The entries the view matches, in increasing order. */
  readonly entries: readonly number[];
  /** @internal */
  readonly trie: object;
}

/** One lexicon entry as added: its terms, read when a trie first needs them. */
interface Entry {
  readonly terms: readonly string[];
  readonly literal: boolean;
  /** Each term, as the tries refer to it (made when a trie first needs the entry). */
  refs: TermRef[] | null;
}

/** One term of an entry, as tries insert it. */
interface TermRef {
  readonly entry: number;
  readonly term: string;
  readonly literal: boolean;
  /** The words it can start with (null: a prefix pattern), read once. */
  firstWords: readonly string[] | null | undefined;
  /** Its parts (termAlternatives), read when a trie first inserts it. */
  parts: WordPattern[][][] | null;
  /** The tries it is in. */
  readonly inserted: object[];
}

/**
 * A compiled set of lexicon entries (concepts and inline terms), matched in
 * one pass. Entries are expanded into a trie only when one needs them: the
 * whole lexicon's trie on the first match without a view, a view's trie (its
 * entries only) when the view is first asked for. A cold start that judges
 * one jurisdiction's content thus reads only that jurisdiction's terms.
 * Terms are checked at import (validateRulebook); a malformed term added
 * here throws TermError when a trie first needs it.
 */
export class Lexicon {
  /** Words whose first step the lexicon's tries may still remember. */
  readonly #budget = { left: ROOT_STEP_BUDGET };
  /** A number per distinct word of the terms (not prefixes), by which trie nodes hold children. */
  readonly #numbers = new Map<string, number>();
  /** The whole lexicon's trie, once a match without a view has needed it. */
  #trie: Trie | null = null;
  readonly #entries: Entry[] = [];
  readonly #views = new Map<string, LexiconView>();
  #size = 0;
  // Scratch space reused by match(): the trie walk's stack and the flat match buffer.
  // (Plain arrays, so that a walk with more branches than usual grows them instead of losing any.)
  readonly #frontier: number[] = new Array(64).fill(0);
  readonly #depth: number[] = new Array(64).fill(0);
  #flat = new Int32Array(3 * 1024);

  /** Number of entries. */
  get size(): number {
    return this.#size;
  }

  /** Adds an entry of terms (or one literal statement) and returns its id. */
  add(terms: readonly string[], options: { literal?: boolean } = {}): number {
    const id = this.#size;
    this.#size += 1;
    this.#entries.push({ terms: [...terms], literal: options.literal === true, refs: null });
    // Tries already made would miss the new entry's terms at words they have looked up.
    this.#trie?.release();
    this.#trie = null;
    for (const view of this.#views.values()) (view.trie as Trie).release();
    this.#views.clear();
    return id;
  }

  /** Adds one entry's terms to a trie, to be inserted as documents reach them. */
  #addEntry(trie: Trie, id: number): void {
    const entry = this.#entries[id];
    entry.refs ??= entry.terms.map((term) => ({
      entry: id,
      term,
      literal: entry.literal,
      firstWords: undefined,
      parts: null,
      inserted: [],
    }));
    for (const ref of entry.refs) {
      if (ref.firstWords === undefined) ref.firstWords = termFirstWords(ref.term, ref.literal);
      trie.addTerm(ref, ref.firstWords);
    }
  }

  /** A term's parts, read once. */
  static #parse(ref: TermRef): readonly (readonly WordPattern[])[][] {
    ref.parts ??= termAlternatives(ref.term, ref.literal);
    return ref.parts;
  }

  #newTrie(): Trie {
    return new Trie(this.#budget, this.#numbers, Lexicon.#parse);
  }

  /** The whole lexicon's trie, made on first use. */
  #whole(): Trie {
    if (this.#trie === null) {
      const trie = this.#newTrie();
      for (let id = 0; id < this.#size; id += 1) this.#addEntry(trie, id);
      this.#trie = trie;
    }
    return this.#trie;
  }

  /**
   * A view of the lexicon narrowed to `entries` (ids of this lexicon), built
   * once per distinct set; null when the set holds every entry (match the
   * whole lexicon then).
   */
  view(entries: Iterable<number>): LexiconView | null {
    const ids = [...new Set(entries)].filter((id) => id >= 0 && id < this.#size).sort((a, b) =>
      a - b
    );
    if (ids.length === this.#size) return null;
    const key = ids.join(",");
    let view = this.#views.get(key);
    if (view === undefined) {
      const trie = this.#newTrie();
      for (const id of ids) this.#addEntry(trie, id);
      view = { entries: ids, trie };
      this.#views.set(key, view);
    }
    return view;
  }

  /**
   * Every entry's matches in a document; one match per entry and start, the
   * longest. With a view (from this lexicon's `view()`), only the view's
   * entries are looked for: the others match nothing.
   */
  match(doc: Document, view?: LexiconView | null): Matches[] {
    const trie = view == null ? this.#whole() : view.trie as Trie;
    const { words, sentence, wordId } = doc;
    const n = doc.length;
    // The first step of each of the document's words, looked up once per word (by its number).
    const firstSteps: (readonly number[] | undefined)[] = new Array(doc.wordIds);
    // And its number in the lexicon, once per word: NOT_LOOKED_UP until needed.
    const numbers = new Int32Array(doc.wordIds).fill(NOT_LOOKED_UP);
    const lexiconNumbers = this.#numbers;
    const frontier = this.#frontier;
    const trieEnds = trie.ends;
    // Reread after each first step: inserting pending terms may grow it.
    let trieFlags = trie.flags;
    const depth = this.#depth;
    // Matches go to one flat buffer of (entry, start, end) first, then to each entry:
    // no array grows per entry while the document is read.
    let flat = this.#flat;
    let count = 0;
    const perEntry = new Int32Array(this.#size);
    for (let i = 0; i < n; i += 1) {
      const id = wordId[i];
      let first = firstSteps[id];
      if (first === undefined) {
        first = firstSteps[id] = trie.fromRoot(words[i]);
        trieFlags = trie.flags;
      }
      if (first.length === 0) continue;
      // Indexed loops, not for-of: here V8 allocated an iterator per loop (measured: about
      // 500 KB of garbage per 30,000 characters of text, five times the matches themselves).
      let top = 0;
      for (let q = 0; q < first.length; q += 1) {
        frontier[top] = first[q];
        depth[top] = i + 1;
        top += 1;
      }
      while (top > 0) {
        top -= 1;
        const node = frontier[top];
        const end = depth[top];
        let flags = trieFlags[node];
        if ((flags & HAS_PENDING) !== 0) {
          // The first match to reach this node: insert what goes on below it.
          trie.expand(node);
          trieFlags = trie.flags;
          flags = trieFlags[node];
        }
        const ends = trieEnds[node];
        if (ends !== null) {
          for (let q = 0; q < ends.length; q += 1) {
            const id = ends[q];
            if (count * 3 + 3 > flat.length) {
              const grown = new Int32Array(flat.length * 2);
              grown.set(flat);
              flat = this.#flat = grown;
            }
            flat[count * 3] = id;
            flat[count * 3 + 1] = i;
            flat[count * 3 + 2] = end;
            count += 1;
            perEntry[id] += 1;
          }
        }
        if (end < n && sentence[end] === sentence[i] && flags !== 0) {
          if ((flags & HAS_WORDS) !== 0) {
            const word = wordId[end];
            let number = numbers[word];
            if (number < 0 && number !== -2 - lexiconNumbers.size) {
              const found = lexiconNumbers.get(words[end]);
              number = numbers[word] = found ?? -2 - lexiconNumbers.size;
            }
            const child = number < 0 ? 0 : trie.child(node, number);
            if (child !== 0) {
              frontier[top] = child;
              depth[top] = end + 1;
              top += 1;
            }
          }
          if ((flags & HAS_PREFIXES) !== 0) {
            const prefixes = trie.prefixes.get(node) as PrefixStep[];
            const word = words[end];
            for (let q = 0; q < prefixes.length; q += 1) {
              const entry = prefixes[q];
              if (word.startsWith(entry.prefix)) {
                frontier[top] = entry.node;
                depth[top] = end + 1;
                top += 1;
              }
            }
          }
        }
      }
    }
    // Group by entry, keeping one match per start (the longest); starts arrive in order.
    const found: Matches[] = new Array(this.#size);
    for (let id = 0; id < this.#size; id += 1) {
      found[id] = perEntry[id] === 0 ? NO_MATCHES : { starts: [], ends: [] };
    }
    for (let k = 0; k < count; k += 1) {
      const matches = found[flat[k * 3]];
      const start = flat[k * 3 + 1];
      const end = flat[k * 3 + 2];
      const last = matches.starts.length - 1;
      if (last >= 0 && matches.starts[last] === start) {
        if (end > matches.ends[last]) matches.ends[last] = end;
      } else {
        matches.starts.push(start);
        matches.ends.push(end);
      }
    }
    return found;
  }
}
