/**
 * The detector language of rulebook format 2: concepts, atoms and
 * expressions, as zod schemas with the types inferred from them.
 *
 * A **concept** is a named lexicon shared by the rules of a rulebook:
 * `{ "terms": [...] }`, or `{ "statement": "..." }` for wording a statute
 * prescribes. A term is words separated by spaces; a word may list
 * alternatives (`bot|chatbot`) or end in `*` to match any word it begins
 * (`licens*`, at least three letters); a group in parentheses lists phrase
 * alternatives (`(virtual assistant|chatbot)`); a word or group ending in `?`
 * is optional (`a|an?`, `(real|live)?`). Terms are folded like the content
 * (case, Unicode, contractions), so `i'm` and `I am` are the same term.
 *
 * An **atom** names a concept (or gives inline `terms`) plus filters on where
 * a match may be: its polarity (negated by a preceding "not", "no",
 * "never"... in the same clause), mood (in a question), visibility, place,
 * quotation, speaker and position.
 *
 * An **expression** combines atoms: `has`, `count`, `near`, `all`, `any`,
 * `not`; `use` names a definition (an expression defined once per rulebook);
 * `in` confines a test to a region (the opening or closing words, the first
 * or last bot turn); dialogue checks (`reply`, `gap`); the document's kind
 * (`is`); and the stated timing of an event (`window`). Every expression is
 * evaluated in time linear in the content: there is no regular expression in
 * format 2.
 *
 * @module
 */
import { z } from "zod";

/** Longest term, in characters. */
export const MAX_TERM_CHARS = 400;
/** Most sequences one term may expand to (alternatives times optional words). */
export const MAX_TERM_EXPANSIONS = 1024;
/** Largest `near` window, in words. */
export const MAX_NEAR_WORDS = 60;
/** Deepest expression nesting. */
export const MAX_EXPRESSION_DEPTH = 12;
/** Most expression nodes in one rule's detector. */
export const MAX_EXPRESSION_NODES = 300;

const TERM = /^[\p{L}\p{N}\p{P}\p{S} ]+$/u;

/**
 * A concept or a rule's inline term: printable characters and spaces.
 * Punctuation other than the operators `|`, `*` and `?` separates words, as
 * it does in content ("401(k)" reads "401 k").
 */
export const termSchema = z.string().min(1).max(MAX_TERM_CHARS).regex(
  TERM,
  "a term holds printable characters and spaces only",
);

/** A named concept of a rulebook. */
export const conceptSchema = z.union([
  z.strictObject({
    description: z.string().min(1).max(300),
    terms: z.array(termSchema).min(1).max(500),
  }),
  z.strictObject({
    description: z.string().min(1).max(300),
    statement: z.string().min(1).max(400),
  }),
]);

/** Concept names: snake_case. */
export const conceptNameSchema = z.string().regex(/^[a-z][a-z0-9_]{1,60}$/);

/** Where a match may sit (document.ts). */
export const WHERES = ["text", "attribute", "meta", "hidden", "tiny"] as const;

const filters = {
  /** "negated": preceded in its clause by a negator; "affirmed": not. */
  polarity: z.enum(["affirmed", "negated"]).optional(),
  /** "question": in a sentence ending with "?"; "statement": not. */
  mood: z.enum(["statement", "question"]).optional(),
  /** true: visible text only; false: anywhere but visible text. */
  visible: z.boolean().optional(),
  /** Only in these places. */
  where: z.array(z.enum(WHERES)).min(1).optional(),
  /** true: inside double quotes only; false: outside them only. */
  quoted: z.boolean().optional(),
  /**
   * Only in turns of this speaker: "bot", "user", "none" (outside any turn:
   * plain text, a script, copy) or "not_user" (a bot turn or outside any turn).
   */
  speaker: z.enum(["bot", "user", "none", "not_user"]).optional(),
  /**
   * Position: "start" / "end" (the opening or closing words of the content),
   * "first_bot_turn" / "last_bot_turn" (of a dialogue).
   */
  at: z.enum(["start", "end", "first_bot_turn", "last_bot_turn"]).optional(),
};

/** An atom: a concept by name, or with filters, or inline terms with filters. */
export const atomSchema = z.union([
  conceptNameSchema,
  z.strictObject({ concept: conceptNameSchema, ...filters }),
  z.strictObject({ terms: z.array(termSchema).min(1).max(200), ...filters }),
]);
export type Atom = z.infer<typeof atomSchema>;

/**
 * How close two atoms must be for `near`: in the same clause, sentence,
 * block or turn; or within a number of words (and, with `clause: true` or
 * `sentence: true`, in the same clause or sentence too).
 */
export const withinSchema = z.union([
  z.enum(["clause", "sentence", "block", "turn"]),
  z.strictObject({
    words: z.int().min(0).max(MAX_NEAR_WORDS),
    clause: z.boolean().optional(),
    sentence: z.boolean().optional(),
  }),
]);

/**
 * Parts of a document an expression can be confined to with `in`: the
 * opening or closing words of the content ("start", "end"), the first or last
 * bot turn of a dialogue (the start or end of a content that is not one), and
 * the first four words of the current region ("opening": the first words of a
 * reply, inside `reply`).
 */
export const REGIONS = ["start", "end", "first_bot_turn", "last_bot_turn", "opening"] as const;

/** An expression of the detector language. */
export type Expression =
  | { has: Atom }
  | { count: Atom; min: number; per?: number }
  | { near: [Atom, Atom]; within: z.infer<typeof withinSchema> }
  | { all: Expression[] }
  | { any: Expression[] }
  | { not: Expression }
  | { use: string }
  | { in: (typeof REGIONS)[number]; test: Expression }
  | { reply: { to: Atom; lacks?: Expression; has?: Expression } }
  | { gap: { atom: Atom; hours: number } }
  | { is: "dialogue" | "html" | "text" }
  | { window: { event: Atom; days: number; side: "inside" | "outside" } };

export const expressionSchema: z.ZodType<Expression> = z.lazy(() =>
  z.union([
    z.strictObject({ has: atomSchema }),
    z.strictObject({
      count: atomSchema,
      min: z.int().min(1).max(50),
      /** Scale `min` with length: at least `min` matches per `per` words (and never fewer than `min`). */
      per: z.int().min(20).max(10_000).optional(),
    }),
    z.strictObject({ near: z.tuple([atomSchema, atomSchema]), within: withinSchema }),
    z.strictObject({ all: z.array(expressionSchema).min(1).max(30) }),
    z.strictObject({ any: z.array(expressionSchema).min(1).max(30) }),
    z.strictObject({ not: expressionSchema }),
    z.strictObject({ use: conceptNameSchema }),
    z.strictObject({ in: z.enum(REGIONS), test: expressionSchema }),
    z.strictObject({
      reply: z.strictObject({
        to: atomSchema,
        lacks: expressionSchema.optional(),
        has: expressionSchema.optional(),
      }).refine(
        (r) => (r.lacks === undefined) !== (r.has === undefined),
        "reply needs lacks or has",
      ),
    }),
    z.strictObject({
      gap: z.strictObject({ atom: atomSchema, hours: z.number().min(0.25).max(240) }),
    }),
    z.strictObject({ is: z.enum(["dialogue", "html", "text"]) }),
    z.strictObject({
      window: z.strictObject({
        event: atomSchema,
        days: z.int().min(1).max(366),
        side: z.enum(["inside", "outside"]),
      }),
    }),
  ])
);

/**
 * A format-2 detector. The rule is not applicable unless `applies` holds (or
 * is omitted) and `exempt` does not; when applicable it is triggered when
 * `violation` holds, and passed otherwise.
 */
export const detectorV2Schema = z.strictObject({
  kind: z.literal("v2"),
  applies: expressionSchema.optional(),
  exempt: expressionSchema.optional(),
  violation: expressionSchema,
});
export type DetectorV2 = z.infer<typeof detectorV2Schema>;
export type Concept = z.infer<typeof conceptSchema>;
