/**
 * The SSRF policy end to end: every refusal happens before any connection
 * is attempted (the recording connector is never called and the loopback
 * fixture never sees a request), and every connection goes to exactly the
 * address that was checked.
 */
import assert from "node:assert/strict";
import type { ScanError } from "../../shared/scanner/scan_error.ts";
import {
  fakeResolver,
  PUBLIC_V4,
  PUBLIC_V4_OTHER,
  PUBLIC_V6,
  routingConnector,
} from "../support/fake_network.ts";
import { FIXTURE_PATHS, PAGE_TEXT } from "../support/fixture_site.ts";
import { scanFailure, type ScanHarness, startScanHarness } from "../support/scan_harness.ts";
import { LOCALHOST_URLS, REFUSED_ADDRESSES, REFUSED_LITERAL_URLS } from "../support/ssrf_matrix.ts";
import { createSafeFetcher } from "../../shared/scanner/safe_fetcher.ts";

async function assertRefused(
  attempt: Promise<unknown>,
  expected: { status: number; reason: string; secrets?: string[] },
): Promise<ScanError> {
  const error = await scanFailure(attempt, `a refusal (${expected.reason})`);
  assert.equal(error.reason, expected.reason);
  assert.equal(error.status, expected.status);
  for (const secret of expected.secrets ?? []) {
    assert.ok(!error.message.includes(secret), `the message names ${secret}: ${error.message}`);
  }
  return error;
}

function assertNothingConnected(h: ScanHarness) {
  assert.deepEqual(h.connect.calls, [], "a connection was attempted");
  assert.deepEqual(h.site.requests, [], "the fixture was reached");
}

Deno.test("fetchPage() refuses a name resolving to any refused address, before connecting", async () => {
  const names = Object.fromEntries(
    Object.keys(REFUSED_ADDRESSES).map((address, i) => [`host-${i}.test`, [address]]),
  );
  await using h = await startScanHarness({ names });
  using scan = h.fetcher.startScan();
  const entries = Object.entries(REFUSED_ADDRESSES);
  assert.ok(entries.length >= 30);
  for (const [i, [address, reason]] of entries.entries()) {
    const error = await assertRefused(scan.fetchPage(`http://host-${i}.test/page.html`), {
      status: 403,
      reason,
      secrets: [address, `host-${i}.test`],
    });
    assert.equal(error.kind, "policy_refused");
    assert.match(error.message, /^The target resolves to an? /);
  }
  assertNothingConnected(h);
});

Deno.test("fetchPage() refuses IP-literal URLs in every notation, before resolving or connecting", async () => {
  await using h = await startScanHarness();
  using scan = h.fetcher.startScan();
  for (const [url, reason] of Object.entries(REFUSED_LITERAL_URLS)) {
    const host = new URL(url).hostname;
    await assertRefused(scan.fetchPage(url), { status: 403, reason, secrets: [host] });
  }
  assert.deepEqual(h.resolve.lookups, []);
  assertNothingConnected(h);
});

Deno.test("fetchPage() refuses localhost names without resolving them", async () => {
  await using h = await startScanHarness({ names: { "localhost": [PUBLIC_V4] } });
  using scan = h.fetcher.startScan();
  for (const url of LOCALHOST_URLS) {
    await assertRefused(scan.fetchPage(url), { status: 403, reason: "localhost" });
  }
  assert.deepEqual(h.resolve.lookups, []);
  assertNothingConnected(h);
});

Deno.test("fetchPage() refuses a name with one public and one private address", async () => {
  await using h = await startScanHarness({
    names: {
      "mixed-v4.test": [PUBLIC_V4, "10.0.0.1"],
      "mixed-v6.test": [PUBLIC_V4, PUBLIC_V6, "::1"],
      "mixed-order.test": ["169.254.169.254", PUBLIC_V4],
    },
  });
  using scan = h.fetcher.startScan();
  await assertRefused(scan.fetchPage("http://mixed-v4.test/"), {
    status: 403,
    reason: "private_address",
  });
  await assertRefused(scan.fetchPage("http://mixed-v6.test/"), {
    status: 403,
    reason: "loopback_address",
  });
  await assertRefused(scan.fetchPage("http://mixed-order.test/"), {
    status: 403,
    reason: "link_local_address",
  });
  assertNothingConnected(h);
});

Deno.test("fetchPage() refuses a name that resolves to nothing (403) and reports a DNS failure (502)", async () => {
  await using h = await startScanHarness({ names: { "broken.test": "fail" } });
  using scan = h.fetcher.startScan();
  await assertRefused(scan.fetchPage("http://nowhere.test/"), {
    status: 403,
    reason: "no_address",
  });
  await assertRefused(scan.fetchPage("http://broken.test/"), { status: 502, reason: "dns" });
  assertNothingConnected(h);
});

Deno.test("fetchPage() refuses ports other than 80 and 443 before resolving", async () => {
  await using h = await startScanHarness();
  using scan = h.fetcher.startScan();
  for (const url of ["http://site.test:8080/", "https://site.test:22/", "http://site.test:6379/"]) {
    await assertRefused(scan.fetchPage(url), { status: 403, reason: "port" });
  }
  assert.deepEqual(h.resolve.lookups, []);
  assertNothingConnected(h);
});

Deno.test("fetchPage() allows configured ports instead of 80 and 443", async () => {
  await using h = await startScanHarness({ fetcher: { allowedPorts: [8080] } });
  using scan = h.fetcher.startScan();
  const page = await scan.fetchPage("http://site.test:8080/page.html");
  assert.equal(page.status, 200);
  await assertRefused(scan.fetchPage("http://site.test/"), { status: 403, reason: "port" });
  assert.ok(h.connect.calls.every((call) => call.port === 8080));
});

Deno.test("fetchPage() connects to exactly the checked address, never to a name", async () => {
  await using h = await startScanHarness();
  using scan = h.fetcher.startScan();
  const page = await scan.fetchPage("http://site.test/page.html");
  assert.equal(page.status, 200);
  assert.ok(page.body.includes(PAGE_TEXT));
  assert.deepEqual(h.connect.calls, [
    { address: PUBLIC_V4, port: 80 },
    { address: PUBLIC_V4, port: 80 },
  ]);
  assert.deepEqual(h.site.requests.map((r) => [r.path, r.host]), [
    ["/robots.txt", "site.test"],
    ["/page.html", "site.test"],
  ]);
});

Deno.test("fetchPage() tries the checked addresses in order, and only those", async () => {
  await using h = await startScanHarness({
    names: { "two.test": [PUBLIC_V4_OTHER, PUBLIC_V4] },
  });
  using scan = h.fetcher.startScan();
  const page = await scan.fetchPage("http://two.test/page.html");
  assert.equal(page.status, 200);
  const asked = new Set(h.connect.calls.map((call) => call.address));
  assert.deepEqual([...asked].sort(), [PUBLIC_V4, PUBLIC_V4_OTHER].sort());
  assert.equal(h.connect.calls[0].address, PUBLIC_V4_OTHER);
});

Deno.test("fetchPage() reaches a public IPv6 address and a public IP literal", async () => {
  await using h = await startScanHarness({
    names: { "v6.test": [PUBLIC_V6] },
    routedAddresses: [PUBLIC_V6],
  });
  using scan = h.fetcher.startScan();
  assert.equal((await scan.fetchPage("http://v6.test/page.html")).status, 200);
  assert.equal((await scan.fetchPage(`http://${PUBLIC_V4}/page.html`)).status, 200);
  assert.equal((await scan.fetchPage(`http://[::ffff:${PUBLIC_V4}]/page.html`)).status, 200);
  assert.deepEqual(
    [...new Set(h.connect.calls.map((call) => call.address))].sort(),
    [PUBLIC_V4, PUBLIC_V6].sort(),
  );
  assert.equal(h.resolve.lookups.filter((name) => name !== "v6.test").length, 0);
});

Deno.test("DNS rebinding: a name that answers public first and loopback next never gets a loopback connection", async () => {
  await using h = await startScanHarness({
    names: { "rebind.test": (lookup) => lookup === 1 ? [PUBLIC_V4] : ["127.0.0.1"] },
  });
  using scan = h.fetcher.startScan();
  await assertRefused(scan.fetchPage("http://rebind.test/page.html"), {
    status: 403,
    reason: "loopback_address",
    secrets: ["127.0.0.1"],
  });
  assert.deepEqual(h.resolve.lookups, ["rebind.test", "rebind.test"]);
  assert.deepEqual(h.connect.calls, [{ address: PUBLIC_V4, port: 80 }]);
  assert.deepEqual(h.site.requests.map((r) => r.path), ["/robots.txt"]);
});

Deno.test("DNS pinning: each request connects to the address its own check returned", async () => {
  await using h = await startScanHarness({
    names: { "moving.test": (lookup) => [lookup === 1 ? PUBLIC_V4 : PUBLIC_V4_OTHER] },
    routedAddresses: [PUBLIC_V4_OTHER],
  });
  using scan = h.fetcher.startScan();
  const page = await scan.fetchPage("http://moving.test/page.html");
  assert.equal(page.status, 200);
  assert.deepEqual(h.resolve.lookups, ["moving.test", "moving.test"]);
  assert.deepEqual(h.connect.calls, [
    { address: PUBLIC_V4, port: 80 },
    { address: PUBLIC_V4_OTHER, port: 80 },
  ]);
});

Deno.test("fetchPage() checks every redirect hop again and refuses before connecting to it", async () => {
  await using h = await startScanHarness({
    names: { "internal.test": ["10.0.0.5"], "meta.test": ["169.254.169.254"] },
  });
  using scan = h.fetcher.startScan();
  const cases: [string, number, string][] = [
    [FIXTURE_PATHS.internalRedirect, 403, "private_address"],
    [FIXTURE_PATHS.redirectTo("http://meta.test/latest/meta-data/"), 403, "link_local_address"],
    [FIXTURE_PATHS.redirectTo("http://127.0.0.1/"), 403, "loopback_address"],
    [FIXTURE_PATHS.redirectTo("http://[::1]/"), 403, "loopback_address"],
    [FIXTURE_PATHS.redirectTo("http://2130706433/"), 403, "loopback_address"],
    [FIXTURE_PATHS.redirectTo("http://[::ffff:a9fe:a9fe]/"), 403, "link_local_address"],
    [FIXTURE_PATHS.redirectTo("http://localhost/"), 403, "localhost"],
    [FIXTURE_PATHS.redirectTo("http://site.test:8080/"), 403, "port"],
    [FIXTURE_PATHS.redirectTo("file:///etc/passwd"), 403, "scheme"],
    [FIXTURE_PATHS.redirectTo("gopher://site.test/"), 403, "scheme"],
    [FIXTURE_PATHS.redirectTo("http://user:pw@site.test/"), 403, "credentials"],
    [FIXTURE_PATHS.redirectTo("http://nowhere.test/"), 403, "no_address"],
  ];
  for (const [path, status, reason] of cases) {
    await assertRefused(scan.fetchPage(`http://site.test${path}`), { status, reason });
  }
  assert.ok(h.connect.calls.every((call) => call.address === PUBLIC_V4));
  assert.ok(!h.resolve.lookups.includes("localhost"));
});

Deno.test("fetchPage() follows a redirect to another public origin and checks that origin's robots", async () => {
  await using h = await startScanHarness({
    names: { "other.test": [PUBLIC_V4_OTHER] },
    routedAddresses: [PUBLIC_V4_OTHER],
  });
  using scan = h.fetcher.startScan();
  const page = await scan.fetchPage(
    `http://site.test${FIXTURE_PATHS.redirectTo("http://other.test/page.html")}`,
  );
  assert.equal(page.url, "http://other.test/page.html");
  assert.equal(page.redirects, 1);
  assert.deepEqual(h.site.requests.map((r) => [r.host, r.path]), [
    ["site.test", "/robots.txt"],
    ["site.test", "/redirect/to?location=http%3A%2F%2Fother.test%2Fpage.html"],
    ["other.test", "/robots.txt"],
    ["other.test", "/page.html"],
  ]);
  assert.deepEqual(h.connect.calls.map((call) => call.address), [
    PUBLIC_V4,
    PUBLIC_V4,
    PUBLIC_V4_OTHER,
    PUBLIC_V4_OTHER,
  ]);
});

Deno.test("fetchPage() follows five redirects and refuses the sixth (502)", async () => {
  await using h = await startScanHarness();
  using scan = h.fetcher.startScan();
  const page = await scan.fetchPage(`http://site.test${FIXTURE_PATHS.redirectChain(5)}`);
  assert.equal(page.redirects, 5);
  assert.equal(page.hops.length, 6);
  assert.deepEqual(page.hops.map((hop) => hop.status), [302, 302, 302, 302, 302, 200]);
  assert.equal(page.url, "http://site.test/redirect/chain/0");
  const before = h.site.requests.length;
  await assertRefused(scan.fetchPage(`http://site.test${FIXTURE_PATHS.redirectChain(6)}`), {
    status: 502,
    reason: "too_many_redirects",
  });
  assert.equal(h.site.requests.length - before, 6, "the sixth redirect is not followed");
});

Deno.test("fetchPage() follows a same-site redirect", async () => {
  await using h = await startScanHarness();
  using scan = h.fetcher.startScan();
  const page = await scan.fetchPage(`http://site.test${FIXTURE_PATHS.sameSiteRedirect}#frag`);
  assert.equal(page.url, "http://site.test/page.html");
  assert.equal(page.redirects, 1);
  assert.ok(page.body.includes(PAGE_TEXT));
});

Deno.test("fetchPage() refuses a malformed target_url with 400 before anything else", async () => {
  await using h = await startScanHarness();
  using scan = h.fetcher.startScan();
  for (
    const url of ["http://site.test/a b", "ftp://site.test/", "http://u:p@site.test/", "nope"]
  ) {
    await assertRefused(scan.fetchPage(url), {
      status: 400,
      reason: "url",
    });
  }
  assert.deepEqual(h.resolve.lookups, []);
  assertNothingConnected(h);
});

Deno.test("the resolver is never consulted for IP literals", async () => {
  const resolve = fakeResolver({});
  const connect = routingConnector({});
  const fetcher = createSafeFetcher({ resolve, connect });
  using scan = fetcher.startScan();
  await assertRefused(scan.fetchPage("http://10.0.0.1/"), {
    status: 403,
    reason: "private_address",
  });
  await assertRefused(scan.fetchPage("http://[::1]/"), {
    status: 403,
    reason: "loopback_address",
  });
  assert.equal(connect.calls.length, 0, "a refused literal was connected to");
  // A public literal is connected to as written (the connector refuses it: 502), never looked up.
  await assertRefused(scan.fetchPage(`http://${PUBLIC_V4}/`), { status: 502, reason: "connect" });
  assert.deepEqual(connect.calls.map((call) => call.address), [PUBLIC_V4]);
  assert.deepEqual(resolve.lookups, []);
});
