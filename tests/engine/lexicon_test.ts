/**
 * The lexicon's one-pass trie matcher and its narrowed views, against a naive
 * matcher that tries every expanded term sequence at every token; and
 * narrowing by jurisdiction and industry, against matching the whole lexicon.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  compileRulebook,
  type Document,
  evaluate,
  expandTerm,
  INDUSTRIES,
  JURISDICTIONS,
  Lexicon,
  loadSeedRulebook,
  readContent,
  SURFACES,
  termWords,
} from "../../shared/engine/mod.ts";
import { type Matches, termFirstWords } from "../../shared/engine/lexicon.ts";
import { plainLiteralWords } from "../../shared/engine/document/builder.ts";

/** Words of a small vocabulary, so that generated terms and texts meet often. */
const WORDS = ["ai", "bot", "not", "human", "real", "person", "nurse", "chat", "chatbot", "we"];
const word = fc.constantFrom(...WORDS);

/** Whether a generated term is well formed (expandTerm reads it). */
function expandable(term: string): boolean {
  try {
    expandTerm(term);
    return true;
  } catch {
    return false;
  }
}

/** A term part: a word, a prefix (`hum*`), alternatives, a phrase group; maybe optional. */
const part = fc.tuple(
  fc.oneof(
    word,
    fc.constantFrom("hum*", "chat*", "per*", "bot*"),
    fc.array(word, { minLength: 2, maxLength: 3 }).map((alts) => alts.join("|")),
    fc.tuple(fc.array(word, { minLength: 1, maxLength: 2 }), word).map(([phrase, alt]) =>
      `(${phrase.join(" ")}|${alt})`
    ),
    // A group with a group inside one of its phrases, maybe optional there.
    fc.tuple(word, word, word, word, fc.boolean()).map(([a, b, c, d, inner]) =>
      `(${a} (${b}|${c})${inner ? "?" : ""}|${d})`
    ),
  ),
  fc.boolean(),
).map(([body, optional]) => optional && !body.endsWith("*") ? `${body}?` : body);
const term = fc.array(part, { minLength: 1, maxLength: 4 }).map((parts) => parts.join(" "))
  .filter(expandable);
const entries = fc.array(fc.array(term, { minLength: 1, maxLength: 3 }), {
  minLength: 1,
  maxLength: 8,
});
const text = fc.array(
  fc.oneof(
    { weight: 6, arbitrary: word },
    fc.constantFrom("human-like", "Chatbots", "persons", "Bot.", "AI?", "not!", "\n\n"),
  ),
  { maxLength: 120 },
).map((words) => words.join(" "));

/** Every entry's matches by brute force: each sequence at each token, within one sentence. */
function naiveMatch(termsOf: readonly string[][], doc: Document): Matches[] {
  return termsOf.map((terms) => {
    const sequences = terms.flatMap((t) => expandTerm(t));
    const longest = new Map<number, number>();
    for (let i = 0; i < doc.length; i += 1) {
      for (const sequence of sequences) {
        const end = i + sequence.length;
        if (end > doc.length || doc.sentence[end - 1] !== doc.sentence[i]) continue;
        const fits = sequence.every((p, k) =>
          p.prefix ? doc.words[i + k].startsWith(p.word) : doc.words[i + k] === p.word
        );
        if (fits && end > (longest.get(i) ?? -1)) longest.set(i, end);
      }
    }
    const starts = [...longest.keys()].sort((a, b) => a - b);
    return { starts, ends: starts.map((s) => longest.get(s) as number) };
  });
}

const plain = (m: Matches) => ({ starts: [...m.starts], ends: [...m.ends] });

Deno.test("Lexicon.match() finds exactly what trying every term at every word finds", () => {
  fc.assert(
    fc.property(entries, text, (termsOf, content) => {
      const lexicon = new Lexicon();
      for (const terms of termsOf) lexicon.add(terms);
      const doc = readContent(content);
      assert.deepEqual(lexicon.match(doc).map(plain), naiveMatch(termsOf, doc));
    }),
    { numRuns: 300 },
  );
});

/**
 * Wide terms: four to six parts, most of them groups of many alternatives;
 * some parts optional, some a prefix. The texts are made of the terms' own
 * sequences, cut short and run together with other words, so that matches
 * and near misses are certain. One lexicon reads several texts in turn: the
 * trie inserts a term's later parts only below the nodes a match reaches
 * (Trie.insert), so each text meets a trie the texts before it left half
 * built.
 */
const widePart = fc.tuple(
  fc.oneof(
    { weight: 4, arbitrary: fc.uniqueArray(word, { minLength: 3, maxLength: 9 }) },
    { weight: 1, arbitrary: word.map((w) => [w]) },
    { weight: 1, arbitrary: fc.constantFrom(["hum*"], ["chat*"], ["per*"]) },
  ),
  fc.boolean(),
).map(([alternatives, optional]) => {
  const body = alternatives.length === 1 ? alternatives[0] : `(${alternatives.join("|")})`;
  return optional && !body.endsWith("*") ? `${body}?` : body;
});
const wideTerm = fc.array(widePart, { minLength: 4, maxLength: 6 }).map((parts) => parts.join(" "))
  .filter(expandable);

Deno.test("Lexicon.match() finds exactly what trying every sequence finds, for terms of many alternatives", () => {
  fc.assert(
    fc.property(
      fc.array(fc.array(wideTerm, { minLength: 1, maxLength: 2 }), { minLength: 1, maxLength: 4 }),
      fc.array(
        fc.array(fc.tuple(fc.nat(), fc.nat(), fc.nat(6), fc.array(word, { maxLength: 2 })), {
          minLength: 1,
          maxLength: 12,
        }),
        { minLength: 1, maxLength: 3 },
      ),
      (termsOf, texts) => {
        const sequences = termsOf.flat().flatMap((t) => expandTerm(t));
        const lexicon = new Lexicon();
        for (const terms of termsOf) lexicon.add(terms);
        for (const picks of texts) {
          // Each pick: one sequence, maybe cut short, then a word or two of noise.
          const content = picks.map(([which, prefixWord, cut, noise]) => {
            const sequence = sequences[which % sequences.length];
            const words = sequence.map((p) =>
              p.prefix ? `${p.word}${"ans".slice(0, prefixWord % 3)}` : p.word
            );
            return [...words.slice(0, words.length - (cut > 4 ? 1 : 0)), ...noise].join(" ");
          }).join(" ");
          const doc = readContent(content);
          assert.deepEqual(lexicon.match(doc).map(plain), naiveMatch(termsOf, doc), content);
        }
      },
    ),
    { numRuns: 200 },
  );
});

Deno.test("a narrowed lexicon view matches its entries as the whole lexicon does, and nothing else", () => {
  fc.assert(
    fc.property(
      entries,
      text,
      fc.array(fc.nat(7), { maxLength: 8 }),
      (termsOf, content, picked) => {
        const lexicon = new Lexicon();
        for (const terms of termsOf) lexicon.add(terms);
        const doc = readContent(content);
        const whole = lexicon.match(doc);
        const chosen = new Set(picked.filter((id) => id < termsOf.length));
        const view = lexicon.view(chosen);
        if (chosen.size === termsOf.length) assert.equal(view, null, "all entries: no view");
        const narrowed = lexicon.match(doc, view);
        for (let id = 0; id < termsOf.length; id += 1) {
          assert.deepEqual(
            plain(narrowed[id]),
            chosen.has(id) ? plain(whole[id]) : { starts: [], ends: [] },
            `entry ${id}`,
          );
        }
        assert.equal(lexicon.view(chosen), view, "one view per set of entries");
      },
    ),
    { numRuns: 300 },
  );
});

Deno.test("narrowing to a jurisdiction's and industry's rules never changes an evaluation", async () => {
  const compiled = compileRulebook(await loadSeedRulebook());
  // Phrases that rules of many jurisdictions read, in random order and amount.
  const phrase = fc.constantFrom(
    "Hi, I'm Dr. Ava, a licensed nurse. ",
    "I am not a bot, I'm a real person. ",
    "This assistant is an AI chatbot. ",
    "Are you a human? ",
    "Based on your browsing history, your personal price is $42. ",
    "Paid for by Citizens for Progress. This video was generated with AI. ",
    "If you are thinking about suicide, call or text 988. ",
    "<p class='sr' style='font-size:6px'>AI assistant</p>",
    "User: are you a real person?\nBot: yes, I'm a human agent.\n",
    "We may record and use your voice to train our models. ",
  );
  const input = fc.record({
    content: fc.array(phrase, { minLength: 1, maxLength: 12 }).map((p) => p.join("")),
    jurisdiction: fc.constantFrom(...JURISDICTIONS),
    industry: fc.option(fc.constantFrom(...INDUSTRIES), { nil: undefined }),
    surface: fc.constantFrom(...SURFACES),
  });
  const at = new Date("2026-11-22T12:00:00Z");
  fc.assert(
    fc.property(input, ({ content, jurisdiction, industry, surface }) => {
      const options = { jurisdiction, surface, at, ...(industry ? { industry } : {}) };
      // Content read by evaluate() is matched against its candidates' view; a document passed
      // in is matched against the whole lexicon.
      const { document: _narrowDoc, ...narrowed } = evaluate(compiled, { content, ...options });
      const { document: _wholeDoc, ...whole } = evaluate(compiled, {
        document: readContent(content),
        ...options,
      });
      assert.deepEqual(narrowed, whole);
    }),
    { numRuns: 400 },
  );
});

Deno.test("termWords() splits a plain literal as a document reads it, for every literal of the seed rulebook", async () => {
  const seed = await loadSeedRulebook();
  const literals = new Set<string>(["u", "ur", "im", "dont", "medibot", "robots", "cannot"]);
  for (const concept of Object.values(seed.concepts ?? {})) {
    for (const term of "terms" in concept ? concept.terms : []) {
      for (const alternative of term.replace(/[()?*]/g, " ").split("|")) {
        literals.add(alternative.trim().replace(/\s+/g, " "));
      }
    }
  }
  let plain = 0;
  for (const literal of literals) {
    if (literal === "") continue;
    const read = readContent(literal).words;
    if (plainLiteralWords(literal) !== null) plain += 1;
    assert.deepEqual(termWords(literal), read, JSON.stringify(literal));
  }
  // The fast path is the common one (and the one this test is about).
  assert.ok(plain > literals.size / 2, `${plain} of ${literals.size} literals were plain`);
});

Deno.test("termFirstWords() names every word a term's sequences start with, for every seed term", async () => {
  for (const version of [3, 4]) {
    const seed = await loadSeedRulebook(version);
    for (const concept of Object.values(seed.concepts ?? {})) {
      const literal = "statement" in concept;
      for (const term of literal ? [concept.statement] : concept.terms) {
        const sequences = expandTerm(term, { literal });
        const first = termFirstWords(term, literal);
        if (sequences.some((sequence) => sequence[0].prefix)) {
          assert.equal(first, null, term);
          continue;
        }
        assert.deepEqual(
          new Set(first),
          new Set(sequences.map((sequence) => sequence[0].word)),
          term,
        );
      }
    }
  }
});

Deno.test("a group may hold groups: each phrase is expanded, and the first words follow it", () => {
  const sequences = (term: string) =>
    expandTerm(term).map((sequence) => sequence.map((p) => p.word).join(" ")).sort();
  assert.deepEqual(sequences("sent (to the (patient)? portal)? automatically"), [
    "sent automatically",
    "sent to the patient portal automatically",
    "sent to the portal automatically",
  ]);
  assert.deepEqual(sequences("(really (him|her)|human)"), ["human", "really her", "really him"]);
  assert.deepEqual(termFirstWords("((the)? nurse|rn) bot")?.sort(), ["nurse", "rn", "the"]);

  const lexicon = new Lexicon();
  const portal = lexicon.add(["(released|sent) (to the (patient)? portal)? automatically"]);
  const found = lexicon.match(readContent("Results are sent to the patient portal automatically."));
  assert.equal(found[portal].starts.length, 1, "the inner optional word is read");
});

Deno.test("a group left open or a ')' that closes none is refused, naming the term", () => {
  assert.throws(() => expandTerm("(does not|never) say ) that it is ai"), /closes no group/);
  assert.throws(() => expandTerm("(tell (users|callers) that it is ai"), /unclosed group/);
  assert.throws(() => termFirstWords("say|mention ) that"), /closes no group/);
});

Deno.test("termFirstWords() follows optional groups, a ? inside a group, nested groups, and refuses a malformed rest", () => {
  const cases: [string, string[]][] = [
    ["(ai|virtual assistant) (bot|agent)", ["ai", "virtual"]],
    ["bot|chatbot reply", ["bot", "chat"]],
    ["you (are|r) a bot", ["you"]],
    ["(ai-powered|auto reply) text", ["ai", "auto"]],
    ["(ai|bot)? writer", ["ai", "bot", "writer"]],
    ["(ai|bot?) writer", ["ai", "bot", "writer"]],
    ["bot? (writer|helper)", ["bot", "writer", "helper"]],
    ["(ai (powered)?|bot) text", ["ai", "bot"]],
    ["(u|you) are", ["you"]],
    ["(1|one) bot", ["1", "one"]],
  ];
  for (const [term, words] of cases) {
    assert.deepEqual(new Set(termFirstWords(term)), new Set(words), term);
    const sequences = expandTerm(term);
    assert.deepEqual(new Set(termFirstWords(term)), new Set(sequences.map((s) => s[0].word)), term);
  }
  // A rest that is malformed is refused even when the first part is plain.
  assert.throws(() => termFirstWords("(ai|bot) (writer"), /unclosed group/);
  assert.throws(() => termFirstWords("ai|bot writer)"), /closes no group/);
});
