/**
 * runWebsiteAudit in process: the handler over the fake database and limiter,
 * scanning a loopback fixture site through the made-up network (`site.test`
 * resolves to a public address that the recording connector serves from
 * loopback; nothing connects anywhere else). The rulebook is the small test
 * rulebook of website rules (tests/support/website_rulebook.ts).
 */
import assert from "node:assert/strict";
import {
  WebsiteAuditErrorEnvelope,
  WebsiteAuditResponse,
} from "../../shared/contract/website_audit.ts";
import { runWebsiteAudit } from "../../shared/handlers/run_website_audit.ts";
import type { Advisory } from "../../shared/advisory/advisory.ts";
import { ENGINE_VERSION } from "../../shared/scanner/site_report.ts";
import { COMPLIANCE_PAGE_BYTES } from "../../shared/scanner/site_scan.ts";
import { type FakeDeps, fakeDeps, from, jsonRequest } from "../support/fake_deps.ts";
import { PUBLIC_V4 } from "../support/fake_network.ts";
import { LOCALHOST_URLS, REFUSED_ADDRESSES, REFUSED_LITERAL_URLS } from "../support/ssrf_matrix.ts";
import { type FixtureSiteOptions, LARGE_PAGE_BYTES } from "../support/fixture_site.ts";
import {
  type ScanHarness,
  type ScanHarnessOptions,
  startScanHarness,
} from "../support/scan_harness.ts";
import {
  TEST_RULEBOOK_VERSION,
  TEST_WEBSITE_RULEBOOK,
  testRulebookRow,
} from "../support/website_rulebook.ts";
import { COMPLIANCE_PAGES, HOME, htmlPage, WIDGET_SCRIPTS } from "../support/website_pages.ts";

const SITE = "http://site.test";
const CLIENT = "198.51.100.23";

interface Scanner extends AsyncDisposable {
  h: ScanHarness;
  deps: FakeDeps;
  scan(target: unknown, options?: { ip?: string; headers?: Record<string, string> }): Promise<
    Response
  >;
}

async function scanner(
  site: FixtureSiteOptions = {},
  options: Omit<ScanHarnessOptions, "site"> & { advisory?: Advisory } = {},
): Promise<Scanner> {
  const h = await startScanHarness({ ...options, site });
  const deps = fakeDeps();
  deps.db.activeVersion = TEST_RULEBOOK_VERSION;
  deps.db.answers.set("rulebook_get", testRulebookRow());
  deps.scanFetcher = h.fetcher;
  deps.advisory = options.advisory;
  const handler = runWebsiteAudit(deps);
  return {
    h,
    deps,
    scan: (target, { ip = CLIENT, headers = {} } = {}) =>
      handler(
        jsonRequest(
          "runWebsiteAudit",
          typeof target === "string" ? { target_url: target } : target,
          headers,
        ),
        from(ip),
      ),
    [Symbol.asyncDispose]: () => h.site.close(),
  };
}

async function ok(response: Response): Promise<WebsiteAuditResponse> {
  const text = await response.text();
  assert.equal(response.status, 200, text);
  return WebsiteAuditResponse.parse(JSON.parse(text));
}

async function refused(response: Response, status: number): Promise<string> {
  const text = await response.text();
  assert.equal(response.status, status, text);
  const body = JSON.parse(text);
  assert.deepEqual(Object.keys(body), ["error"]);
  return WebsiteAuditErrorEnvelope.parse(body).error;
}

const keys = (findings: { rule_key?: string }[]) => findings.map((f) => f.rule_key);

Deno.test("runWebsiteAudit() scans the target and its compliance pages; evidence names its page", async () => {
  await using s = await scanner({ pages: { "/home.html": HOME, ...COMPLIANCE_PAGES } });
  const body = await ok(await s.scan(`${SITE}/home.html`));

  assert.deepEqual(keys(body.critical), ["t_chat_widget_undisclosed"]);
  const [chat] = body.critical;
  assert.equal(chat.title, "Chat widget without a visible AI disclosure");
  assert.equal(chat.category, "ai_disclosure");
  assert.equal(chat.statute_ref, "Test Code §T-BOT");
  assert.deepEqual(chat.statute_codes, ["T-BOT"]);
  assert.ok(chat.evidence.length > 0);
  for (const evidence of chat.evidence) {
    assert.equal(evidence.source_url, `${SITE}/help/chat`);
    assert.equal(evidence.type, "script");
    assert.match(evidence.excerpt, /intercom/);
  }
  assert.deepEqual(body.warnings, []);
  // Passed on its pages and mapped to no statute code: the field is absent.
  assert.deepEqual(keys(body.passed), ["t_ucl_human_claim"]);
  assert.equal("statute_codes" in body.passed[0], false);
  assert.equal(body.score, 60);
  assert.equal(body.grade, "D");
  assert.deepEqual(body.advisory, []);
  assert.equal(body.scan_meta.fetched, true);
  assert.equal(body.scan_meta.status_code, 200);
  assert.equal(body.scan_meta.robots_respected, true);
  assert.equal(body.scan_meta.engine_version, ENGINE_VERSION);
  assert.equal(body.scan_meta.rulebook_source, "database");
  assert.ok(body.scan_meta.scan_duration_ms > 0);

  // robots.txt once, the target, then one page of each kind in order; never the PDF,
  // another origin or a mailto link.
  assert.deepEqual(s.h.site.requests.map((r) => r.path), [
    "/robots.txt",
    "/home.html",
    "/privacy-policy",
    "/legal/terms-of-use",
    "/accessibility",
    "/contact-us",
    "/help/chat",
  ]);
  assert.ok(s.h.connect.calls.every((call) => call.address === PUBLIC_V4));

  assert.equal(s.deps.db.websiteScans.length, 1);
  const stored = s.deps.db.websiteScans[0];
  assert.equal(stored.p_target_origin, SITE);
  assert.equal(stored.p_rulebook_version, TEST_RULEBOOK_VERSION);
  assert.equal(stored.p_engine_version, ENGINE_VERSION);
  assert.equal(stored.p_grade, "D");
  assert.equal(stored.p_score, 60);
  assert.equal(stored.p_pages_scanned, 6);
  assert.deepEqual(stored.p_triggered_rules, ["t_chat_widget_undisclosed"]);
  assert.equal(stored.p_duration_ms, body.scan_meta.scan_duration_ms);
  assert.equal("p_account_id" in stored, false);
  assert.equal(JSON.stringify(stored).includes(CLIENT), false, "the caller's IP is stored");
});

Deno.test("runWebsiteAudit() names evidence pages by origin and path, never a query a redirect added", async () => {
  const home = htmlPage(
    "Account",
    `<h1>Your account</h1><p>Orders, returns and saved addresses in one place.</p>
    <a href="/help/chat?session=S3SS10N-2">Chat with support</a>`,
  );
  await using s = await scanner({ pages: { "/account.html": home, ...COMPLIANCE_PAGES } });
  const to = encodeURIComponent("/account.html?sid=S3SS10N-1#top");
  const body = await ok(await s.scan(`${SITE}/redirect/to?location=${to}`));
  // Both pages were read at their full URLs...
  assert.deepEqual(s.h.site.requests.map((r) => r.path).slice(-2), [
    "/account.html?sid=S3SS10N-1",
    "/help/chat?session=S3SS10N-2",
  ]);
  // ...and the report names them without the query.
  assert.deepEqual(keys(body.critical), ["t_chat_widget_undisclosed"]);
  const sources = [...body.critical, ...body.warnings, ...body.passed].flatMap((f) =>
    f.evidence.map((e) => e.source_url)
  );
  assert.ok(sources.includes(`${SITE}/help/chat`), sources.join(" "));
  assert.ok(sources.every((url) => url === `${SITE}/help/chat` || url === `${SITE}/account.html`));
  assert.doesNotMatch(JSON.stringify(body), /S3SS10N/);
});

Deno.test("runWebsiteAudit() passes a chat widget that a visible AI disclosure introduces", async () => {
  const page = htmlPage(
    "Support",
    `<h1>Support</h1><p>You are chatting with our AI assistant, not a person. Ask about orders.</p>${WIDGET_SCRIPTS.tawk}`,
  );
  await using s = await scanner({ pages: { "/support.html": page } });
  const body = await ok(await s.scan(`${SITE}/support.html`));
  assert.deepEqual(body.critical, []);
  assert.deepEqual(keys(body.passed), ["t_chat_widget_undisclosed", "t_ucl_human_claim"]);
  // The engine keeps the evidence of what made the rule apply (the widget's script), quoting
  // only the matched words of markup nobody sees: never a source URL, which can carry a key.
  assert.deepEqual(body.passed[0].evidence, [{
    type: "script",
    excerpt: "tawk",
    source_url: `${SITE}/support.html`,
  }]);
  assert.equal(body.score, 100);
  assert.equal(body.grade, "A");
});

Deno.test("runWebsiteAudit() counts one violation once across pages: the specific rule wins the concern", async () => {
  const home = htmlPage(
    "Shop",
    `<h1>Shop</h1><p>Our real human agents answer every message within the hour.</p><a href="/chat">Chat</a>`,
  );
  const chat = htmlPage("Chat", `<p>Ask us about your order here.</p>${WIDGET_SCRIPTS.tidio}`);
  await using s = await scanner({ pages: { "/shop.html": home, "/chat": chat } });
  const body = await ok(await s.scan(`${SITE}/shop.html`));
  assert.deepEqual(keys(body.critical), ["t_chat_widget_undisclosed"]);
  // The backstop rule of the same concern gives way, and is not "passed" either.
  assert.deepEqual(body.warnings, []);
  assert.deepEqual(keys(body.passed), []);
  assert.equal(body.score, 60);

  // Without the chat page, the backstop stands alone.
  await using alone = await scanner({ pages: { "/shop.html": home } });
  const only = await ok(await alone.scan(`${SITE}/shop.html`));
  assert.deepEqual(keys(only.warnings), ["t_ucl_human_claim"]);
  assert.equal(only.score, 90);
  assert.equal(only.grade, "A");
});

Deno.test("runWebsiteAudit() reads forms, synthetic-media labels and hidden text through the document model", async () => {
  const page = htmlPage(
    "Clinic",
    `<h1>Meet Ava, our digital twin presenter</h1><p>Ava explains your treatment options in short videos.</p>
    <form action="/intake"><label>Name <input name="name"></label>
    <input name="history" placeholder="Your medical history"><button>Send</button></form>`,
  );
  await using s = await scanner({ pages: { "/clinic.html": page } });
  const body = await ok(await s.scan(`${SITE}/clinic.html`));
  assert.deepEqual(keys(body.warnings), ["t_synthetic_media_unlabeled", "t_health_form_notice"]);
  const form = body.warnings.find((f) => f.rule_key === "t_health_form_notice");
  assert.deepEqual(form?.statute_codes, ["T-HEALTH"]);
  assert.deepEqual(form?.evidence.map((e) => e.type), ["form"]);
  assert.equal(body.score, 75);
  assert.equal(body.grade, "B");
});

Deno.test("runWebsiteAudit() scans a script-rendered page that has a chat widget; refuses one that has nothing (415)", async () => {
  const shell = (extra: string) =>
    `<!doctype html><html><head><title>App</title></head><body><div id="root"></div><script src="/app.js"></script>${extra}</body></html>`;
  await using s = await scanner({
    pages: { "/widget.html": shell(WIDGET_SCRIPTS.intercom), "/empty.html": shell("") },
  });
  const body = await ok(await s.scan(`${SITE}/widget.html`));
  assert.deepEqual(keys(body.critical), ["t_chat_widget_undisclosed"]);
  const message = await refused(await s.scan(`${SITE}/empty.html`), 415);
  assert.match(message, /rendered by script/);
  assert.match(await refused(await s.scan(`${SITE}/script-only.html`), 415), /no readable content/);
});

Deno.test("runWebsiteAudit() lets the pinned rulebook, not a vendor list, decide whether a script-rendered page is judged", async () => {
  const shell = (extra: string) =>
    `<!doctype html><html><head><title>App</title></head><body><div id="root"></div><script src="/app.js"></script>${extra}</body></html>`;
  const gorgias = `<script src="https://config.gorgias.chat/bundle-loader/01GYCC"></script>`;
  // Olark is in chat_vendors.ts, but its inline snippet is nothing the rules can see.
  const olark = `<script>olark.identify('1-2-3');</script>`;
  await using s = await scanner({
    pages: { "/gorgias.html": shell(gorgias), "/olark.html": shell(olark) },
  });
  // The test rulebook's chat_vendor concept does not name Gorgias: nothing to judge.
  assert.match(await refused(await s.scan(`${SITE}/gorgias.html`), 415), /no readable content/);
  assert.match(await refused(await s.scan(`${SITE}/olark.html`), 415), /no readable content/);

  // The same page under a rulebook that names it is judged, by that rulebook.
  const version = TEST_RULEBOOK_VERSION + 1;
  const chatVendor = TEST_WEBSITE_RULEBOOK.concepts.chat_vendor;
  assert.ok("terms" in chatVendor);
  s.deps.db.activeVersion = version;
  s.deps.db.answers.set("rulebook_get", {
    ...testRulebookRow(),
    version,
    concepts: {
      ...TEST_WEBSITE_RULEBOOK.concepts,
      chat_vendor: { ...chatVendor, terms: [...chatVendor.terms, "gorgias"] },
    },
  });
  const body = await ok(await s.scan(`${SITE}/gorgias.html`));
  assert.deepEqual(keys(body.critical), ["t_chat_widget_undisclosed"]);
  assert.match(body.critical[0].evidence[0].excerpt, /gorgias/);
  assert.equal(s.deps.db.websiteScans.at(-1)?.p_rulebook_version, version);
});

Deno.test("runWebsiteAudit() scans the head of an oversized page (the body cap truncates, 2 MiB)", async () => {
  const words = "Handmade oak chairs and tables for every room of your home. ";
  const big = htmlPage(
    "Big",
    `<h1>Catalogue</h1><p>${words.repeat(Math.ceil(LARGE_PAGE_BYTES / words.length))}</p>`,
  );
  await using s = await scanner({ pages: { "/big.html": big } });
  const body = await ok(await s.scan(`${SITE}/big.html`));
  assert.equal(body.scan_meta.status_code, 200);
  assert.equal(body.score, 100);
});

Deno.test("runWebsiteAudit() reads at most 512 KiB of each compliance page", async () => {
  const filler = `<p>${"Returns are free within thirty days of delivery. ".repeat(12_000)}</p>`;
  const home = htmlPage(
    "Home",
    `<h1>Welcome</h1><p>Handmade goods from Maine, shipped anywhere.</p><a href="/support">Support</a>`,
  );
  const late = htmlPage("Support", `<p>Talk to us.</p>${filler}${WIDGET_SCRIPTS.tidio}`);
  const early = htmlPage("Support", `<p>Talk to us.</p>${WIDGET_SCRIPTS.tidio}${filler}`);
  assert.ok(filler.length > COMPLIANCE_PAGE_BYTES);
  await using past = await scanner({ pages: { "/": home, "/support": late } });
  assert.deepEqual(keys((await ok(await past.scan(`${SITE}/`))).critical), []);
  await using within = await scanner({ pages: { "/": home, "/support": early } });
  assert.deepEqual(keys((await ok(await within.scan(`${SITE}/`))).critical), [
    "t_chat_widget_undisclosed",
  ]);
});

Deno.test("runWebsiteAudit() stops when the client aborts during the compliance pages: no model call, no row", async () => {
  const home = htmlPage(
    "Shop",
    `<h1>Handmade oak chairs</h1><p>Every chair is made to order in Maine.</p>
    <a href="/slow/headers">Privacy policy</a> <a href="/help/chat">Chat</a>`,
  );
  let advised = 0;
  const advisory: Advisory = () => {
    advised += 1;
    return Promise.resolve([]);
  };
  await using s = await scanner({
    slowMs: 3_000,
    pages: { "/home.html": home, ...COMPLIANCE_PAGES },
  }, {
    advisory,
  });
  const client = new AbortController();
  const request = new Request(
    jsonRequest("runWebsiteAudit", { target_url: `${SITE}/home.html` }),
    { signal: client.signal },
  );
  const timer = setTimeout(() => client.abort(), 300);
  try {
    const response = await runWebsiteAudit(s.deps)(request, from(CLIENT));
    await response.body?.cancel();
    assert.equal(response.status, 502);
  } finally {
    clearTimeout(timer);
  }
  assert.equal(advised, 0, "the model was asked about an abandoned scan");
  assert.deepEqual(s.deps.db.websiteScans, []);
  assert.equal(s.h.site.requests.some((r) => r.path === "/help/chat"), false);
  assert.deepEqual(
    s.deps.logs.filter((line) => line.msg === "scan refused").map((line) => line.reason),
    ["aborted"],
  );
});

Deno.test("runWebsiteAudit() answers 400 for a bad request, before counting or fetching anything", async () => {
  await using s = await scanner();
  const bodies: unknown[] = [
    {},
    { target_url: 42 },
    { target_url: "https://site.test/", extra: 1 },
    { target_url: "site.test" },
    { target_url: "ftp://site.test/" },
    { target_url: "javascript:alert(1)//site.test" },
    { target_url: "http://user:pass@site.test/" },
    { target_url: "http://@site.test/" },
    { target_url: "http://site.test/a b" },
    { target_url: "http://site.test/\n" },
    { target_url: `http://site.test/${"a".repeat(2100)}` },
    { target_url: "http://256.0.0.1/" },
    "not json",
    "[]",
  ];
  for (const body of bodies) {
    const message = await refused(await s.scan(body), 400);
    assert.equal(message.includes("user:pass"), false);
  }
  assert.deepEqual(s.deps.limiter.calls, []);
  assert.deepEqual(s.h.connect.calls, []);
  assert.deepEqual(s.deps.db.calls, []);
});

Deno.test("runWebsiteAudit() limits each client IP to 10 a minute: 429 with Retry-After", async () => {
  await using s = await scanner();
  s.deps.limiter.remaining = 0;
  const response = await s.scan(`${SITE}/page.html`);
  const message = await refused(response, 429);
  assert.match(message, /Rate limit/);
  assert.equal(response.headers.get("retry-after"), "42");
  assert.deepEqual(s.deps.limiter.calls, [{ key: `scan:${CLIENT}`, max: 10, windowSeconds: 60 }]);
  assert.deepEqual(s.h.connect.calls, []);
  assert.deepEqual(s.deps.db.calls, []);
});

Deno.test("runWebsiteAudit() counts the socket address, an IPv6 client by its /64, and only trusted proxy hops", async () => {
  await using s = await scanner();
  await s.scan(`${SITE}/page.html`, { ip: "2001:db8:abcd:12:1:2:3:4" });
  await s.scan(`${SITE}/page.html`, { ip: "::ffff:198.51.100.9" });
  await s.scan(`${SITE}/page.html`, { headers: { "x-forwarded-for": "203.0.113.99" } });
  assert.deepEqual(s.deps.limiter.calls.map((call) => call.key), [
    "scan:2001:db8:abcd:12::/64",
    "scan:198.51.100.9",
    `scan:${CLIENT}`,
  ]);
  s.deps.trustedProxyHops = 1;
  const behind = runWebsiteAudit(s.deps);
  const response = await behind(
    jsonRequest("runWebsiteAudit", { target_url: `${SITE}/page.html` }, {
      "x-forwarded-for": "203.0.113.99, 192.0.2.44",
    }),
    from("10.0.0.2"),
  );
  await response.body?.cancel();
  // The rightmost entry is what the one trusted proxy saw; anything left of it is the client's to forge.
  assert.equal(s.deps.limiter.calls.at(-1)?.key, "scan:192.0.2.44");
});

Deno.test("runWebsiteAudit() answers 500 when the rulebook cannot be loaded, never falling back", async () => {
  await using s = await scanner();
  s.deps.db.activeVersion = null;
  assert.equal(await refused(await s.scan(`${SITE}/page.html`), 500), "Internal error");
  s.deps.db.activeVersion = TEST_RULEBOOK_VERSION;
  s.deps.db.failing.add("rulebook_get");
  assert.equal(await refused(await s.scan(`${SITE}/page.html`), 500), "Internal error");
  s.deps.db.failing.delete("rulebook_get");
  s.deps.db.answers.set("rulebook_get", { ...testRulebookRow(), rules: [{ rule_key: "broken" }] });
  assert.equal(await refused(await s.scan(`${SITE}/page.html`), 500), "Internal error");
  // Nothing was fetched: the rulebook comes first.
  assert.deepEqual(s.h.connect.calls, []);
  assert.deepEqual(s.deps.db.websiteScans, []);
  const errors = s.deps.logs.filter((line) => line.level === "error");
  assert.equal(errors.length, 3);
});

Deno.test("runWebsiteAudit() answers 500 when the scan cannot be stored: it fails closed", async () => {
  await using s = await scanner();
  s.deps.db.failing.add("website_scan_record");
  assert.equal(await refused(await s.scan(`${SITE}/page.html`), 500), "Internal error");
  const error = s.deps.logs.find((line) => line.level === "error");
  assert.equal(error?.error, "DbError 08006");
});

Deno.test("runWebsiteAudit() maps every scan failure to the contract's status, naming no address", async () => {
  await using s = await scanner({
    robots: { status: 200, body: "User-agent: *\nDisallow: /private/\n" },
    slowMs: 2_000,
  }, {
    names: { "private.test": ["10.1.2.3"], "broken.test": "fail" },
    fetcher: { limits: { requestTimeoutMs: 300 } },
  });
  const cases: [string, number, RegExp][] = [
    [`${SITE}/private/page.html`, 403, /robots\.txt disallows/],
    ["http://private.test/", 403, /private address/],
    ["http://localhost/", 403, /localhost/],
    ["http://169.254.169.254/latest/meta-data/", 403, /link-local/],
    ["http://[::ffff:127.0.0.1]/", 403, /loopback/],
    ["http://0x7f000001/", 403, /loopback/],
    [`${SITE}:8080/`, 403, /port/],
    [`${SITE}/redirect/internal`, 403, /no address|resolve/],
    [`${SITE}/redirect/to?location=${encodeURIComponent("http://10.0.0.1/")}`, 403, /private/],
    [`${SITE}/doc.pdf`, 415, /content type/],
    [`${SITE}/no-content-type`, 415, /content type/],
    [`${SITE}/error`, 502, /server error|could not/i],
    [`${SITE}/not-found`, 502, /status 404/],
    [`${SITE}/slow/headers`, 502, /in time/],
    [`${SITE}/redirect/chain/6`, 502, /redirected more than 5/],
    ["http://broken.test/", 502, /could not be resolved/],
  ];
  for (const [url, status, pattern] of cases) {
    const message = await refused(await s.scan(url), status);
    assert.match(message, pattern, url);
    for (const secret of ["10.1.2.3", "10.0.0.1", "private.test", "broken.test", "169.254"]) {
      assert.equal(message.includes(secret), false, `${url}: ${message}`);
    }
  }
  assert.deepEqual(s.deps.db.websiteScans, []);
  // Refusals are logged by reason, at info; a target's failure is not ours, but is a 5xx.
  const reasons = s.deps.logs.filter((line) => line.msg === "scan refused").map((l) => l.reason);
  assert.ok(reasons.includes("robots_disallowed") && reasons.includes("private_address"));
  const connected = new Set(s.h.connect.calls.map((call) => call.address));
  assert.deepEqual([...connected], [PUBLIC_V4]);
});

Deno.test("runWebsiteAudit() refuses a site whose robots.txt is unavailable (5xx) and allows one whose robots.txt is missing", async () => {
  await using down = await scanner({ robots: "server-error" });
  assert.match(await refused(await down.scan(`${SITE}/page.html`), 403), /robots\.txt could not/);
  await using missing = await scanner({ robots: "missing" });
  await ok(await missing.scan(`${SITE}/page.html`));
});

Deno.test("runWebsiteAudit() skips compliance pages it may not or cannot read, and keeps the rest", async () => {
  const home = htmlPage(
    "Home",
    `<h1>Welcome to our shop</h1><p>Handmade goods from Maine.</p>
    <a href="/private/privacy">Privacy</a> <a href="/terms">Terms</a> <a href="/contact">Contact</a>
    <a href="/accessibility">Accessibility</a> <a href="/support">Support</a>`,
  );
  await using s = await scanner({
    robots: { status: 200, body: "User-agent: *\nDisallow: /private/\n" },
    pages: {
      "/index.html": home,
      "/terms": { body: "%PDF-1.4", contentType: "application/pdf" },
      "/contact": { body: "gone", status: 410 },
      "/accessibility": { body: "", status: 302, headers: { location: "http://10.0.0.7/a11y" } },
      "/support": htmlPage("Support", `<p>Talk to us.</p>${WIDGET_SCRIPTS.crisp}`),
    },
  });
  const body = await ok(await s.scan(`${SITE}/index.html`));
  assert.deepEqual(keys(body.critical), ["t_chat_widget_undisclosed"]);
  assert.equal(body.critical[0].evidence[0]?.source_url, `${SITE}/support`);
  assert.equal(s.deps.db.websiteScans[0].p_pages_scanned, 2);
  assert.equal(
    s.h.site.requests.some((r) => r.path.startsWith("/private/")),
    false,
    "a disallowed page was fetched",
  );
  assert.equal(s.h.connect.calls.some((call) => call.address === "10.0.0.7"), false);
});

Deno.test("runWebsiteAudit() refuses the SSRF matrix with 403 before any connection or lookup it need not make", async () => {
  const names = Object.fromEntries(
    Object.keys(REFUSED_ADDRESSES).map((address, i) => [`host-${i}.test`, [address]]),
  );
  await using s = await scanner({}, { names });
  const targets = [
    ...Object.keys(REFUSED_ADDRESSES).map((_, i) => `http://host-${i}.test/`),
    ...Object.keys(REFUSED_LITERAL_URLS),
    ...LOCALHOST_URLS,
  ];
  assert.ok(targets.length >= 30);
  for (const [i, url] of targets.entries()) {
    const message = await refused(await s.scan(url), 403);
    assert.equal(message.includes(`host-${i}.test`), false);
    assert.doesNotMatch(message, /\d+\.\d+\.\d+\.\d+|::/, message);
  }
  assert.deepEqual(s.h.connect.calls, [], "a connection was attempted");
  assert.deepEqual(s.h.site.requests, [], "the fixture was reached");
  // Only the made-up names were looked up: IP literals and localhost never are.
  assert.ok(s.h.resolve.lookups.every((name) => /^host-\d+\.test$/.test(name)));
  assert.deepEqual(s.deps.db.websiteScans, []);
});

Deno.test("runWebsiteAudit() never connects to loopback when DNS rebinds between check and connect", async () => {
  await using s = await scanner({ pages: { "/rebind.html": HOME } }, {
    names: {
      "rebind.test": (lookup) => lookup === 1 ? [PUBLIC_V4] : ["127.0.0.1"],
    },
  });
  const message = await refused(await s.scan("http://rebind.test/rebind.html"), 403);
  assert.match(message, /loopback/);
  assert.ok(s.h.connect.calls.length >= 1, "the first, public answer was used");
  assert.ok(s.h.connect.calls.every((call) => call.address === PUBLIC_V4));
});

Deno.test("runWebsiteAudit() logs no target host, path or query and no client IP, scanned or refused", async () => {
  const host = "quiet-shop-5d1.test";
  const query = "sid=Q-9c1e";
  await using s = await scanner({
    robots: { status: 200, body: "User-agent: *\nDisallow: /private/\n" },
    pages: { "/catalogue-7f3.html": HOME, ...COMPLIANCE_PAGES },
  }, { names: { [host]: [PUBLIC_V4], "inside-2b8.test": ["10.1.2.3"] } });
  const client = "203.0.113.77";
  const v6Client = "2001:db8:77:1::42";

  await ok(await s.scan(`http://${host}/catalogue-7f3.html?${query}`, { ip: client }));
  await refused(
    await s.scan(`http://${host}/private/staff-4e2.html?${query}`, { ip: client }),
    403,
  );
  await refused(await s.scan(`http://inside-2b8.test/admin-8a6?${query}`, { ip: v6Client }), 403);
  await refused(await s.scan(`http://${host}/not-found?${query}`, { ip: client }), 502);
  await refused(await s.scan(`http://${host}/doc.pdf?${query}`, { ip: client }), 415);

  // The lines were written, and say what happened...
  const lines = (msg: string, field: string) =>
    s.deps.logs.filter((line) => line.msg === msg).map((line) => line[field]);
  assert.deepEqual(lines("request", "status"), [200, 403, 403, 502, 415]);
  assert.deepEqual(lines("scan refused", "reason"), [
    "robots_disallowed",
    "private_address",
    "target_status",
    "content_type",
  ]);
  // ...without naming what was scanned or who asked.
  const text = s.deps.logText.join("\n");
  for (
    const secret of [
      host,
      "quiet-shop",
      "inside-2b8",
      "catalogue-7f3",
      "staff-4e2",
      "admin-8a6",
      "/private/",
      "/not-found",
      "doc.pdf",
      "help/chat",
      "privacy-policy",
      "Q-9c1e",
      "sid=",
      client,
      "203.0.113",
      "2001:db8:77",
      "10.1.2.3",
      PUBLIC_V4,
    ]
  ) {
    assert.equal(text.includes(secret), false, `a log line names ${secret}:\n${text}`);
  }
});

Deno.test("runWebsiteAudit() answers the CORS preflight for browsers, from configured origins only", async () => {
  await using s = await scanner();
  const preflight = (origin: string) =>
    runWebsiteAudit(s.deps)(
      new Request("http://127.0.0.1/functions/runWebsiteAudit", {
        method: "OPTIONS",
        headers: { origin, "access-control-request-method": "POST" },
      }),
    );
  const any = await preflight("https://landing.example.test");
  assert.equal(any.status, 204);
  assert.equal(any.headers.get("access-control-allow-origin"), "*");
  assert.equal(any.headers.get("access-control-allow-methods"), "POST, OPTIONS");
  const allowed = any.headers.get("access-control-allow-headers") ?? "";
  assert.match(allowed, /content-type/);
  assert.doesNotMatch(allowed, /x-api-key|x-webhook-secret/);

  s.deps.corsOrigins = ["https://landing.example.test"];
  const listed = await preflight("https://landing.example.test");
  assert.equal(listed.headers.get("access-control-allow-origin"), "https://landing.example.test");
  assert.equal(listed.headers.get("vary"), "Origin");
  const other = await preflight("https://evil.example.test");
  assert.equal(other.headers.get("access-control-allow-origin"), null);

  // Errors carry them too.
  const error = await runWebsiteAudit(s.deps)(
    jsonRequest("runWebsiteAudit", {}, { origin: "https://landing.example.test" }),
  );
  assert.equal(error.status, 400);
  assert.equal(error.headers.get("access-control-allow-origin"), "https://landing.example.test");
  await error.body?.cancel();
});

Deno.test("runWebsiteAudit() keeps the advisory apart: it cannot change score, grade or findings", async () => {
  const pages = { "/home.html": HOME, ...COMPLIANCE_PAGES };
  await using plain = await scanner({ pages });
  const without = await ok(await plain.scan(`${SITE}/home.html`));

  const seen: string[] = [];
  const advisory: Advisory = (input) => {
    seen.push(...input.map((page) => page.url));
    return Promise.resolve([{
      source: "llm_nuance",
      severity: "warning",
      title: "Chat page names no human fallback",
      plain_english: "Say how to reach a person.",
      category: "ai_disclosure",
      statute_ref: null,
      statute_codes: null,
      evidence: [],
    }]);
  };
  await using advised = await scanner({ pages }, { advisory });
  const withAdvice = await ok(await advised.scan(`${SITE}/home.html`));
  assert.equal(withAdvice.advisory.length, 1);
  const { advisory: _a, scan_meta: _m, ...decided } = withAdvice;
  const { advisory: _b, scan_meta: _n, ...before } = without;
  assert.deepEqual(decided, before);
  assert.equal(seen.length, 6);
  assert.equal(advised.deps.db.websiteScans[0].p_advisory_count, 1);
});
