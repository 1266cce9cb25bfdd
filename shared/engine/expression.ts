/**
 * Compiles detector expressions (detector_schema.ts) against a lexicon and
 * evaluates them on a document's matches, collecting evidence.
 *
 * Evaluation is linear: every atom's filtered matches are computed at most
 * once per document (memoised by atom), `near` is one merge of two sorted
 * match lists, `reply` and `gap` one walk over the turns.
 *
 * @module
 */
import {
  type Document,
  type Role,
  TOKEN_QUOTED,
  TOKEN_VISIBLE,
  type Turn,
  type Where,
} from "./document/document.ts";
import type { Atom, Expression } from "./detector_schema.ts";
import { statedDaysBefore } from "./facts.ts";
import type { Lexicon, Matches } from "./lexicon.ts";

/**
 * Negators whose reach is shorter than NEGATION_REACH: "without" takes a short
 * object, so in "without consent are removed" "removed" is not negated.
 */
const SHORT_REACH: ReadonlyMap<string, number> = new Map([["without", 2]]);

/** Words that negate what follows them in the same clause, within NEGATION_REACH words. */
export const NEGATORS: ReadonlySet<string> = new Set([
  "not",
  "no",
  "never",
  "neither",
  "nor",
  "nobody",
  "none",
  "nothing",
  "without",
  "nope",
  "nah",
  "hardly",
  "unable",
  "cannot",
  "refuse",
  "refuses",
]);
/** How many words before a match a negator reaches. */
export const NEGATION_REACH = 5;
/** Words of the region "opening": the first words of a reply. */
export const OPENING_WORDS = 4;

/** A compiled atom: a lexicon entry and filters. */
export interface CompiledAtom {
  readonly slot: number;
  readonly entry: number;
  readonly polarity?: "affirmed" | "negated";
  readonly mood?: "statement" | "question";
  readonly visible?: boolean;
  readonly where?: ReadonlySet<Where>;
  readonly quoted?: boolean;
  readonly speaker?: Role | "none" | "not_user";
  readonly at?: "start" | "end" | "first_bot_turn" | "last_bot_turn";
  /** Whether any filter above is set (else every match of the entry is a hit). */
  readonly filtered: boolean;
}

/** A compiled expression node. */
export type CompiledExpression =
  | { op: "has"; atom: CompiledAtom }
  | { op: "count"; atom: CompiledAtom; min: number; per: number }
  | {
    op: "near";
    a: CompiledAtom;
    b: CompiledAtom;
    scope: Scope;
    words: number;
    clause: boolean;
    sentence: boolean;
  }
  | { op: "all"; items: CompiledExpression[] }
  | { op: "any"; items: CompiledExpression[] }
  | { op: "not"; item: CompiledExpression }
  | { op: "use"; id: number; item: CompiledExpression }
  | { op: "in"; region: Region; item: CompiledExpression }
  | { op: "reply"; to: CompiledAtom; check: CompiledExpression; lacks: boolean }
  | { op: "gap"; atom: CompiledAtom; hours: number }
  | { op: "is"; kind: "dialogue" | "html" | "text" }
  | { op: "window"; event: CompiledAtom; days: number; outside: boolean }
  /** A format-1 pattern, run on the content's text (whitespace collapsed, quotes straightened). */
  | { op: "pattern"; id: number; regex: RegExp };

type Scope = "words" | "clause" | "sentence" | "block" | "turn";
type Region = "start" | "end" | "first_bot_turn" | "last_bot_turn" | "opening";

/** Resolves concept and definition names, adds inline terms, and numbers atoms. */
export class ExpressionCompiler {
  readonly #lexicon: Lexicon;
  readonly #concepts: ReadonlyMap<string, number>;
  readonly #sources: ReadonlyMap<string, Expression>;
  readonly #definitions = new Map<string, CompiledExpression>();
  #definitionIds = 0;
  #slots = 0;
  readonly #atoms = new Map<string, CompiledAtom>();

  constructor(
    lexicon: Lexicon,
    concepts: ReadonlyMap<string, number>,
    definitions: Readonly<Record<string, Expression>> = {},
  ) {
    this.#lexicon = lexicon;
    this.#concepts = concepts;
    this.#sources = new Map(Object.entries(definitions));
  }

  /** Atoms numbered so far: the size of an evaluation's memo. */
  get slots(): number {
    return this.#slots;
  }

  /** Compiles an expression; throws Error naming an unknown concept or definition. */
  compile(expression: Expression): CompiledExpression {
    if ("has" in expression) return { op: "has", atom: this.atom(expression.has) };
    if ("count" in expression) {
      return {
        op: "count",
        atom: this.atom(expression.count),
        min: expression.min,
        per: expression.per ?? 0,
      };
    }
    if ("near" in expression) {
      const within = expression.within;
      return {
        op: "near",
        a: this.atom(expression.near[0]),
        b: this.atom(expression.near[1]),
        scope: typeof within === "string" ? within : "words",
        words: typeof within === "string" ? 0 : within.words,
        clause: typeof within !== "string" && within.clause === true,
        sentence: typeof within !== "string" && within.sentence === true,
      };
    }
    if ("all" in expression) {
      return {
        op: "all",
        items: expression.all.map((e) => this.compile(e)),
      };
    }
    if ("any" in expression) {
      return {
        op: "any",
        items: expression.any.map((e) => this.compile(e)),
      };
    }
    if ("not" in expression) return { op: "not", item: this.compile(expression.not) };
    if ("use" in expression) return this.#definition(expression.use);
    if ("in" in expression) {
      return { op: "in", region: expression.in, item: this.compile(expression.test) };
    }
    if ("reply" in expression) {
      const { to, lacks, has } = expression.reply;
      return {
        op: "reply",
        to: this.atom(to),
        check: this.compile((lacks ?? has) as Expression),
        lacks: lacks !== undefined,
      };
    }
    if ("gap" in expression) {
      return { op: "gap", atom: this.atom(expression.gap.atom), hours: expression.gap.hours };
    }
    if ("is" in expression) return { op: "is", kind: expression.is };
    const window = expression.window;
    return {
      op: "window",
      event: this.atom(window.event),
      days: window.days,
      outside: window.side === "outside",
    };
  }

  /** A definition, compiled once on first use (import refuses cycles, so this ends). */
  #definition(name: string): CompiledExpression {
    const known = this.#definitions.get(name);
    if (known !== undefined) return known;
    const source = this.#sources.get(name);
    if (source === undefined) throw new Error(`unknown definition "${name}"`);
    // The id is taken before the body compiles: definitions it uses compile (and number) first.
    const id = this.#definitionIds++;
    const compiled: CompiledExpression = { op: "use", id, item: this.compile(source) };
    this.#definitions.set(name, compiled);
    return compiled;
  }

  /** Compiles an atom. */
  atom(atom: Atom): CompiledAtom {
    // The same atom written in many rules is one slot: its hits are filtered once per request.
    const key = JSON.stringify(atom);
    const known = this.#atoms.get(key);
    if (known !== undefined) return known;
    const compiled = this.#newAtom(atom);
    this.#atoms.set(key, compiled);
    return compiled;
  }

  #newAtom(atom: Atom): CompiledAtom {
    const slot = this.#slots++;
    const filters: Exclude<Atom, string> | Record<string, undefined> = typeof atom === "string"
      ? {}
      : atom;
    const entry = typeof atom === "string"
      ? this.#concept(atom)
      : "concept" in atom
      ? this.#concept(atom.concept)
      : this.#lexicon.add(atom.terms);
    // Every atom has every field (undefined when absent): one object shape, so that the
    // evaluator's reads of them stay monomorphic.
    return {
      slot,
      entry,
      polarity: filters.polarity,
      mood: filters.mood,
      visible: filters.visible,
      where: filters.where === undefined ? undefined : new Set(filters.where),
      quoted: filters.quoted,
      speaker: filters.speaker,
      at: filters.at,
      filtered: filters.polarity !== undefined || filters.mood !== undefined ||
        filters.visible !== undefined || filters.where !== undefined ||
        filters.quoted !== undefined || filters.speaker !== undefined || filters.at !== undefined,
    };
  }

  #concept(name: string): number {
    const entry = this.#concepts.get(name);
    if (entry === undefined) throw new Error(`unknown concept "${name}"`);
    return entry;
  }
}

/** One piece of evidence: a token range of the document. */
export interface EvidenceSpan {
  /** Token range [first, end). */
  first: number;
  end: number;
}

/** What an expression is evaluated against: a document and its lexicon matches. */
export class Evaluation {
  readonly doc: Document;
  readonly #matches: Matches[];
  readonly #memo: (number[] | undefined)[];
  /** The opening and closing words' limits (see `#limits`), -1 until first needed. */
  #startLimit = -1;
  #endFrom = -1;
  readonly #firstBotTurn: number;
  readonly #lastBotTurn: number;
  #patternText: string | null = null;
  readonly #patternResults = new Map<number, boolean>();
  /** The token range tests are confined to, or null for the whole document. */
  #scope: EvidenceSpan | null = null;
  readonly #uses = new Map<string, { result: boolean; spans: EvidenceSpan[] }>();
  /** Results of definitions over the whole document, by definition id. */
  readonly #wholeUses: ({ result: boolean; spans: EvidenceSpan[] } | undefined)[] = [];
  /** Evidence of the expression being evaluated, or null while evidence is not wanted. */
  evidence: EvidenceSpan[] | null = null;

  constructor(doc: Document, matches: Matches[], slots: number) {
    this.doc = doc;
    this.#matches = matches;
    this.#memo = new Array(slots);
    const bots = doc.turns.filter((turn) => turn.role === "bot");
    this.#firstBotTurn = bots[0]?.index ?? -2;
    this.#lastBotTurn = bots[bots.length - 1]?.index ?? -2;
  }

  /**
   * The opening and closing words: the first and last max(60, 8%) visible
   * tokens; `#startLimit` is where the first end, `#endFrom` where the last
   * start. Found on first use: most documents' rules never ask.
   */
  #limits(): void {
    if (this.#startLimit >= 0) return;
    const doc = this.doc;
    let visible = 0;
    for (let i = 0; i < doc.length; i += 1) if (doc.flags[i] & TOKEN_VISIBLE) visible += 1;
    const window = Math.max(60, Math.ceil(visible * 0.08));
    this.#startLimit = tokenOfVisible(doc, window);
    this.#endFrom = visible <= window ? 0 : lastVisible(doc, window);
  }

  /** Evaluates an expression; evidence goes to `this.evidence` when it is not null. */
  test(node: CompiledExpression): boolean {
    switch (node.op) {
      case "has": {
        const hits = this.hits(node.atom);
        if (hits.length === 0) return false;
        this.#note(node.atom, hits[0]);
        return true;
      }
      case "count": {
        const hits = this.hits(node.atom);
        const words = this.#scope === null ? this.doc.length : this.#scope.end - this.#scope.first;
        const needed = node.per === 0
          ? node.min
          : Math.max(node.min, Math.ceil(node.min * words / node.per));
        if (hits.length < needed) return false;
        this.#note(node.atom, hits[0]);
        return true;
      }
      case "near":
        return this.#near(node.a, node.b, node.scope, node.words, node.clause, node.sentence);
      case "all": {
        const mark = this.evidence?.length ?? 0;
        const items = node.items;
        for (let k = 0; k < items.length; k += 1) {
          if (!this.test(items[k])) {
            if (this.evidence !== null) this.evidence.length = mark;
            return false;
          }
        }
        return true;
      }
      case "any": {
        const items = node.items;
        for (let k = 0; k < items.length; k += 1) if (this.test(items[k])) return true;
        return false;
      }
      case "not": {
        const kept = this.evidence;
        this.evidence = null;
        const result = this.test(node.item);
        this.evidence = kept;
        return !result;
      }
      case "use":
        return this.#use(node);
      case "in": {
        const region = this.#region(node.region);
        if (region.end <= region.first) return false;
        const outer = this.#scope;
        this.#scope = outer === null ? region : {
          first: Math.max(outer.first, region.first),
          end: Math.min(outer.end, region.end),
        };
        try {
          return this.#scope.end > this.#scope.first && this.test(node.item);
        } finally {
          this.#scope = outer;
        }
      }
      case "reply":
        return this.#reply(node.to, node.check, node.lacks);
      case "gap":
        return this.#gap(node.atom, node.hours);
      case "is":
        return this.doc.kind === node.kind;
      case "pattern": {
        let result = this.#patternResults.get(node.id);
        if (result === undefined) {
          this.#patternText ??= patternView(this.doc);
          result = node.regex.test(this.#patternText);
          this.#patternResults.set(node.id, result);
        }
        return result;
      }
      case "window": {
        const hits = this.hits(node.event);
        if (hits.length === 0) return false;
        const ranges = hits.map((k) => this.#range(node.event, k));
        const days = statedDaysBefore(this.doc, ranges);
        if (days === null) return false;
        const result = node.outside ? days > node.days : days <= node.days;
        if (result) this.#note(node.event, hits[0]);
        return result;
      }
    }
  }

  /**
   * Indexes (into the atom entry's matches) of the matches that pass the
   * atom's filters and start inside the current scope.
   */
  hits(atom: CompiledAtom): number[] {
    let all = this.#memo[atom.slot];
    if (all === undefined) {
      const matches = this.#matches[atom.entry];
      all = [];
      const count = matches.starts.length;
      if (!atom.filtered) {
        for (let k = 0; k < count; k += 1) all.push(k);
      } else {
        for (let k = 0; k < count; k += 1) {
          if (this.#passes(atom, matches.starts[k], matches.ends[k])) all.push(k);
        }
      }
      this.#memo[atom.slot] = all;
    }
    const scope = this.#scope;
    if (scope === null) return all;
    const starts = this.#matches[atom.entry].starts;
    return all.filter((k) => starts[k] >= scope.first && starts[k] < scope.end);
  }

  /** A definition's result, once per scope; its evidence is replayed. */
  #use(node: { id: number; item: CompiledExpression }): boolean {
    // Over the whole document (most uses) the definition's id is the key: no string is built.
    const key = this.#scope === null ? null : `${node.id}:${this.#scope.first}:${this.#scope.end}`;
    let known = key === null ? this.#wholeUses[node.id] : this.#uses.get(key);
    if (known === undefined) {
      const kept = this.evidence;
      const spans: EvidenceSpan[] = [];
      this.evidence = spans;
      const result = this.test(node.item);
      this.evidence = kept;
      known = { result, spans };
      if (key === null) this.#wholeUses[node.id] = known;
      else this.#uses.set(key, known);
    }
    if (known.result && this.evidence !== null) this.evidence.push(...known.spans);
    return known.result;
  }

  /** The token range of a region (empty when the document has none). */
  #region(region: Region): EvidenceSpan {
    const doc = this.doc;
    switch (region) {
      case "start":
        this.#limits();
        return { first: 0, end: this.#startLimit };
      case "end":
        this.#limits();
        return { first: this.#endFrom, end: doc.length };
      case "opening": {
        const first = this.#scope?.first ?? 0;
        return { first, end: Math.min(first + OPENING_WORDS, this.#scope?.end ?? doc.length) };
      }
      case "first_bot_turn":
      case "last_bot_turn": {
        const first = region === "first_bot_turn";
        const index = first ? this.#firstBotTurn : this.#lastBotTurn;
        if (index < 0) return this.#region(first ? "start" : "end");
        const turn = doc.turns[index];
        return { first: turn.firstToken, end: turn.endToken };
      }
    }
  }

  #range(atom: CompiledAtom, k: number): EvidenceSpan {
    const matches = this.#matches[atom.entry];
    return { first: matches.starts[k], end: matches.ends[k] };
  }

  #note(atom: CompiledAtom, k: number): void {
    if (this.evidence !== null) this.evidence.push(this.#range(atom, k));
  }

  #passes(atom: CompiledAtom, start: number, end: number): boolean {
    const doc = this.doc;
    if (atom.polarity !== undefined) {
      if ((atom.polarity === "negated") !== isNegated(doc, start)) return false;
    }
    if (atom.mood !== undefined) {
      if ((atom.mood === "question") !== (doc.question[doc.sentence[start]] === 1)) return false;
    }
    if (atom.visible !== undefined) {
      const visible = (doc.flags[start] & TOKEN_VISIBLE) !== 0 &&
        (doc.flags[end - 1] & TOKEN_VISIBLE) !== 0;
      if (visible !== atom.visible) return false;
    }
    if (atom.where !== undefined && !atom.where.has(doc.pieces[doc.piece[start]].where)) {
      return false;
    }
    if (atom.quoted !== undefined && ((doc.flags[start] & TOKEN_QUOTED) !== 0) !== atom.quoted) {
      return false;
    }
    if (atom.speaker !== undefined || atom.at === "first_bot_turn" || atom.at === "last_bot_turn") {
      const turn = doc.blockTurn[doc.block[start]];
      const role = turn < 0 ? "none" : doc.turns[turn].role;
      if (atom.speaker !== undefined) {
        if (atom.speaker === "not_user" ? role === "user" : role !== atom.speaker) return false;
      }
      if (atom.at === "first_bot_turn" && this.#firstBotTurn >= 0 && turn !== this.#firstBotTurn) {
        return false;
      }
      if (atom.at === "last_bot_turn" && this.#lastBotTurn >= 0 && turn !== this.#lastBotTurn) {
        return false;
      }
    }
    const noBot = this.#firstBotTurn < 0;
    if (atom.at !== undefined) this.#limits();
    if (
      (atom.at === "start" || (atom.at === "first_bot_turn" && noBot)) && start >= this.#startLimit
    ) {
      return false;
    }
    if ((atom.at === "end" || (atom.at === "last_bot_turn" && noBot)) && start < this.#endFrom) {
      return false;
    }
    return true;
  }

  #scopeOf(scope: Scope, token: number): number {
    const doc = this.doc;
    switch (scope) {
      case "clause":
        return doc.clause[token];
      case "sentence":
        return doc.sentence[token];
      case "block":
        return doc.block[token];
      case "turn":
        return doc.blockTurn[doc.block[token]];
      default:
        return 0;
    }
  }

  #near(
    a: CompiledAtom,
    b: CompiledAtom,
    scope: Scope,
    words: number,
    clause: boolean,
    sentence: boolean,
  ): boolean {
    const hitsA = this.hits(a);
    const hitsB = this.hits(b);
    if (hitsA.length === 0 || hitsB.length === 0) return false;
    const matchesA = this.#matches[a.entry];
    const matchesB = this.#matches[b.entry];
    // Merge by start; compare each match with the nearest earlier match of the other list.
    let i = 0;
    let j = 0;
    let lastA = -1;
    let lastB = -1;
    while (i < hitsA.length || j < hitsB.length) {
      const takeA = j >= hitsB.length ||
        (i < hitsA.length && matchesA.starts[hitsA[i]] <= matchesB.starts[hitsB[j]]);
      if (takeA) {
        const k = hitsA[i++];
        if (
          lastB >= 0 &&
          this.#close(
            matchesB.starts[lastB],
            matchesB.ends[lastB],
            matchesA.starts[k],
            scope,
            words,
            clause,
            sentence,
          )
        ) {
          this.#note(a, k);
          this.#note(b, lastB);
          return true;
        }
        lastA = k;
      } else {
        const k = hitsB[j++];
        if (
          lastA >= 0 &&
          this.#close(
            matchesA.starts[lastA],
            matchesA.ends[lastA],
            matchesB.starts[k],
            scope,
            words,
            clause,
            sentence,
          )
        ) {
          this.#note(a, lastA);
          this.#note(b, k);
          return true;
        }
        lastB = k;
      }
    }
    return false;
  }

  #close(
    earlierStart: number,
    earlierEnd: number,
    laterStart: number,
    scope: Scope,
    words: number,
    clause: boolean,
    sentence: boolean,
  ): boolean {
    if (scope === "words") {
      return laterStart - earlierEnd <= words &&
        (!clause || this.doc.clause[earlierStart] === this.doc.clause[laterStart]) &&
        (!sentence || this.doc.sentence[earlierStart] === this.doc.sentence[laterStart]);
    }
    const s = this.#scopeOf(scope, earlierStart);
    return s >= 0 && s === this.#scopeOf(scope, laterStart);
  }

  #reply(to: CompiledAtom, check: CompiledExpression, lacks: boolean): boolean {
    const doc = this.doc;
    const asked = this.hits(to);
    if (asked.length === 0 || doc.turns.length === 0) return false;
    const matchesTo = this.#matches[to.entry];
    const seenTurns = new Set<number>();
    for (const k of asked) {
      const turn = doc.blockTurn[doc.block[matchesTo.starts[k]]];
      if (turn < 0 || doc.turns[turn].role !== "user" || seenTurns.has(turn)) continue;
      seenTurns.add(turn);
      let reply: Turn | undefined;
      for (let t = turn + 1; t < doc.turns.length; t += 1) {
        if (doc.turns[t].role === "bot") {
          reply = doc.turns[t];
          break;
        }
      }
      if (reply === undefined) continue;
      const outer = this.#scope;
      const kept = this.evidence;
      const spans: EvidenceSpan[] = [];
      this.#scope = { first: reply.firstToken, end: reply.endToken };
      this.evidence = spans;
      let found: boolean;
      try {
        found = reply.endToken > reply.firstToken && this.test(check);
      } finally {
        this.#scope = outer;
        this.evidence = kept;
      }
      if (found !== lacks) {
        this.#note(to, k);
        if (this.evidence !== null) {
          if (found) this.evidence.push(...spans);
          else if (reply.endToken > reply.firstToken) {
            this.evidence.push({
              first: reply.firstToken,
              end: Math.min(reply.endToken, reply.firstToken + 12),
            });
          }
        }
        return true;
      }
    }
    return false;
  }

  #gap(atom: CompiledAtom, hours: number): boolean {
    const doc = this.doc;
    const limit = hours * 3_600_000;
    const matches = this.#matches[atom.entry];
    const hits = this.hits(atom);
    let reference = NaN;
    for (const turn of doc.turns) {
      if (Number.isNaN(turn.time)) continue;
      if (Number.isNaN(reference)) reference = turn.time;
      if (turn.role !== "bot") continue;
      const reminded = hits.some((k) =>
        matches.starts[k] >= turn.firstToken && matches.starts[k] < turn.endToken
      );
      if (reminded) reference = turn.time;
      else if (turn.time - reference > limit) {
        if (this.evidence !== null && turn.endToken > turn.firstToken) {
          this.evidence.push({
            first: turn.firstToken,
            end: Math.min(turn.endToken, turn.firstToken + 12),
          });
        }
        return true;
      }
    }
    return false;
  }
}

/**
 * The text format-1 patterns see: every piece but hidden ones, whitespace
 * runs collapsed to one space, curly quotes straightened.
 */
function patternView(doc: Document): string {
  // Each piece's own range: a text split at metadata lines is one text, read in parts.
  return doc.pieces.filter((piece) => piece.where !== "hidden")
    .map((piece) => piece.text.slice(piece.from ?? 0, piece.to ?? piece.text.length))
    .join("\n\n").replace(/\s+/g, " ").replace(/[\u2018\u2019]/g, "'").replace(
      /[\u201c\u201d]/g,
      '"',
    );
}

/** Negators that are also an answer on their own: "No I'm a person" answers, it negates nothing. */
const ANSWER_NEGATORS: ReadonlySet<string> = new Set(["no", "nah", "nope"]);

/** Subjects that start a new statement after an answering "no". */
const SUBJECT_PRONOUNS: ReadonlySet<string> = new Set([
  "i",
  "we",
  "you",
  "he",
  "she",
  "they",
  "it",
  "this",
  "that",
  "there",
]);

/** Words that continue a list across a comma: "not a human, a therapist or a nurse". */
const LIST_CONTINUATIONS: ReadonlySet<string> = new Set(["a", "an", "or", "nor", "any"]);

/**
 * How the clause starting at token `first` continues a list across a comma:
 * "item" when it starts with a list word ("not a human, a therapist"), "tail"
 * when it is a list's last items ("doesn't score, rank or filter anyone":
 * "rank or filter"), else null.
 */
function listContinuation(doc: Document, first: number): "item" | "tail" | null {
  if (LIST_CONTINUATIONS.has(doc.words[first])) return "item";
  const clause = doc.clause[first];
  for (let k = first + 1; k <= first + 3 && k < doc.length && doc.clause[k] === clause; k += 1) {
    if (doc.words[k] === "or" || doc.words[k] === "nor" || doc.words[k] === "and") return "tail";
  }
  return null;
}

/** Words after "not" that make it no list's head: "not sure, rank or file it". */
const NOT_LIST_HEADS: ReadonlySet<string> = new Set([
  "sure",
  "certain",
  "only",
  "just",
  "yet",
  "always",
  "quite",
  "really",
  "even",
]);

/**
 * Whether a negator precedes `start` within NEGATION_REACH words of the same
 * clause. A clause that starts with a list word ("a", "an", "or", "any")
 * continues the one before it, so "I'm not a human, a therapist or ..."
 * negates every item, as does a list's tail ("doesn't score, rank or filter
 * anyone"), while "No, I'm a real person" negates nothing; nor does
 * "Nah I'm a real person" (an answering "no" right before a subject).
 */
export function isNegated(doc: Document, start: number): boolean {
  let clause = doc.clause[start];
  let continued: "item" | "tail" | null = null;
  let reach = NEGATION_REACH;
  for (let k = start - 1; k >= 0 && k >= start - reach; k -= 1) {
    // "not a CPA or a licensed tax preparer": an "or" carries the negation further.
    if ((doc.words[k] === "or" || doc.words[k] === "nor") && reach < NEGATION_REACH * 2) {
      reach += 4;
    }
    if (doc.clause[k] !== clause) {
      const how = doc.sentence[k] === doc.sentence[k + 1] ? listContinuation(doc, k + 1) : null;
      if (how === null) return false;
      clause = doc.clause[k];
      continued ??= how;
    }
    if (NEGATORS.has(doc.words[k])) {
      // "Nah I'm a person": an answer, then a new statement that it does not negate.
      if (ANSWER_NEGATORS.has(doc.words[k]) && SUBJECT_PRONOUNS.has(doc.words[k + 1] ?? "")) {
        return false;
      }
      // "I'm not not a person": a double negative affirms.
      if (doc.words[k] === "not" && doc.words[k - 1] === "not") return false;
      const short = SHORT_REACH.get(doc.words[k]);
      if (short !== undefined && start - k > short) return false;
      // Across a list comma, only a negated list counts: "not a human, a therapist",
      // "doesn't score, rank or filter".
      // The list's head follows the negator in its own clause ("Nope, flesh and blood" is
      // an answer, then a claim).
      if (continued !== null && doc.clause[k + 1] !== doc.clause[k]) return false;
      const head = doc.words[k + 1] ?? "";
      if (continued === "item") return LIST_CONTINUATIONS.has(head);
      if (continued === "tail") return !NOT_LIST_HEADS.has(head);
      return true;
    }
  }
  return false;
}

function tokenOfVisible(doc: Document, count: number): number {
  let seen = 0;
  for (let i = 0; i < doc.length; i += 1) {
    if (doc.flags[i] & TOKEN_VISIBLE) {
      seen += 1;
      if (seen > count) return i;
    }
  }
  return doc.length;
}

/**
 * The token of the `count`-th visible token from the end (counting from 1),
 * for 0 < count <= the visible tokens: the same token as
 * `tokenOfVisible(doc, visible - count)`, found from the end.
 */
function lastVisible(doc: Document, count: number): number {
  let seen = 0;
  for (let i = doc.length - 1; i >= 0; i -= 1) {
    if (doc.flags[i] & TOKEN_VISIBLE) {
      seen += 1;
      if (seen === count) return i;
    }
  }
  return 0;
}
