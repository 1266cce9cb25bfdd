/** What a fetched page looks like, content types, status classes and charsets, and what a scan makes of it. */
import assert from "node:assert/strict";
import { decodeBody } from "../../shared/scanner/body_text.ts";
import { asScanError, ScanError } from "../../shared/scanner/scan_error.ts";
import { hasReadableContent, scanSite } from "../../shared/scanner/site_scan.ts";
import { FIXTURE_PATHS, PAGE_TEXT } from "../support/fixture_site.ts";
import { scanFailure, startScanHarness } from "../support/scan_harness.ts";

const SITE = "http://site.test";

Deno.test("fetchPage() returns the final URL, status, headers, decoded body, redirects and timing", async () => {
  await using h = await startScanHarness();
  using scan = h.fetcher.startScan();
  const page = await scan.fetchPage(`${SITE}${FIXTURE_PATHS.sameSiteRedirect}`);
  assert.equal(page.url, `${SITE}/page.html`);
  assert.equal(page.status, 200);
  assert.equal(page.headers.get("content-type"), "text/html; charset=utf-8");
  assert.equal(page.contentType, "text/html");
  assert.equal(page.charset, "utf-8");
  assert.ok(page.body.includes(PAGE_TEXT));
  assert.equal(page.byteLength, new TextEncoder().encode(page.body).byteLength);
  assert.equal(page.truncated, false);
  assert.equal(page.redirects, 1);
  assert.deepEqual(page.hops.map((hop) => [hop.url, hop.status]), [
    [`${SITE}/redirect/same-site`, 302],
    [`${SITE}/page.html`, 200],
  ]);
  assert.ok(page.hops.every((hop) => hop.durationMs >= 0));
  assert.ok(page.durationMs >= page.hops[0].durationMs + page.hops[1].durationMs);
});

Deno.test("scanSite() reads the fixture's chat pages as readable content and refuses its script-only page (415)", async () => {
  await using h = await startScanHarness();
  for (const path of [FIXTURE_PATHS.chatDisclosed, FIXTURE_PATHS.chatUndisclosed]) {
    using scan = h.fetcher.startScan();
    const site = await scanSite(scan, `${SITE}${path}`);
    assert.deepEqual(site.pages.map((p) => [p.kind, p.url, p.status]), [
      ["target", `${SITE}${path}`, 200],
    ]);
    assert.equal(hasReadableContent(site.pages[0].document), true, path);
    // `/chat.js` is the site's own script, no vendor's.
    assert.deepEqual(site.pages[0].chatWidgets, [], path);
  }
  using scan = h.fetcher.startScan();
  const error = await scanFailure(scanSite(scan, `${SITE}${FIXTURE_PATHS.scriptOnly}`));
  assert.equal(error.status, 415);
  assert.equal(error.reason, "no_readable_content");
});

Deno.test("fetchPage() accepts text/html and application/xhtml+xml only (415 otherwise)", async () => {
  await using h = await startScanHarness();
  using scan = h.fetcher.startScan();
  const xhtml = await scan.fetchPage(`${SITE}${FIXTURE_PATHS.xhtml}`);
  assert.equal(xhtml.contentType, "application/xhtml+xml");
  for (const path of [FIXTURE_PATHS.pdf, FIXTURE_PATHS.noContentType, "/robots.txt"]) {
    const error = await scanFailure(scan.fetchPage(`${SITE}${path}`));
    assert.equal(error.status, 415, path);
    assert.equal(error.kind, "unsupported_content_type");
    assert.ok(!error.message.includes("pdf"));
  }
  const pdf = await scan.fetchPage(`${SITE}${FIXTURE_PATHS.pdf}`, {
    contentTypes: ["application/pdf"],
  });
  assert.match(pdf.body, /^%PDF-1\.4/);
});

Deno.test("fetchPage() turns a 5xx into 502 without reading or echoing its body", async () => {
  await using h = await startScanHarness();
  using scan = h.fetcher.startScan();
  const error = await scanFailure(scan.fetchPage(`${SITE}${FIXTURE_PATHS.serverError}`));
  assert.equal(error.status, 502);
  assert.equal(error.reason, "server_error");
  assert.ok(!error.message.includes("Internal error"));
});

Deno.test("fetchPage() returns a 4xx page for the handler to judge", async () => {
  await using h = await startScanHarness();
  using scan = h.fetcher.startScan();
  const page = await scan.fetchPage(`${SITE}${FIXTURE_PATHS.notFound}`);
  assert.equal(page.status, 404);
  assert.match(page.body, /Not found/);
});

Deno.test("fetchPage() decodes by the header charset, then a meta charset", async () => {
  await using h = await startScanHarness();
  using scan = h.fetcher.startScan();
  const latin1 = await scan.fetchPage(`${SITE}${FIXTURE_PATHS.latin1}`);
  assert.equal(latin1.charset, "windows-1252");
  assert.match(latin1.body, /Café crème/);
  const meta = await scan.fetchPage(`${SITE}${FIXTURE_PATHS.metaCharset}`);
  assert.equal(meta.charset, "windows-1252");
  assert.match(meta.body, /<p>Naïve<\/p>/);
  const gzip = await scan.fetchPage(`${SITE}${FIXTURE_PATHS.gzip}`);
  assert.ok(gzip.body.includes(PAGE_TEXT));
});

Deno.test("decodeBody(): BOM first, then header, then meta, then UTF-8; unknown labels skipped", () => {
  const utf8 = new TextEncoder().encode("<p>é</p>");
  assert.deepEqual(decodeBody(utf8, null), { text: "<p>é</p>", charset: "utf-8" });
  assert.deepEqual(decodeBody(utf8, "text/html; charset=nonsense"), {
    text: "<p>é</p>",
    charset: "utf-8",
  });
  const bom16 = new Uint8Array([0xff, 0xfe, 0x68, 0x00, 0x69, 0x00]);
  assert.deepEqual(decodeBody(bom16, "text/html; charset=iso-8859-1"), {
    text: "hi",
    charset: "utf-16le",
  });
  const latin = Uint8Array.from("<meta charset=utf-8><p>\u00e9</p>", (c) => c.charCodeAt(0));
  assert.equal(
    decodeBody(latin, 'text/html; charset="ISO-8859-1"').text,
    "<meta charset=utf-8><p>é</p>",
  );
  const metaUtf16 = new TextEncoder().encode('<meta charset="utf-16"><p>é</p>');
  assert.equal(decodeBody(metaUtf16, "text/html").charset, "utf-8");
  const httpEquiv = Uint8Array.from(
    '<meta http-equiv="Content-Type" content="text/html; charset=koi8-r">',
    (c) => c.charCodeAt(0),
  );
  assert.equal(decodeBody(httpEquiv, "text/html").charset, "koi8-r");
  const cut = new TextEncoder().encode("é").subarray(0, 1);
  assert.equal(decodeBody(cut, null).text, "\ufffd");
});

Deno.test("asScanError() turns anything unexpected into a 500 with no detail, keeping the cause", () => {
  const cause = new TypeError("secret detail 10.0.0.1");
  const error = asScanError(cause);
  assert.equal(error.status, 500);
  assert.equal(error.kind, "internal");
  assert.equal(error.message, "Internal error");
  assert.equal(error.cause, cause);
  const known = new ScanError("policy_refused", "port", "The target's port is not allowed");
  assert.equal(asScanError(known), known);
});
