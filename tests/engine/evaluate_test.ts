import assert from "node:assert/strict";
import {
  compileRulebook,
  evaluate,
  loadSeedRulebook,
  MAX_EXCERPT_CHARS,
  readHtml,
  type Rule,
  validateRulebook,
} from "../../shared/engine/mod.ts";
import { excerptAround } from "../../shared/engine/evidence_excerpt.ts";

function rule(overrides: Partial<Rule> & { rule_key: string }): Rule {
  return {
    applies_to: ["content"],
    jurisdictions: ["ALL"],
    industries: [],
    detector: { any: ["trigger"] },
    severity: "warning",
    weight: 10,
    tier_key: "tier3_standard",
    citation: `Code §${overrides.rule_key}`,
    penalty_usd: 1000,
    statute_codes: null,
    title: `Title ${overrides.rule_key}`,
    plain_english: "Explanation.",
    category: "test",
    remediation_title: `Fix ${overrides.rule_key}`,
    remediation: "Recommendation.",
    ...overrides,
  };
}

function book(rules: Rule[]) {
  return compileRulebook(validateRulebook({ version: 1, rules }));
}

function keys(result: { findings: { rule_key: string }[] }): string[] {
  return result.findings.map((finding) => finding.rule_key).sort();
}

const filtering = book([
  rule({ rule_key: "cross_state", detector: { any: ["alpha"] } }),
  rule({ rule_key: "california", jurisdictions: ["CA"], detector: { any: ["alpha"] } }),
  rule({
    rule_key: "texas_health",
    jurisdictions: ["TX"],
    industries: ["healthcare"],
    detector: { any: ["alpha"] },
  }),
  rule({ rule_key: "website_only", applies_to: ["website"], detector: { any: ["alpha"] } }),
]);

Deno.test("evaluate() filters by jurisdiction: a state gets its rules and ALL rules", () => {
  assert.deepEqual(
    keys(evaluate(filtering, { content: "alpha", jurisdiction: "CA", surface: "content" })),
    [
      "california",
      "cross_state",
    ],
  );
  assert.deepEqual(
    keys(evaluate(filtering, { content: "alpha", jurisdiction: "NY", surface: "content" })),
    [
      "cross_state",
    ],
  );
});

Deno.test("evaluate() with jurisdiction ALL applies the rules of every jurisdiction", () => {
  assert.deepEqual(
    keys(evaluate(filtering, { content: "alpha", jurisdiction: "ALL", surface: "content" })),
    [
      "california",
      "cross_state",
      "texas_health",
    ],
  );
});

Deno.test("evaluate() filters by industry; no industry means all rules", () => {
  const input = { content: "alpha", jurisdiction: "TX", surface: "content" } as const;
  assert.deepEqual(keys(evaluate(filtering, { ...input, industry: "healthcare" })), [
    "cross_state",
    "texas_health",
  ]);
  assert.deepEqual(keys(evaluate(filtering, { ...input, industry: "retail" })), ["cross_state"]);
  assert.deepEqual(keys(evaluate(filtering, input)), ["cross_state", "texas_health"]);
});

Deno.test("evaluate() filters by surface", () => {
  assert.deepEqual(
    keys(evaluate(filtering, { content: "alpha", jurisdiction: "ALL", surface: "website" })),
    [
      "website_only",
    ],
  );
  assert.deepEqual(
    keys(evaluate(filtering, { content: "alpha", jurisdiction: "ALL", surface: "transcript" })),
    [],
  );
});

const matching = book([
  rule({ rule_key: "ai_word", detector: { any: ["ai"] } }),
  rule({ rule_key: "multi_word", detector: { any: ["i'm a real person"] } }),
  rule({
    rule_key: "any_all_none",
    detector: {
      any: ["buy now"],
      all: ["discount", { pattern: "\\$\\d{1,4}" }],
      none: ["sponsored content"],
    },
  }),
]);
const at = (content: string) =>
  keys(evaluate(matching, { content, jurisdiction: "ALL", surface: "content" }));

Deno.test("phrases match whole words only, case-insensitively, across whitespace and hyphens", () => {
  assert.deepEqual(at("She said it was fine."), []);
  assert.deepEqual(at("Built with AI."), ["ai_word"]);
  assert.deepEqual(at("AI-powered"), ["ai_word"]);
  assert.deepEqual(at("I’m   a\nREAL person"), ["multi_word"]);
  assert.deepEqual(at("I'm a real-person"), ["multi_word"]);
  assert.deepEqual(at("I'm a real. Person"), [], "a phrase does not span punctuation");
  assert.deepEqual(at("I'm a real\n\nperson"), [], "a phrase does not span a blank line");
});

Deno.test("detector semantics: some any, every all, no none", () => {
  assert.deepEqual(at("Buy now"), []);
  assert.deepEqual(at("Buy now: discount"), []);
  assert.deepEqual(at("Buy now: discount, only $25"), ["any_all_none"]);
  assert.deepEqual(at("Buy now: discount, only $25. Sponsored content."), []);
});

Deno.test("evaluate() extracts visible text and alt/aria-label/meta attributes from HTML", async () => {
  const compiled = compileRulebook(await loadSeedRulebook(1));
  const input = { jurisdiction: "CA", industry: "healthcare", surface: "website" } as const;
  const visible = evaluate(compiled, {
    ...input,
    content: "<div><p>Meet Ava, your <b>AI nurse</b>.</p></div>",
  });
  assert.ok(visible.findings.some((f) => f.rule_key === "ca_ab489_ai_implies_license"));
  const alt = evaluate(compiled, {
    ...input,
    content: '<p>Welcome</p><img src="a.png" alt="Your AI nurse Ava">',
  });
  assert.ok(alt.findings.some((f) => f.rule_key === "ca_ab489_ai_implies_license"));
  const aria = evaluate(compiled, {
    ...input,
    content: '<button aria-label="Chat with our AI therapist">Chat</button>',
  });
  assert.ok(aria.findings.some((f) => f.rule_key === "ca_ab489_ai_implies_license"));
  const meta = evaluate(compiled, {
    ...input,
    content:
      '<html><head><meta property="og:description" content="Ask Dr. Bot anything"></head><body>Hi</body></html>',
  });
  assert.ok(meta.findings.some((f) => f.rule_key === "ca_ab489_ai_implies_license"));
  const script = evaluate(compiled, {
    ...input,
    content:
      '<p>Welcome to the clinic</p><script>const title = "AI nurse";</script><style>.ai-nurse{}</style>',
  });
  assert.equal(script.verdict, "GREEN");
  const hidden = evaluate(compiled, {
    ...input,
    content: "<p>Welcome</p><div hidden>Your AI nurse</div>",
  });
  assert.equal(hidden.verdict, "GREEN");
});

Deno.test("readHtml() separates blocks so phrases do not join across elements", () => {
  const { document } = readHtml("<ul><li>Nurse</li><li>Bot features</li></ul><p>Hel<b>lo</b></p>");
  assert.deepEqual(document.words, ["nurse", "bot", "features", "hello"]);
  assert.notEqual(document.block[0], document.block[1], "list items are separate blocks");
  const compiled = book([rule({ rule_key: "nurse_bot", detector: { any: ["nurse bot"] } })]);
  const result = evaluate(compiled, {
    content: "<ul><li>Nurse</li><li>Bot features</li></ul>",
    jurisdiction: "ALL",
    surface: "content",
  });
  assert.equal(result.findings.length, 0);
});

const scoring = book([
  rule({ rule_key: "w10", weight: 10, detector: { any: ["w10"] } }),
  rule({ rule_key: "w15", weight: 15, detector: { any: ["w15"] } }),
  rule({ rule_key: "w40", weight: 40, detector: { any: ["w40"] } }),
  rule({ rule_key: "w90", weight: 90, detector: { any: ["w90"] } }),
  rule({ rule_key: "crit", weight: 5, severity: "critical", detector: { any: ["crit"] } }),
]);
const score = (content: string) =>
  evaluate(scoring, { content, jurisdiction: "ALL", surface: "content" });

Deno.test("scoring: GREEN with no findings, YELLOW for warnings, RED for critical or score >= 60", () => {
  const none = score("nothing here");
  assert.deepEqual([none.verdict, none.risk_score, none.penalty_exposure_usd], ["GREEN", 0, 0]);
  assert.deepEqual(none.statutes, []);
  assert.deepEqual(none.remediation, []);
  const low = score("w10");
  assert.deepEqual([low.verdict, low.risk_score], ["YELLOW", 10]);
  const mid = score("w10 w40");
  assert.deepEqual([mid.verdict, mid.risk_score], ["YELLOW", 50]);
  const high = score("w10 w40 w15");
  assert.deepEqual([high.verdict, high.risk_score], ["RED", 65]);
  const critical = score("crit");
  assert.deepEqual([critical.verdict, critical.risk_score], ["RED", 5]);
  const capped = score("w90 w40 w15");
  assert.equal(capped.risk_score, 100);
  assert.deepEqual(capped.findings.map((f) => f.rule_key), ["w90", "w40", "w15"]);
  assert.deepEqual(score("w10 crit").findings.map((f) => f.rule_key), ["crit", "w10"]);
  assert.deepEqual(score("w10").remediation, [{
    rule_key: "w10",
    title: "Fix w10",
    recommendation: "Recommendation.",
  }]);
});

Deno.test("statutes are deduplicated by citation and the exposure sums the distinct statutes", () => {
  const compiled = book([
    rule({ rule_key: "one", citation: "Shared §1", penalty_usd: 1000, detector: { any: ["one"] } }),
    rule({
      rule_key: "two",
      citation: "Shared §1",
      penalty_usd: 5000,
      tier_key: "tier2_significant",
      detector: { any: ["two"] },
    }),
    rule({
      rule_key: "three",
      citation: "Other §3",
      penalty_usd: 2000,
      detector: { any: ["three"] },
    }),
  ]);
  const result = evaluate(compiled, {
    content: "one two three",
    jurisdiction: "ALL",
    surface: "content",
  });
  assert.equal(result.findings.length, 3);
  assert.equal(result.remediation.length, 3);
  assert.deepEqual(result.statutes.map((s) => s.citation).sort(), ["Other §3", "Shared §1"]);
  const shared = result.statutes.find((s) => s.citation === "Shared §1");
  assert.deepEqual(shared, {
    tier_key: "tier2_significant",
    citation: "Shared §1",
    penalty_usd: 5000,
  });
  assert.equal(result.penalty_exposure_usd, 7000);
});

Deno.test("evaluate() handles 30,000 characters and keeps evidence excerpts short", async () => {
  const compiled = compileRulebook(await loadSeedRulebook(1));
  const filler =
    "Our friendly team ships fresh coffee beans every week to customers across the country. ";
  const content = (filler.repeat(400) + "Meet Ava, your AI nurse.").slice(-30_000);
  assert.equal(content.length, 30_000);
  const result = evaluate(compiled, {
    content,
    jurisdiction: "CA",
    industry: "healthcare",
    surface: "content",
  });
  const finding = result.findings.find((f) => f.rule_key === "ca_ab489_ai_implies_license");
  assert.ok(finding);
  for (const item of finding.evidence) {
    assert.ok(item.excerpt.length <= MAX_EXCERPT_CHARS, item.excerpt);
    assert.match(item.excerpt, /AI nurse/);
    assert.equal(item.match, "AI nurse");
  }
  assert.equal(result.verdict, "RED");
});

Deno.test("evaluate() runs format-1 patterns on the content's text", () => {
  const compiled = book([
    rule({ rule_key: "price", detector: { any: [{ pattern: "\\$\\d{1,4}" }] } }),
  ]);
  const result = evaluate(compiled, {
    content: "Only   $42 today",
    jurisdiction: "ALL",
    surface: "content",
  });
  assert.deepEqual(result.findings.map((f) => f.rule_key), ["price"]);
});

Deno.test("evaluate() matches a document once, however many jurisdictions read it", async () => {
  const compiled = compileRulebook(await loadSeedRulebook());
  const { readMessages } = await import("../../shared/engine/document/read.ts");
  const doc = readMessages([
    { sender: "user", text: "are you a bot?" },
    { sender: "bot", text: "No, I am a real person on the team." },
  ]);
  const match = compiled.lexicon.match.bind(compiled.lexicon);
  let calls = 0;
  compiled.lexicon.match = (d) => {
    calls += 1;
    return match(d);
  };
  const findings = (["CA", "NY", "TX"] as const).map((jurisdiction) =>
    evaluate(compiled, { document: doc, jurisdiction, surface: "transcript" }).findings.length
  );
  assert.equal(calls, 1);
  assert.ok(findings.every((n) => n > 0), "each jurisdiction still judges the denial");
  evaluate(compiled, {
    document: readMessages([{ sender: "bot", text: "hi" }]),
    jurisdiction: "CA",
    surface: "transcript",
  });
  assert.equal(calls, 2, "a new document is matched afresh");
});

Deno.test("evidence excerpts collapse every kind of whitespace run to one space", () => {
  for (const gap of ["  ", "\t", "\n", "\r\n", "\n\n", "\u00a0", " \u2003 ", "\u3000"]) {
    const text = `Meet Ava,${gap}our AI nurse.`;
    const start = text.indexOf("AI");
    assert.equal(excerptAround(text, start, start + 2), "Meet Ava, our AI nurse.", `gap ${[gap]}`);
  }
  // Single spaces only: the text as it is, trimmed.
  const plain = "  Meet Ava, our AI nurse.  ";
  assert.equal(excerptAround(plain, 17, 19), "Meet Ava, our AI nurse.");
});
