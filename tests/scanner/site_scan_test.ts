/**
 * scanSite()'s readable-content gate against the seed rulebook: a page with
 * no readable content is scanned exactly when the pinned rulebook finds
 * something to judge on it, whatever chat_vendors.ts knows.
 */
import assert from "node:assert/strict";
import { compileRulebook, readHtml } from "../../shared/engine/mod.ts";
import { loadSeedRulebook } from "../../shared/engine/seed_rulebook.ts";
import { CHAT_VENDORS, detectChatWidgets } from "../../shared/scanner/chat_vendors.ts";
import { judgesPage } from "../../shared/scanner/site_report.ts";
import { hasReadableContent, scanSite } from "../../shared/scanner/site_scan.ts";
import { FIXTURE_PATHS } from "../support/fixture_site.ts";
import { scanFailure, startScanHarness } from "../support/scan_harness.ts";

const SITE = "http://site.test";
const seed = compileRulebook(await loadSeedRulebook());

/** A page a script renders in the browser: nothing readable, and `extra` before `</body>`. */
const shell = (extra: string) =>
  `<!doctype html><html><head><title>App</title></head><body><div id="root"></div><script src="/app.js"></script>${extra}</body></html>`;

/** Widgets the seed rulebook's chat_widget_vendor concept names and chat_vendors.ts does not. */
const UNLISTED_WIDGETS: Record<string, string> = {
  Gorgias:
    `<script id="gorgias-chat-widget-install-v3" src="https://config.gorgias.chat/bundle-loader/01GYCC"></script>`,
  Chatwoot: `<script src="https://app.chatwoot.com/packs/js/sdk.js" defer async></script>`,
  "Help Scout": `<script src="https://beacon-v2.helpscout.net" async></script>`,
};

Deno.test("judgesPage(): the seed rulebook judges a shell with a widget it names, never an empty shell", () => {
  for (const [vendor, html] of Object.entries(UNLISTED_WIDGETS)) {
    const { document, page } = readHtml(shell(html));
    assert.equal(hasReadableContent(document), false, vendor);
    assert.deepEqual(detectChatWidgets(page, `${SITE}/`), [], `${vendor} is in CHAT_VENDORS`);
    assert.equal(judgesPage(seed, document), true, vendor);
  }
  // Rules without an `applies` expression pass on any page: they are not "something to judge".
  assert.equal(judgesPage(seed, readHtml(shell("")).document), false);
  assert.equal(judgesPage(seed, readHtml("").document), false);
});

Deno.test("scanSite() scans a script-rendered page with a Gorgias or Chatwoot widget when the rulebook judges it", async () => {
  await using h = await startScanHarness({
    site: {
      pages: {
        "/gorgias.html": shell(UNLISTED_WIDGETS.Gorgias),
        "/chatwoot.html": shell(UNLISTED_WIDGETS.Chatwoot),
        "/empty.html": shell(""),
      },
    },
  });
  assert.equal(CHAT_VENDORS.some((v) => /gorgias|chatwoot/i.test(v.name)), false);
  for (const path of ["/gorgias.html", "/chatwoot.html"]) {
    using session = h.fetcher.startScan();
    const site = await scanSite(session, `${SITE}${path}`, { rulebook: seed });
    assert.deepEqual(site.pages.map((p) => [p.kind, p.url]), [["target", `${SITE}${path}`]]);

    // Without a rulebook to ask, a page with no readable content is refused.
    using again = h.fetcher.startScan();
    const refused = await scanFailure(scanSite(again, `${SITE}${path}`));
    assert.equal(refused.reason, "no_readable_content");
  }
  for (const path of ["/empty.html", FIXTURE_PATHS.scriptOnly]) {
    using session = h.fetcher.startScan();
    const error = await scanFailure(scanSite(session, `${SITE}${path}`, { rulebook: seed }));
    assert.equal(error.status, 415, path);
    assert.equal(error.reason, "no_readable_content", path);
  }
});

/** A readable target whose privacy link stalls (`/slow/headers`), then a terms page. */
const STALLING_HOME =
  `<!doctype html><html><head><title>Shop</title></head><body><h1>Handmade oak chairs</h1><p>Every chair is made to order in Maine.</p><a href="/slow/headers">Privacy policy</a> <a href="/terms">Terms</a></body></html>`;

Deno.test("scanSite() ends with 502 aborted when the caller aborts during the compliance pages", async () => {
  await using h = await startScanHarness({
    site: { slowMs: 3_000, pages: { "/home.html": STALLING_HOME } },
  });
  const caller = new AbortController();
  using session = h.fetcher.startScan({ signal: caller.signal });
  const scanning = scanSite(session, `${SITE}/home.html`);
  const timer = setTimeout(() => caller.abort(), 300);
  try {
    const error = await scanFailure(scanning, "an aborted scan");
    assert.equal(error.status, 502);
    assert.equal(error.reason, "aborted");
  } finally {
    clearTimeout(timer);
  }
  // The target was read, the stalling page asked for, and nothing after it.
  assert.deepEqual(h.site.requests.map((r) => r.path), [
    "/robots.txt",
    "/home.html",
    "/slow/headers",
  ]);
});

Deno.test("scanSite() keeps the pages read so far when the scan budget runs out", async () => {
  await using h = await startScanHarness({
    site: { slowMs: 3_000, pages: { "/home.html": STALLING_HOME } },
  });
  using session = h.fetcher.startScan({ budgetMs: 500 });
  const site = await scanSite(session, `${SITE}/home.html`);
  assert.deepEqual(site.pages.map((p) => p.kind), ["target"]);
  assert.deepEqual(site.skipped, [{ kind: "privacy", reason: "scan_budget" }]);
});
