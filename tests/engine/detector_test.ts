/**
 * The format-2 detector language, rule by rule, on small rulebooks built here.
 */
import assert from "node:assert/strict";
import {
  compileRulebook,
  evaluate,
  type EvaluationInput,
  type Expression,
  RulebookError,
  type RuleOutcome,
  validateRulebook,
} from "../../shared/engine/mod.ts";

const STATUTES = [
  {
    id: "XX-SPECIFIC",
    jurisdiction: "CA",
    citation: "Specific Act §1",
    effective: "2020-01-01",
    penalty_usd: 2500,
    penalty_basis: "Up to $2,500 per violation (§2).",
    tier_key: "tier2_significant",
  },
  {
    id: "XX-BACKSTOP",
    jurisdiction: "CA",
    citation: "Consumer Act §9",
    effective: "1970-01-01",
    penalty_usd: 2500,
    penalty_basis: "Up to $2,500 per violation.",
    tier_key: "tier2_significant",
    backstop: true,
  },
  {
    id: "XX-FUTURE",
    jurisdiction: "CA",
    citation: "Future Act §1",
    effective: "2099-01-01",
    penalty_usd: 1000,
    penalty_basis: "Up to $1,000.",
    tier_key: "tier3_standard",
  },
  {
    id: "XX-CROSS",
    jurisdiction: "ALL",
    citation: "Specific Act §1; Consumer Act §9",
    effective: "2020-01-01",
    penalty_usd: 2500,
    penalty_basis: "The lowest maximum named.",
    tier_key: "tier2_significant",
  },
];

const CONCEPTS = {
  ai: {
    description: "AI words",
    terms: ["ai", "bot|chatbot", "(virtual assistant|language model)"],
  },
  human: { description: "Human words", terms: ["human", "real person"] },
  self: { description: "Self reference", terms: ["i am", "this is"] },
  asks: { description: "Asking", terms: ["are you a|an? (bot|ai|human)"] },
  yes: { description: "Yes", terms: ["yes"] },
  licence: { description: "Prefixes", terms: ["licens*", "nurse practitioner?"] },
  reminder: { description: "Reminder", terms: ["i am an ai"] },
  election: { description: "Election", terms: ["election"] },
  exact: { description: "A prescribed statement", statement: "THIS PRICE WAS SET BY AN ALGORITHM" },
  news: { description: "Discussion", terms: ["law", "reported", "statute"] },
};

function rule(
  key: string,
  detector: Record<string, Expression>,
  extra: Record<string, unknown> = {},
) {
  return {
    rule_key: key,
    applies_to: ["content", "transcript", "website"],
    jurisdictions: ["CA"],
    industries: [],
    detector: { kind: "v2", ...detector },
    severity: "warning",
    weight: 10,
    statute_ids: ["XX-SPECIFIC"],
    concern: `concern_${key}`,
    statute_codes: null,
    title: `Title ${key}`,
    plain_english: "Explanation.",
    category: "test",
    remediation_title: `Fix ${key}`,
    remediation: "Recommendation.",
    ...extra,
  };
}

function book(rules: unknown[], definitions: Record<string, Expression> = {}) {
  return compileRulebook(validateRulebook({
    version: 7,
    format: 2,
    statutes: STATUTES,
    concepts: CONCEPTS,
    definitions,
    rules,
  }));
}

function outcome(
  compiled: ReturnType<typeof book>,
  input: Partial<EvaluationInput>,
  key = "r",
): RuleOutcome {
  const result = evaluate(compiled, {
    jurisdiction: "CA",
    surface: "content",
    at: new Date("2026-11-22T00:00:00Z"),
    ...input,
  });
  const found = result.outcomes.find((o) => o.rule_key === key);
  assert.ok(found, `no outcome for ${key}`);
  return found;
}
const status = (compiled: ReturnType<typeof book>, content: string, key = "r") =>
  outcome(compiled, { content }, key).status;

Deno.test("terms: alternatives, optional words, groups, prefixes and folding", () => {
  const ai = book([rule("r", { violation: { has: "ai" } })]);
  for (
    const text of ["a BOT", "our chatbot", "a Virtual Assistant", "large language model", "A.I."]
  ) {
    assert.equal(status(ai, text), "triggered", text);
  }
  assert.equal(status(ai, "said it was fine"), "passed", "whole words only");
  const licence = book([rule("r", { violation: { has: "licence" } })]);
  for (const text of ["Licensed", "licensure", "a nurse", "Nurse Practitioner"]) {
    assert.equal(status(licence, text), "triggered", text);
  }
  const asks = book([rule("r", { violation: { has: "asks" } })]);
  for (const text of ["are you a bot?", "Are you an AI", "are you human"]) {
    assert.equal(status(asks, text), "triggered", text);
  }
  assert.equal(status(asks, "are you sure"), "passed");
});

Deno.test("polarity: 'not a bot' is a denial, and negation stops at a clause", () => {
  const denies = book([
    rule("r", { violation: { has: { concept: "ai", polarity: "negated" } } }),
  ]);
  assert.equal(status(denies, "I am not a bot."), "triggered");
  assert.equal(status(denies, "I'm definitely not an AI"), "triggered");
  assert.equal(status(denies, "this isn't a chatbot"), "triggered");
  assert.equal(status(denies, "No, I am a bot."), "passed", "the comma ends the negation");
  assert.equal(status(denies, "No. I am a bot."), "passed", "'No.' ends a sentence");
  assert.equal(status(denies, "I am a bot."), "passed");
  assert.equal(status(denies, "I'm not not a bot lol"), "passed", "a double negative affirms");
  assert.equal(status(denies, "nah I'm a bot"), "passed", "an answering 'nah' before a subject");
  assert.equal(status(denies, "nope it is an AI"), "passed");
  assert.equal(status(denies, "no bot here"), "triggered", "'no' before a noun still negates");
  assert.equal(status(denies, "no I am not a bot"), "triggered", "the 'not' after it does");
  const verbs = book([
    rule("r", { violation: { has: { terms: ["rank|filter"], polarity: "negated" } } }),
  ]);
  assert.equal(
    status(verbs, "It doesn't score, rank or filter anyone."),
    "triggered",
    "a list's tail",
  );
  assert.equal(status(verbs, "Not sure, rank or filter them yourself."), "passed");
  assert.equal(status(verbs, "It scores, ranks or filters everyone."), "passed");
  const claims = book([
    rule("r", {
      violation: { has: { terms: ["flesh and blood"], polarity: "affirmed" } },
    }),
  ]);
  assert.equal(
    status(claims, "Nope, flesh and blood over here"),
    "triggered",
    "an answer, a claim",
  );
  const lists = book([
    rule("r", { violation: { has: { concept: "human", polarity: "affirmed" } } }),
  ]);
  assert.equal(status(lists, "I'm not a bot, a human or a ghost"), "passed", "a negated list");
  assert.equal(
    status(lists, "This is not a fully automated support desk or a human"),
    "passed",
    "an 'or' carries the negation past the usual five words",
  );
  assert.equal(
    status(denies, "answered without a bot"),
    "triggered",
    "'without' negates its object",
  );
  assert.equal(
    status(denies, "forwarded without consent to a bot"),
    "passed",
    "'without' does not reach past its short object to the rest of the clause",
  );
});

Deno.test("mood, visibility and place filters", () => {
  const statement = book([rule("r", { violation: { has: { concept: "ai", mood: "statement" } } })]);
  assert.equal(status(statement, "Are you a bot?"), "passed");
  assert.equal(status(statement, "I am a bot."), "triggered");
  const visible = book([rule("r", { violation: { has: { concept: "ai", visible: true } } })]);
  assert.equal(status(visible, "<p>Chat with our bot</p>"), "triggered");
  for (const html of ['<img alt="bot">', "<p hidden>bot</p>", '<p style="font-size:6px">bot</p>']) {
    assert.equal(status(visible, html), "passed", html);
  }
  const attribute = book([
    rule("r", { violation: { has: { concept: "ai", where: ["attribute"] } } }),
  ]);
  assert.equal(status(attribute, '<button aria-label="bot">Chat</button>'), "triggered");
});

Deno.test("near: within words, and the same clause, sentence, block or turn", () => {
  const words = book([rule("r", { violation: { near: ["self", "ai"], within: { words: 2 } } })]);
  assert.equal(status(words, "I am your AI"), "triggered");
  assert.equal(status(words, "I am happy to tell you that our bot"), "passed");
  const sentence = book([rule("r", { violation: { near: ["self", "ai"], within: "sentence" } })]);
  assert.equal(status(sentence, "I am, as you know, a bot."), "triggered");
  assert.equal(status(sentence, "I am here. A bot."), "passed");
  const clause = book([
    rule("r", { violation: { near: ["self", "ai"], within: { words: 5, clause: true } } }),
  ]);
  assert.equal(status(clause, "I am not sure; the bot"), "passed");
  const sameSentence = book([
    rule("r", { violation: { near: ["self", "ai"], within: { words: 4, sentence: true } } }),
  ]);
  assert.equal(status(sameSentence, "I am, as you know, a bot."), "triggered");
  assert.equal(status(sameSentence, "Thanks, I am. A bot will reply."), "passed");
  assert.equal(status(words, "Thanks, I am. A bot will reply."), "triggered");
});

Deno.test("dialogue: speakers, the first bot turn, replies to a question, and reminder gaps", () => {
  const firstTurn = book([
    rule("r", { violation: { not: { in: "first_bot_turn", test: { has: "ai" } } } }),
  ]);
  const disclosedLate = [
    { sender: "bot" as const, text: "Hi! How can I help?" },
    { sender: "user" as const, text: "shoes" },
    { sender: "bot" as const, text: "Sure. (I am a bot.)" },
  ];
  assert.equal(
    outcome(firstTurn, { messages: disclosedLate, surface: "transcript" }).status,
    "triggered",
  );
  assert.equal(
    outcome(firstTurn, {
      messages: [{ sender: "bot", text: "Hi, I'm a bot." }, ...disclosedLate.slice(1)],
      surface: "transcript",
    }).status,
    "passed",
  );

  const reply = book([
    rule("r", {
      violation: {
        reply: {
          to: { concept: "asks", speaker: "user" },
          lacks: { any: [{ has: "ai" }, { in: "opening", test: { has: "yes" } }] },
        },
      },
    }),
  ]);
  const asked = (answer: string) =>
    outcome(reply, {
      messages: [{ sender: "user", text: "are you a bot?" }, { sender: "bot", text: answer }],
      surface: "transcript",
    });
  assert.equal(asked("What matters is that I'm here for you!").status, "triggered", "evasion");
  assert.equal(asked("Yes, happy to help.").status, "passed");
  assert.equal(asked("I'm an AI assistant.").status, "passed");
  const evidence = asked("Let's keep going!").evidence;
  assert.deepEqual(evidence.map((e) => [e.speaker, e.turn]), [["user", 0], ["bot", 1]]);

  const gap = book([rule("r", { violation: { gap: { atom: "reminder", hours: 3 } } })]);
  const session = (second: string) =>
    outcome(gap, {
      messages: [
        { sender: "bot", text: "I am an AI.", timestamp: "2026-01-01T20:00:00Z" },
        { sender: "user", text: "hi", timestamp: "2026-01-01T20:01:00Z" },
        { sender: "bot", text: second, timestamp: "2026-01-01T23:30:00Z" },
      ],
      surface: "transcript",
    }).status;
  assert.equal(session("Still here!"), "triggered", "3.5 hours without a reminder");
  assert.equal(session("Reminder: I am an AI."), "passed");
});

Deno.test("window: the stated timing of an election", () => {
  const compiled = book([
    rule("r", {
      exempt: { window: { event: "election", days: 30, side: "outside" } },
      violation: { has: "election" },
    }),
  ]);
  const decided = (text: string) => outcome(compiled, { content: text });
  assert.equal(decided("Airs 40 days before the election.").status, "not_applicable");
  assert.equal(decided("Airs three weeks before the election.").status, "triggered");
  assert.equal(
    decided("Airs October 1, 2026. Election day: November 3, 2026.").status,
    "not_applicable",
  );
  assert.equal(decided("Airs Oct. 30. The election is Nov. 3.").status, "triggered");
  // The date next to the publishing word is the publishing date, whichever comes first.
  assert.equal(decided("Clip (posting Oct 10; election Nov 3).").status, "triggered");
  assert.equal(decided("Clip (posting Sep 1; election Nov 3).").status, "not_applicable");
  assert.equal(decided("Election Nov 3, mailer drops Oct 30.").status, "triggered");
  // An email's Date: header is when it was sent.
  assert.equal(
    decided("From: Ops\nDate: October 30, 2026\nSubject: ad\n\nThe election is Nov. 3.").status,
    "triggered",
  );
  assert.equal(
    decided("From: Ops\nDate: August 1, 2026\nSubject: ad\n\nThe election is Nov. 3.").status,
    "not_applicable",
  );
  assert.equal(
    decided("Election date: Nov 3. Airs Oct 30.").status,
    "triggered",
    "'Election date:' names the event, not a sending date",
  );
  assert.equal(decided("A video about the election.").status, "triggered", "unknown timing");
});

Deno.test("exact statements tolerate case and spacing, and refuse changed words", () => {
  const compiled = book([rule("r", { violation: { not: { has: "exact" } } })]);
  assert.equal(status(compiled, "$42 this price was set by an   algorithm"), "passed");
  assert.equal(status(compiled, "$42 THIS PRICE WAS SET BY AN ALGORITHM."), "passed");
  assert.equal(status(compiled, "$42 this price was set by algorithm"), "triggered");
  assert.equal(status(compiled, "$42 this price may be set by an algorithm"), "triggered");
});

Deno.test("applies, exempt, effective dates and precedence decide not_applicable", () => {
  const compiled = book([
    rule("scoped", { applies: { has: "election" }, violation: { has: "ai" } }),
    rule("exempted", { exempt: { count: "news", min: 2 }, violation: { has: "ai" } }),
    rule("future", { violation: { has: "ai" } }, { statute_ids: ["XX-FUTURE"] }),
    rule("specific", { violation: { has: "ai" } }, { concern: "identity" }),
    rule("backstop", { violation: { has: "ai" } }, {
      concern: "identity",
      statute_ids: ["XX-BACKSTOP"],
    }),
  ]);
  const result = evaluate(compiled, {
    content: "A bot, the law says, was reported.",
    jurisdiction: "CA",
    surface: "content",
    at: new Date("2026-11-22T00:00:00Z"),
  });
  const by = Object.fromEntries(result.outcomes.map((o) => [o.rule_key, o]));
  assert.deepEqual(
    [by.scoped.reason, by.exempted.reason, by.future.reason, by.backstop.reason],
    [
      "outside the statute's scope",
      "exempt",
      "not in force until 2099-01-01",
      "covered by specific",
    ],
  );
  assert.equal(by.specific.status, "triggered");
  assert.deepEqual(result.findings.map((f) => f.rule_key), ["specific"]);
  assert.deepEqual(result.findings[0].statute_ids, ["XX-SPECIFIC"]);
});

Deno.test("a cross-state rule answers only for jurisdiction ALL", () => {
  const compiled = book([
    rule("cross", { violation: { has: "ai" } }, {
      jurisdictions: ["ALL"],
      statute_ids: ["XX-CROSS"],
      concern: "identity",
    }),
    rule("state", { violation: { has: "ai" } }, { concern: "identity" }),
  ]);
  const keys = (jurisdiction: "CA" | "ALL") =>
    evaluate(compiled, { content: "a bot", jurisdiction, surface: "content" }).findings.map((f) =>
      f.rule_key
    );
  assert.deepEqual(keys("CA"), ["state"]);
  assert.deepEqual(keys("ALL"), ["cross"], "the cross-state rule covers the state's on ALL");
});

Deno.test("definitions are shared, may come in any order, and are cached per region", () => {
  const compiled = book(
    [
      rule("r", { violation: { all: [{ use: "b_outer" }, { not: { use: "a_inner" } }] } }),
      rule("s", { violation: { use: "a_inner" } }),
    ],
    {
      b_outer: { any: [{ use: "a_inner" }, { has: "human" }] },
      a_inner: { has: "ai" },
    },
  );
  assert.equal(status(compiled, "a real person", "r"), "triggered");
  assert.equal(status(compiled, "a bot", "r"), "passed");
  assert.equal(status(compiled, "a bot", "s"), "triggered");
});

Deno.test("count per: a signal must be dense in long content", () => {
  const compiled = book([rule("r", { violation: { count: "news", min: 2, per: 20 } })]);
  assert.equal(status(compiled, "The law, as reported."), "triggered");
  assert.equal(
    status(compiled, "The law, as reported. " + "Filler words here. ".repeat(40)),
    "passed",
  );
});

Deno.test("evidence quotes the original text and says where it was found", () => {
  const compiled = book([
    rule("r", { violation: { has: { concept: "ai", where: ["attribute"] } } }),
  ]);
  const result = outcome(compiled, { content: '<img alt="Our friendly BOT, Ava">' });
  assert.deepEqual(result.evidence, [{
    where: "attribute",
    label: "alt",
    match: "BOT",
    excerpt: "Our friendly BOT, Ava",
    offset: 13,
  }]);
});

Deno.test("validateRulebook() refuses a bad format-2 rulebook, naming the rule or concept", () => {
  const base = { version: 7, format: 2, statutes: STATUTES, concepts: CONCEPTS };
  const refuse = (document: unknown, pattern: RegExp) =>
    assert.throws(() => validateRulebook(document), (error: unknown) => {
      assert.ok(error instanceof RulebookError);
      assert.match(error.message, pattern);
      return true;
    });
  refuse(
    { ...base, rules: [rule("bad_one", { violation: { has: "nope" } })] },
    /Rule "bad_one".*unknown concept "nope"/,
  );
  refuse(
    {
      ...base,
      rules: [rule("bad_two", { violation: { has: "ai" } }, { statute_ids: ["XX-NONE"] })],
    },
    /Rule "bad_two": unknown statute id "XX-NONE"/,
  );
  refuse(
    {
      ...base,
      rules: [rule("bad_three", { violation: { has: "ai" } }, { jurisdictions: ["TX"] })],
    },
    /Rule "bad_three": jurisdictions must be \["CA"\]/,
  );
  refuse(
    { ...base, rules: [rule("bad_four", { violation: { has: "ai" } }, { penalty_usd: 99 })] },
    /Rule "bad_four": penalty_usd 99 differs/,
  );
  let deep: Expression = { has: "ai" };
  for (let i = 0; i < 20; i += 1) deep = { not: deep };
  refuse(
    { ...base, rules: [rule("bad_five", { violation: deep })] },
    /Rule "bad_five".*nests deeper/,
  );
  refuse(
    {
      ...base,
      concepts: {
        ...CONCEPTS,
        huge: {
          description: "x",
          terms: ["a|b|c|d|e|f|g|h a|b|c|d|e|f|g|h a|b|c|d|e|f|g|h a|b|c|d"],
        },
      },
      rules: [rule("ok", { violation: { has: "ai" } })],
    },
    /Concept "huge".*expands to more than/,
  );
  refuse(
    {
      ...base,
      definitions: { one: { use: "two" }, two: { use: "one" } },
      rules: [rule("ok", { violation: { use: "one" } })],
    },
    /cycle: one -> two -> one/,
  );
  refuse(
    { ...base, rules: [rule("bad_six", { violation: { has: { pattern: "a+" } } as never })] },
    /rule "bad_six"/,
  );
});

Deno.test("evidence: what the violation found comes before what brought the rule into scope", () => {
  const compiled = book([rule("r", { applies: { has: "human" }, violation: { has: "ai" } })]);
  const result = outcome(compiled, {
    content: "A human wrote this. Another human checked it. A third human signed it. We use a bot.",
  });
  assert.equal(result.status, "triggered");
  assert.equal(result.evidence[0].match, "bot");
  assert.ok(result.evidence.length <= 3);
});

Deno.test("the same atom in many rules is compiled once", () => {
  const compiled = book([
    rule("r", { violation: { has: { concept: "ai", polarity: "negated" } } }),
    rule("s", { violation: { has: { concept: "ai", polarity: "negated" } } }),
    rule("t", { violation: { all: [{ has: "ai" }, { has: "ai" }] } }),
  ]);
  assert.equal(compiled.slots, 2, "one slot per distinct atom");
  assert.equal(status(compiled, "I am not a bot.", "s"), "triggered");
});

Deno.test("quoted: text between double quotes, and an inch mark is not a quote", () => {
  const unquoted = book([rule("r", { violation: { has: { concept: "ai", quoted: false } } })]);
  assert.equal(status(unquoted, 'The article says "I am a bot" often.'), "passed");
  assert.equal(status(unquoted, 'Our 27" monitor is here. Chat with our bot.'), "triggered");
});

Deno.test("dialogue: reply.has, the last bot turn, the end, and 'within: turn'", () => {
  const transcript = (...texts: [string, string][]) =>
    texts.map(([sender, text]) => ({ sender: sender as "bot" | "user", text }));
  const replyHas = book([
    rule("r", {
      violation: { reply: { to: { concept: "asks", speaker: "user" }, has: { has: "human" } } },
    }),
  ]);
  const ask = (answer: string) =>
    outcome(replyHas, {
      messages: transcript(["user", "are you a bot?"], ["bot", answer]),
      surface: "transcript",
    }).status;
  assert.equal(ask("I'm a real person."), "triggered");
  assert.equal(ask("I'm an AI."), "passed");

  const lastTurn = book([rule("r", { violation: { in: "last_bot_turn", test: { has: "ai" } } })]);
  const closing = (last: string) =>
    outcome(lastTurn, {
      messages: transcript(["bot", "I'm a bot."], ["user", "ok"], ["bot", last]),
      surface: "transcript",
    }).status;
  assert.equal(closing("Bye from your bot."), "triggered");
  assert.equal(closing("Bye!"), "passed", "the first turn's words are not the last turn's");

  const end = book([rule("r", { violation: { in: "end", test: { has: "ai" } } })]);
  assert.equal(status(end, `A bot. ${"Plain words here. ".repeat(60)}`), "passed");
  assert.equal(status(end, `${"Plain words here. ".repeat(60)}Sent by a bot.`), "triggered");

  const sameTurn = book([rule("r", { violation: { near: ["self", "ai"], within: "turn" } })]);
  const turns = (...texts: [string, string][]) =>
    outcome(sameTurn, { messages: transcript(...texts), surface: "transcript" }).status;
  assert.equal(turns(["bot", "This is Sam. Long day? Our bot can help."]), "triggered");
  assert.equal(turns(["bot", "This is Sam."], ["bot", "A bot can help."]), "passed");
});

Deno.test("the opening and closing words are the first and last 60 visible words, exactly", () => {
  // 100 words: the window is max(60, 8%) = 60, so the opening is words 0-59, the closing 40-99.
  const text = (at: number) =>
    Array.from({ length: 100 }, (_, k) => k === at ? "bot" : `w${k}x`).join(" ") + ".";
  const opening = book([rule("r", { violation: { in: "start", test: { has: "ai" } } })]);
  const closing = book([rule("r", { violation: { in: "end", test: { has: "ai" } } })]);
  const atStart = book([rule("r", { violation: { has: { concept: "ai", at: "start" } } })]);
  const atEnd = book([rule("r", { violation: { has: { concept: "ai", at: "end" } } })]);
  for (
    const [at, inOpening, inClosing] of [
      [0, true, false],
      [39, true, false],
      [40, true, true],
      [
        59,
        true,
        true,
      ],
      [60, false, true],
      [99, false, true],
    ] as const
  ) {
    const expect = (yes: boolean) => yes ? "triggered" : "passed";
    assert.equal(status(opening, text(at)), expect(inOpening), `in start, word ${at}`);
    assert.equal(status(atStart, text(at)), expect(inOpening), `at start, word ${at}`);
    assert.equal(status(closing, text(at)), expect(inClosing), `in end, word ${at}`);
    assert.equal(status(atEnd, text(at)), expect(inClosing), `at end, word ${at}`);
  }
});
