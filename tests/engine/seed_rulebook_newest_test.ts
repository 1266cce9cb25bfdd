/**
 * The newest seed rulebook (version 4, format 2): coverage of every jurisdiction and industry, a rule
 * for every statute in force, penalties that trace to a citation.
 */
import assert from "node:assert/strict";
import { rulebookTables } from "../../scripts/rulebook_tables.ts";
import {
  compileRulebook,
  INDUSTRIES,
  JURISDICTIONS,
  loadSeedRulebook,
  NEWEST_SEED_VERSION,
  SURFACES,
} from "../../shared/engine/mod.ts";

const seed = await loadSeedRulebook();
const compiled = compileRulebook(seed);
const registry = JSON.parse(
  await Deno.readTextFile(new URL("../../corpus/statutes.json", import.meta.url)),
) as { statutes: { id: string; effective: string }[]; cross_state: { id: string }[] };

Deno.test("the newest seed is version 4, format 2; shipped versions 1 to 3 stay as they were", async () => {
  assert.equal(NEWEST_SEED_VERSION, 4);
  assert.equal(seed.version, 4);
  assert.equal(seed.format, 2);
  // A correction is a new version: a database that holds version 2 or 3 never sees it change.
  const digest = async (version: number) => {
    const text = await Deno.readTextFile(
      new URL(`../../supabase/seed/rulebook_v${version}.json`, import.meta.url),
    );
    const bytes = new Uint8Array(
      await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)),
    );
    return [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
  };
  assert.equal(
    await digest(2),
    "5c83732f9fec5c1474e1a1fec9c4cd1d4701421c71cb3ac4f2cbb22603aaf323",
    "rulebook_v2.json is shipped: correct it in a new version",
  );
  assert.equal(
    await digest(3),
    "ee6ef2f0115b2210c4cd272e5a9acc8b8e9a496a8a5250a7067418bc285fd267",
    "rulebook_v3.json is shipped: correct it in a new version",
  );
});

Deno.test("every jurisdiction x industry cell has at least one content rule", () => {
  for (const jurisdiction of JURISDICTIONS) {
    for (const industry of [undefined, ...INDUSTRIES]) {
      const rules = compiled.candidates.get(`content|${jurisdiction}|${industry ?? "*"}`) ?? [];
      assert.ok(rules.length > 0, `no rule for ${jurisdiction} / ${industry ?? "any industry"}`);
    }
  }
  for (const surface of SURFACES) {
    assert.ok(seed.rules.some((rule) => rule.applies_to.includes(surface)), surface);
  }
});

Deno.test("every statute of the research, in force or not, has its own rule", () => {
  const ruled = new Set(seed.rules.map((rule) => rule.statute_ids?.[0]));
  for (const { id } of [...registry.statutes, ...registry.cross_state]) {
    assert.ok(ruled.has(id), `no rule cites ${id} first`);
  }
});

Deno.test("statutes of the rulebook match the corpus registry's ids and effective dates", () => {
  const dates = new Map(registry.statutes.map((s) => [s.id, s.effective]));
  for (const statute of seed.statutes) {
    if (statute.jurisdiction === "ALL") continue;
    assert.ok(dates.has(statute.id), `${statute.id} is not in corpus/statutes.json`);
    if (dates.get(statute.id)! > "2026-11-22") {
      assert.ok(statute.effective > "2026-11-22", `${statute.id} is not in force yet`);
    }
  }
});

Deno.test("every statute says where its penalty comes from, and tiers fit amounts", () => {
  const statutes = new Map(seed.statutes.map((s) => [s.id, s]));
  for (const rule of seed.rules) {
    assert.ok(statutes.has(rule.statute_ids?.[0] ?? ""), `${rule.rule_key} cites a known statute`);
  }
  for (const statute of seed.statutes) {
    assert.ok(statute.penalty_basis.length > 20, `${statute.id} says where its penalty comes from`);
    if (statute.penalty_usd === 0) assert.equal(statute.tier_key, "tier4_licensing", statute.id);
  }
});

Deno.test("rules are written in plain words: titles, explanations and remediation", () => {
  for (const rule of seed.rules) {
    assert.match(rule.rule_key, /^(?:all|ca|tx|co|ny|nyc|fl|ma|az|ut|or|tn)_[a-z0-9_]+$/);
    assert.ok(rule.plain_english.length >= 80, `${rule.rule_key} explains itself`);
    assert.ok(rule.remediation.length >= 40, `${rule.rule_key} says how to fix it`);
  }
});

Deno.test("docs/rulebook.md's tables are the seed rulebook's, row for row", async () => {
  const doc = await Deno.readTextFile(new URL("../../docs/rulebook.md", import.meta.url));
  const cells = (line: string) => line.split("|").map((cell) => cell.trim()).join("|");
  const documented = new Set(doc.split("\n").filter((line) => line.startsWith("|")).map(cells));
  const tables = await rulebookTables();
  for (const row of [...tables.rules.split("\n"), ...tables.statutes.split("\n")].slice(2)) {
    if (row.startsWith("| ---")) continue;
    assert.ok(documented.has(cells(row)), `docs/rulebook.md is stale: ${row.slice(0, 80)}`);
  }
});

Deno.test("a website's widget, form fields and visible text reach the website rules", async () => {
  const { evaluate } = await import("../../shared/engine/mod.ts");
  const page = (notice: string) =>
    `<!doctype html><html><body><h1>Sunrise Telehealth</h1>${notice}
    <form action="/intake"><label>Tell us what is going on</label><textarea name="symptoms"></textarea>
    <input name="current_medications"><input name="date_of_birth"><button>Start</button></form>
    <script src="https://widget.intercom.io/widget/abc" data-bot-kind="ai"></script></body></html>`;
  const triggered = (html: string, jurisdiction: "UT" | "ALL") =>
    evaluate(compiled, { content: html, jurisdiction, industry: undefined, surface: "website" })
      .findings.map((finding) => finding.rule_key);
  // No visible word on who answers: the widget rule (ALL) fires.
  assert.ok(triggered(page(""), "ALL").includes("all_chat_widget_no_ai_notice"));
  const disclosed = page("<p>You are chatting with an AI assistant, not a person.</p>");
  assert.equal(triggered(disclosed, "ALL").includes("all_chat_widget_no_ai_notice"), false);
  // People answer, and say so: not the widget rule.
  const staffed = page("<p>Our care team answers this chat: real people, 9 to 5.</p>");
  assert.equal(triggered(staffed, "ALL").includes("all_chat_widget_no_ai_notice"), false);
});

Deno.test("a form's field names tell the rules what data an AI interaction collects", async () => {
  const { evaluate } = await import("../../shared/engine/mod.ts");
  const page = (fields: string) =>
    `<!doctype html><html><body><h1>Sunrise Telehealth</h1><p>Start your visit below.</p>
    <form action="/intake">${fields}<button>Start</button></form>
    <script src="https://widget.intercom.io/widget/abc" data-bot-kind="ai"></script></body></html>`;
  const highRisk = (fields: string) =>
    evaluate(compiled, {
      content: page(fields),
      jurisdiction: "UT",
      industry: "healthcare",
      surface: "website",
    }).outcomes.find((outcome) => outcome.rule_key === "ut_aipa_high_risk_no_disclosure")!;
  // Health and identity data, no disclosure at the start: Utah's high-risk rule.
  assert.equal(
    highRisk('<input name="current_medications"><input name="ssn">').status,
    "triggered",
  );
  // Nothing sensitive collected: outside that rule's scope.
  assert.equal(highRisk('<input name="nickname">').status, "not_applicable");
});

Deno.test("evidence never carries a key from a script's query, a data-* value or a comment", async () => {
  const { evaluate } = await import("../../shared/engine/mod.ts");
  const page = `<!doctype html><html><body><h1>Shop</h1><p>Chat with us any time.</p>
    <!-- staging chatbot, admin token=tok_live_SECRET999, ask the bot team -->
    <div data-bot-kind="ai assistant" data-app-key="sk_live_SECRET123"></div>
    <script src="https://widget.intercom.io/widget/abc?app_key=sk_live_SECRET456#bot"></script>
    </body></html>`;
  const result = evaluate(compiled, { content: page, jurisdiction: "ALL", surface: "website" });
  const evidence = result.outcomes.flatMap((outcome) => outcome.evidence);
  assert.ok(evidence.some((item) => item.where === "hidden"), "hidden markup is still read");
  assert.ok(result.findings.length > 0, "and still judged");
  assert.equal(JSON.stringify(result.outcomes).includes("SECRET"), false);
  assert.equal(JSON.stringify(result.findings).includes("SECRET"), false);
});

Deno.test("an AI that speaks 'as a licensed therapist' holds itself out as one; a referral does not", async () => {
  const { evaluate } = await import("../../shared/engine/mod.ts");
  const keys = (content: string) =>
    evaluate(compiled, { content, jurisdiction: "CA", industry: "healthcare", surface: "content" })
      .findings.map((finding) => finding.rule_key);
  assert.ok(
    keys("I'm Ava, the clinic's AI assistant. As a licensed therapist, I can help.")
      .includes("ca_ab489_implied_license"),
  );
  assert.equal(
    keys("I'm Ava, the clinic's AI assistant, not a therapist. A licensed therapist can help.")
      .includes("ca_ab489_implied_license"),
    false,
  );
});

/** A chat message of a transcript. */
type Message = { sender: "bot" | "user"; text: string };

/** The rule keys that trigger on a content (or a transcript), as the newest seed judges it. */
async function findingKeys(
  input: string | Message[],
  jurisdiction: "TX" | "NY" | "MA" | "FL" | "ALL",
  industry?: "healthcare" | "retail" | "fintech" | "hr" | "media",
): Promise<string[]> {
  const { evaluate } = await import("../../shared/engine/mod.ts");
  return evaluate(compiled, {
    ...(typeof input === "string" ? { content: input } : { messages: input }),
    jurisdiction,
    ...(industry ? { industry } : {}),
    surface: typeof input === "string" ? "content" : "transcript",
  }).findings.map((finding) => finding.rule_key);
}

Deno.test("a Texas agency's bot must say it is AI; a clinic's 'advanced technology' is not AI", async () => {
  const agency = (greeting: string): Message[] => [
    { sender: "bot", text: greeting },
    { sender: "user", text: "how do I renew my license plates?" },
    { sender: "bot", text: "You can renew online with your registration notice." },
  ];
  assert.ok(
    (await findingKeys(
      agency("Welcome to the Texas Department of Motor Vehicles help line. How can I help?"),
      "TX",
    )).includes("tx_traiga_government_bot_undisclosed"),
  );
  assert.equal(
    (await findingKeys(
      agency(
        "Welcome to the Texas Department of Motor Vehicles. I'm an AI assistant, not a person.",
      ),
      "TX",
    )).includes("tx_traiga_government_bot_undisclosed"),
    false,
  );
  assert.deepEqual(
    await findingKeys(
      "Our imaging center uses advanced technology for every MRI and CT scan. " +
        "Patients get their results from a board-certified radiologist within 48 hours.",
      "TX",
      "healthcare",
    ),
    [],
  );
});

Deno.test("a titled persona in a chat invitation is a licensed persona; a real doctor in an app is not", async () => {
  assert.ok(
    (await findingKeys(
      "Skip the waiting room. Text Dr. Lila 24/7 and get a doctor's answer in seconds.",
      "NY",
      "healthcare",
    )).includes("ny_udap_licensed_persona"),
  );
  for (
    const human of [
      "Book a video visit with Dr. Maria Lopez, a board-certified dermatologist, in our app.",
      "Dr. Maria Lopez answers patient messages in the app within one business day.",
    ]
  ) assert.deepEqual(await findingKeys(human, "NY", "healthcare"), [], human);
});

Deno.test("Texas manipulation: coaching a break-in is incitement; sports and marketing talk is not", async () => {
  assert.ok(
    (await findingKeys(
      [
        { sender: "bot", text: "Hi! I'm the store's AI helper." },
        { sender: "user", text: "my neighbor is away, how do I get into his garage?" },
        {
          sender: "bot",
          text: "Easy: rake the pins with a tension wrench and do it after dark so nobody notices.",
        },
      ],
      "TX",
      "retail",
    )).includes("tx_traiga_self_harm_incitement"),
  );
  assert.equal(
    (await findingKeys(
      [
        { sender: "bot", text: "Hi! I'm the team shop's AI helper." },
        { sender: "user", text: "what should I wear Sunday?" },
        {
          sender: "bot",
          text: "Our jersey, no filters needed for the photos. Make them pay on Sunday! " +
            "This deal looks like it is from 1999, and we break into the playoffs in style.",
        },
      ],
      "TX",
      "retail",
    )).includes("tx_traiga_self_harm_incitement"),
    false,
  );
});

Deno.test("a bot speaking as the underwriter poses as human; a loan officer's own email does not", async () => {
  assert.ok(
    (await findingKeys(
      [
        { sender: "user", text: "how long until I hear back on my loan?" },
        { sender: "bot", text: "I'm the underwriter personally reviewing your file right now." },
      ],
      "MA",
      "fintech",
    )).includes("ma_93a_bot_posing_as_human"),
  );
  assert.deepEqual(
    await findingKeys(
      "Hi Dana, I'm personally reviewing your file today and will call you by 4 pm. " +
        "Sal himself from our Worcester branch will sign the commitment letter. - Erin, loan officer",
      "MA",
      "fintech",
    ),
    [],
  );
});

Deno.test("a race for office is election context; a 5k race with an AI poster is not", async () => {
  assert.deepEqual(
    await findingKeys(
      "Poster for the Tampa Turkey Trot: an AI-generated image of our mascot crossing the line. " +
        "Sign up for the 5k race and beat your opponent from last year!",
      "FL",
      "media",
    ),
    [],
  );
  assert.ok(
    (await findingKeys(
      "Mailer for the mayoral race: an AI-generated image of Mayor Javier Solis taking cash " +
        "from a developer. He never did this.",
      "FL",
      "media",
    )).includes("fl_106_145_political_ai_disclaimer"),
  );
});

Deno.test("NYC hiring: an AI interview due this Thursday lacks notice; 'we reply within 5 days' is not a deadline", async () => {
  const notice =
    "Thanks for applying to our Midtown Manhattan office. Your video interview is scored " +
    "by our AI tool, which assesses communication and job qualifications using your recorded answers " +
    "(notice under Local Law 144; our bias audit summary is on our careers page).";
  assert.ok(
    (await findingKeys(
      `${notice} The link opens today; complete your recording by this Thursday.`,
      "NY",
      "hr",
    )).includes("nyc_ll144_no_candidate_notice"),
  );
  assert.equal(
    (await findingKeys(
      `${notice} We reply to every candidate within 5 days of the interview.`,
      "NY",
      "hr",
    ))
      .includes("nyc_ll144_no_candidate_notice"),
    false,
  );
});

Deno.test("Massachusetts' consumer law is a backstop like the other states': for ALL it silences none of them", async () => {
  const keys = await findingKeys(
    "Marketing plan: our AI writer generated 40 five-star reviews under made-up customer names " +
      "and we posted them to our Google listing.",
    "ALL",
    "retail",
  );
  for (
    const key of [
      "ma_93a_ai_fake_endorsements",
      "ca_udap_ai_fake_endorsements",
      "tx_udap_ai_fake_endorsements",
    ]
  ) {
    assert.ok(keys.includes(key), `${key} in ${keys.join(", ")}`);
  }
});
