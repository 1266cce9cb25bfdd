import assert from "node:assert/strict";
import { Lexicon } from "../../shared/engine/lexicon.ts";
import {
  type Document,
  readContent,
  readHtml,
  readMessages,
  readText,
} from "../../shared/engine/mod.ts";

const words = (doc: Document) => [...doc.words];
/** The original text of each token, from its offsets. */
const originals = (doc: Document) =>
  [...doc.words.keys()].map((i) => doc.pieces[doc.piece[i]].text.slice(doc.start[i], doc.end[i]));

/** Where a document's first occurrence of a word sits ("text", "hidden", ...), or "absent". */
function placeOf(doc: Document, word: string): string {
  const i = doc.words.indexOf(word);
  return i < 0 ? "absent" : doc.pieces[doc.piece[i]].where;
}

Deno.test("readText() folds case, NFKC forms, look-alikes, zero-width characters and entities", () => {
  const doc = readText(
    "ＢＯＴ bоt h\u200Buman so\u00ADft I&#39;m A&amp;B &nbsp;ok “Nurse” — e\u0301clair",
  );
  assert.deepEqual(words(doc), [
    "bot",
    "bot",
    "human",
    "soft",
    "i",
    "am",
    "a",
    "b",
    "ok",
    "nurse",
    "eclair",
  ]);
});

Deno.test("readText() keeps offsets into the original text, so evidence quotes it", () => {
  const text = "Hi! I&#39;m ＡＶＡ, a real per\u200Bson.";
  const doc = readText(text);
  assert.deepEqual(originals(doc), [
    "Hi",
    "I&#39;m",
    "I&#39;m",
    "ＡＶＡ",
    "a",
    "real",
    "per\u200Bson",
  ]);
});

Deno.test("readText() expands contractions, joins dotted acronyms and splits compound names", () => {
  assert.deepEqual(
    words(readText("I'm not. Isn't it? Can't! It's A.I. and R.N. NurseBot RNBot medibot robot")),
    [
      "i",
      "am",
      "not",
      "is",
      "not",
      "it",
      "can",
      "not",
      "it",
      "is",
      "ai",
      "and",
      "rn",
      "nurse",
      "bot",
      "rn",
      "bot",
      "medi",
      "bot",
      "robot",
    ],
  );
  assert.deepEqual(words(readText("im a b0t, dont ask. u there? gUaRaNtEeD")), [
    "i",
    "am",
    "a",
    "bot",
    "do",
    "not",
    "ask",
    "you",
    "there",
    "guaranteed",
  ]);
  // A product name ending in "AI" or "GPT" names an AI; capitals alone or inside a word do not split.
  assert.deepEqual(
    words(readText("SentinelAI, JusticeGPT and NurseBOT, not MAIN or Thailand or OpenAIs")),
    [
      "sentinel",
      "ai",
      "justice",
      "gpt",
      "and",
      "nurse",
      "bot",
      "not",
      "main",
      "or",
      "thailand",
      "or",
      "openais",
    ],
  );
});

Deno.test("readText() ends no sentence at a title abbreviation or a dotted acronym's last dot", () => {
  const sentences = (text: string) => new Set(readText(text).sentence).size;
  assert.equal(sentences("Ask C.N.A. Carebot about meals."), 1);
  assert.equal(sentences("Signed, Dana Cole, Atty. Kline & Co."), 1);
  assert.equal(sentences("Ask the R.N.\n\nNext paragraph."), 2, "a blank line still ends it");
  assert.equal(sentences("Ask the nurse. Carebot answers."), 2);
  assert.equal(
    sentences("The statement is read in 1.5 seconds. It costs $14.99 for 12.5 hours."),
    2,
    "decimals",
  );
  assert.equal(sentences("Version 2. 5 people use it."), 2, "a spaced point still ends one");
});

Deno.test("readText() finds sentences, questions, clauses and blocks", () => {
  const doc = readText(
    "Are you a bot? No, Dr. Smith is human\nstill the same sentence\n\nNew block.",
  );
  const at = (word: string) => doc.words.indexOf(word);
  assert.equal(doc.question[doc.sentence[at("bot")]], 1, "a question");
  assert.equal(doc.question[doc.sentence[at("smith")]], 0);
  assert.equal(doc.sentence[at("dr")], doc.sentence[at("smith")], "no sentence end after Dr.");
  assert.notEqual(doc.clause[at("no")], doc.clause[at("dr")], "a comma ends a clause");
  assert.equal(
    doc.sentence[at("human")],
    doc.sentence[at("still")],
    "a line break is not a sentence end",
  );
  assert.notEqual(doc.clause[at("human")], doc.clause[at("still")], "but it ends a clause");
  assert.notEqual(doc.block[at("still")], doc.block[at("new")], "a blank line starts a block");
});

Deno.test("readText() reads a chat export as a dialogue with speakers", () => {
  const doc = readText(
    "Customer: are you real?\nAva: Yes, I'm here to help!\nCustomer: ok\nAva: great",
  );
  assert.equal(doc.kind, "dialogue");
  assert.deepEqual(doc.turns.map((turn) => turn.role), ["user", "bot", "user", "bot"]);
  const first = doc.turns[1];
  assert.deepEqual(doc.words.slice(first.firstToken, first.endToken), [
    "yes",
    "i",
    "am",
    "here",
    "to",
    "help",
  ]);
  assert.equal(
    readText("Subject: hello\nNote: see below").kind,
    "text",
    "labels that are not speakers",
  );
});

Deno.test("readText() reads a brief's fields as text, and a two-line chat excerpt as dialogue", () => {
  assert.equal(
    readText("Client: Acme Homes\nAudience: first-time buyers\nDeliverable: 30s video").kind,
    "text",
    "three labels, each once, none a bot's: fields",
  );
  assert.equal(readText("User: are you real?\nAmorae: of course, babe").kind, "dialogue");
  assert.equal(
    readText("Customer: hi\nAva: hello\nCustomer: are you a bot?\nAva: no").kind,
    "dialogue",
  );
});

Deno.test("readText() ends a turn at a narration line, so nobody else's words are the bot's", () => {
  const doc = readText(
    "User: are you a person?\nBot: I'm an AI assistant.\nNote: the agent then typed as Dana.\n" +
      "Manager: I am a real person.\nUser: ok",
  );
  assert.deepEqual(doc.turns.map((turn) => turn.role), ["user", "bot", "user"]);
  const bot = doc.turns[1];
  assert.deepEqual(doc.words.slice(bot.firstToken, bot.endToken), [
    "i",
    "am",
    "an",
    "ai",
    "assistant",
  ]);
  // The narration and the third speaker are plain text of no turn, their labels kept.
  for (const word of ["note", "dana", "manager", "real"]) {
    const at = doc.words.indexOf(word);
    assert.ok(at >= 0, word);
    assert.equal(doc.blockTurn[doc.block[at]], -1, `${word} is in no turn`);
  }
});

Deno.test("readText() keeps workflow metadata lines apart from the message", () => {
  const doc = readText(
    "Status: drafted by our AI assistant\n\nHi Jordan, your results are normal.",
  );
  const status = doc.words.indexOf("drafted");
  assert.equal(doc.pieces[doc.piece[status]].where, "meta");
  assert.equal(doc.pieces[doc.piece[doc.words.indexOf("jordan")]].where, "text");
});

Deno.test("readText() reads a line that is only a bracketed stage direction as a production note", () => {
  const doc = readText(
    "Subject: The clip\n\n[VIDEO: his remarks redone with AI]\n" +
      "[Image: on-screen text reads AI-generated]\nWatch it [image: alt pictured] now.",
  );
  const whereOf = (word: string) => {
    const piece = doc.pieces[doc.piece[doc.words.indexOf(word)]];
    return `${piece.where}${piece.label ? ` (${piece.label})` : ""}`;
  };
  assert.equal(whereOf("remarks"), "meta (production note)", "what the asset shows is not shown");
  assert.equal(whereOf("reads"), "text", "a stage line that gives the words on screen stays text");
  assert.equal(whereOf("alt"), "text", "a bracket inside a line stays text");
  assert.equal(whereOf("watch"), "text");
});

Deno.test("readMessages() makes one turn per message, with its time", () => {
  const doc = readMessages([
    { sender: "bot", text: "Hi, I'm an AI.", timestamp: "2026-05-01T10:00:00Z" },
    { sender: "user", text: "ok" },
  ]);
  assert.equal(doc.kind, "dialogue");
  assert.equal(doc.turns[0].time, Date.parse("2026-05-01T10:00:00Z"));
  assert.ok(Number.isNaN(doc.turns[1].time));
  assert.notEqual(doc.block[0], doc.block[doc.turns[1].firstToken]);
});

Deno.test("readHtml() tells visible text from attributes, meta tags, hidden and tiny text", () => {
  const { document: doc, page } = readHtml(`<!doctype html><html><head>
    <title>Clinic</title><meta name="description" content="Meta words">
    <style>.sr{position:absolute;left:-9999px} .faint{color:#fefefe;background:#ffffff}</style></head>
    <body><h1>Visible words</h1><img src="x.png" alt="Alt words"><button aria-label="Aria words">Go</button>
    <p hidden>Hidden words</p><p style="display:none">None words</p><p style="font-size:7px">Tiny words</p>
    <span class="sr">Offscreen words</span><p class="faint">Faint words</p><!-- Comment words -->
    <script src="https://widget.intercom.io/w/abc" data-bot="assistant"></script>
    <a href="/privacy">Privacy</a><form action="/f"><input name="ssn" type="text"></form></body></html>`);
  assert.equal(placeOf(doc, "visible"), "text");
  assert.equal(placeOf(doc, "meta"), "meta");
  assert.equal(placeOf(doc, "clinic"), "meta", "the page title");
  assert.equal(placeOf(doc, "alt"), "attribute");
  assert.equal(placeOf(doc, "aria"), "attribute");
  assert.equal(placeOf(doc, "hidden"), "hidden");
  assert.equal(placeOf(doc, "none"), "hidden");
  assert.equal(placeOf(doc, "offscreen"), "hidden", "the screen-reader-only pattern");
  assert.equal(placeOf(doc, "tiny"), "tiny");
  assert.equal(placeOf(doc, "faint"), "tiny", "near-invisible colour");
  assert.equal(placeOf(doc, "comment"), "hidden");
  assert.equal(placeOf(doc, "intercom"), "hidden", "a script's source names its vendor");
  assert.equal(placeOf(doc, "assistant"), "hidden", "data-* attributes");
  assert.equal(page.title, "Clinic");
  assert.deepEqual(page.links, [{ href: "/privacy", text: "Privacy" }]);
  assert.equal(page.scripts[0].src, "https://widget.intercom.io/w/abc");
  assert.deepEqual(page.forms[0].fields.map((f) => f.name), ["ssn"]);
  assert.equal(placeOf(doc, "ssn"), "attribute", "a form field's name says what the form collects");
  assert.deepEqual(page.headings, [{ level: 1, text: "Visible words" }]);
});

Deno.test("readHtml() reads a frame's title, <noscript> as hidden, and meta tags but credentials", () => {
  const { document: doc } = readHtml(`<html><head>
    <meta name="chat-disclosure" content="Automated helper">
    <meta name="google-site-verification" content="tok3nvalue"><meta name="csrf-token" content="csrfvalue">
    </head><body><p>Shown</p><noscript><p>Fallback words</p></noscript>
    <iframe src="https://chat.example/w" title="Virtual agent frame"></iframe></body></html>`);
  assert.equal(placeOf(doc, "shown"), "text");
  assert.equal(placeOf(doc, "fallback"), "hidden", "a browser with scripts never shows <noscript>");
  assert.equal(placeOf(doc, "virtual"), "attribute", "an iframe's title");
  assert.equal(placeOf(doc, "automated"), "meta", "a meta tag of any name");
  assert.equal(placeOf(doc, "tok3nvalue"), "absent", "a verification token is never read");
  assert.equal(placeOf(doc, "csrfvalue"), "absent");
});

Deno.test("readHtml() shows a closed <details> only by its summary; an open one is visible", () => {
  const { document: doc } = readHtml(
    `<p>Ad copy</p><details><summary>Disclosures</summary><p>Folded words</p>Loose words</details>` +
      `<details open><summary>More</summary><p>Unfolded words</p></details>`,
  );
  assert.equal(placeOf(doc, "disclosures"), "text", "the summary is what a reader sees");
  assert.equal(placeOf(doc, "folded"), "hidden", "behind a click");
  assert.equal(placeOf(doc, "loose"), "hidden", "text directly inside the closed details");
  assert.equal(placeOf(doc, "unfolded"), "text");
  assert.equal(placeOf(doc, "more"), "text");
});

Deno.test("readHtml() reads a chat widget's configured greeting as shown text, other data-* as hidden", () => {
  const { document: doc } = readHtml(
    `<div id="chat" data-greeting="Hi, I am the shop's AI assistant" data-agent-name="Brooke"></div>`,
  );
  assert.equal(placeOf(doc, "assistant"), "text", "the first message a visitor sees");
  assert.equal(placeOf(doc, "brooke"), "hidden");
});

Deno.test("readHtml() names an inline widget loader's vendor by host, never reading its code", () => {
  const { document: doc } = readHtml(`<p>Shop</p><script>
    (function(){var s=document.createElement("script");s.src="https://js.driftt.com/include/x.js";
    var secretToken="abc"; window.botMessage="I am a human";document.head.appendChild(s);})();
  </script>`);
  const i = doc.words.indexOf("driftt");
  assert.ok(i >= 0, "the loader's host is read");
  assert.equal(doc.pieces[doc.piece[i]].where, "hidden");
  assert.equal(doc.words.indexOf("human"), -1, "string literals in the code are not read");
  assert.equal(doc.words.indexOf("secrettoken"), -1);
});

Deno.test("readText() split at metadata lines reads each part of the text once", () => {
  const text = "Status: ok\nHello there.\n".repeat(50);
  const doc = readText(text);
  const read = doc.pieces.reduce(
    (sum, piece) => sum + (piece.to ?? piece.text.length) - (piece.from ?? 0),
    0,
  );
  assert.ok(doc.pieces.length > 50, "a piece per metadata line");
  assert.ok(read <= text.length, `${read} characters read from a text of ${text.length}`);
});

Deno.test("readText() keeps ordinals as numbers, so dates stay readable", () => {
  const words = readText("Airs October 1st; election day is November 3rd, the 30th day.").words;
  for (const ordinal of ["1st", "3rd", "30th"]) assert.ok(words.includes(ordinal), ordinal);
  assert.ok(readText("a b0t").words.includes("bot"), "digits for letters still read as letters");
});

Deno.test("readText() reads every word as itself, and a repeated word as the same word", () => {
  // Many distinct words (so that many share a slot of the builder's word table), in mixed case,
  // each repeated; and long words whose codes in that table are equal ("zzzzzzzzzzy" and
  // "zzzzzzzzzzz" round to one number), which only their characters tell apart.
  const expected: string[] = [];
  let seed = 7;
  const next = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff);
  const alphabet = "abcdefghijklmnopqrstuvwxyz";
  for (let k = 0; k < 3000; k += 1) {
    let word = "";
    const length = 2 + next() % 14;
    // At least one letter up front: a run of digits alone may read differently (ordinals, leet).
    word += alphabet[next() % 26];
    while (word.length < length) word += alphabet[next() % 26];
    expected.push(word);
  }
  expected.push("zzzzzzzzzzy", "zzzzzzzzzzz", "zzzzzzzzzzzzy", "zzzzzzzzzzzzz");
  const text = expected.map((w, i) => i % 3 === 0 ? w.toUpperCase() : w).join(" ");
  const doc = readText(`${text} ${expected.join(" ")}`);
  assert.deepEqual(words(doc), [...expected, ...expected]);
  const n = expected.length;
  for (let i = 0; i < n; i += 1) {
    assert.equal(doc.wordId[i], doc.wordId[n + i], `"${expected[i]}" numbered once`);
  }
});

Deno.test("Lexicon.match() keeps every branch of a wide trie walk", () => {
  const lexicon = new Lexicon();
  const ids = Array.from({ length: 80 }, (_, i) => lexicon.add([`ab${"c".repeat(i + 1)}*`]));
  const matches = lexicon.match(readText(`ab${"c".repeat(90)}`));
  for (const id of ids) {
    assert.deepEqual([matches[id].starts, matches[id].ends], [[0], [1]], `entry ${id}`);
  }
});

Deno.test("readHtml() without page facts reads the same document", () => {
  const html =
    '<h1>Hi</h1><a href="/p">Privacy</a><form><input name="ssn"></form><p>Chat with our bot</p>';
  const full = readHtml(html);
  const lean = readHtml(html, { facts: false });
  assert.deepEqual(lean.document.words, full.document.words);
  assert.equal(full.page.links.length, 1);
  assert.deepEqual([lean.page.links, lean.page.headings], [[], []]);
});

Deno.test("readHtml() reads chat bubbles as dialogue turns", () => {
  const { document: doc } = readHtml(
    '<div class="msg user">are you a bot?</div><div class="msg bot">No, I am a person.</div>',
  );
  assert.deepEqual(doc.turns.map((turn) => turn.role), ["user", "bot"]);
});

Deno.test("readContent() picks HTML or text, and never throws on odd input", () => {
  assert.equal(readContent("<p>Hello</p>").kind, "html");
  assert.equal(readContent("a < b and c > d").kind, "text");
  for (
    const odd of ["", "\uD800", "<".repeat(1000), "&#xFFFFFFF;", "\u0000\u0001", "😀".repeat(100)]
  ) {
    readContent(odd);
  }
});
