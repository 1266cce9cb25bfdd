/**
 * SCAN_ALLOWED_TARGETS: a test suite may scan its own loopback site, and
 * nothing else opens up. These tests connect to the loopback fixture they
 * start, and only to it.
 */
import assert from "node:assert/strict";
import { parseAllowedTargets } from "../../shared/scanner/allowed_targets.ts";
import { createSafeFetcher, type SafeFetcherOptions } from "../../shared/scanner/safe_fetcher.ts";
import { fakeResolver, routingConnector } from "../support/fake_network.ts";
import {
  FIXTURE_PATHS,
  type FixtureSiteOptions,
  PAGE_TEXT,
  startFixtureSite,
} from "../support/fixture_site.ts";
import { scanFailure } from "../support/scan_harness.ts";

async function withLoopbackSite(
  site: FixtureSiteOptions,
  allowed: (port: number) => string[],
  test: (context: {
    port: number;
    fetch: (url: string) => Promise<unknown>;
    calls: () => { address: string; port: number }[];
    paths: () => string[];
  }) => Promise<void>,
  options: Omit<SafeFetcherOptions, "allowedTargets" | "connect"> = {},
) {
  await using fixture = await startFixtureSite(site);
  const connect = routingConnector({}, { passLoopback: true });
  const fetcher = createSafeFetcher({
    resolve: fakeResolver({ "loop.test": ["127.0.0.1"] }),
    ...options,
    connect,
    allowedTargets: parseAllowedTargets(allowed(fixture.port)),
  });
  using scan = fetcher.startScan();
  await test({
    port: fixture.port,
    fetch: (url) => scan.fetchPage(url),
    calls: () => connect.calls,
    paths: () => fixture.requests.map((request) => request.path),
  });
}

async function assertRefused(attempt: Promise<unknown>, url: string) {
  assert.equal((await scanFailure(attempt, `${url} to be refused`)).status, 403, url);
}

Deno.test("allow-list: an IP:port entry lets the scanner reach its own loopback site with the real connector", async () => {
  await using site = await startFixtureSite({ robots: "disallow-private" });
  const fetcher = createSafeFetcher({
    allowedTargets: parseAllowedTargets([`127.0.0.1:${site.port}`]),
  });
  using scan = fetcher.startScan();
  const page = await scan.fetchPage(`http://127.0.0.1:${site.port}${FIXTURE_PATHS.page}`);
  assert.ok(page.body.includes(PAGE_TEXT));
  const robots = await scan.robots(page.url);
  assert.equal(robots.isAllowed(`http://127.0.0.1:${site.port}/private/x`), false);
  assert.deepEqual(site.requests.map((request) => request.path), ["/robots.txt", "/page.html"]);
});

Deno.test("allow-list: other forms of the same address, other addresses and other ports stay refused", async () => {
  await withLoopbackSite({}, (port) => [`127.0.0.1:${port}`], async ({ port, fetch, calls }) => {
    const refused = [
      `http://127.0.0.2:${port}/`,
      `http://[::1]:${port}/`,
      `http://localhost:${port}/`,
      `http://2130706433:${port}/`,
      `http://0x7f000001:${port}/`,
      `http://0x7f.0.0.1:${port}/`,
      `http://0177.0.0.1:${port}/`,
      `http://127.1:${port}/`,
      `http://[::ffff:127.0.0.1]:${port}/`,
      `http://[::ffff:7f00:1]:${port}/`,
      `http://127.0.0.1:${port + 1}/`,
      "http://127.0.0.1/",
      "https://127.0.0.1/",
      `http://loop.test:${port}/`,
    ];
    for (const url of refused) await assertRefused(fetch(url), url);
    assert.deepEqual(calls(), []);
    await fetch(`http://127.0.0.1:${port}/page.html`);
    assert.ok(calls().every((call) => call.address === "127.0.0.1" && call.port === port));
  });
});

Deno.test("allow-list: an IP entry without a port allows only the allowed ports (80, 443)", async () => {
  await withLoopbackSite({}, () => ["127.0.0.1"], async ({ port, fetch, calls }) => {
    await assertRefused(fetch(`http://127.0.0.1:${port}/`), "a port outside 80 and 443");
    assert.deepEqual(calls(), []);
  });
});

Deno.test("allow-list: an IP entry with configured ports reaches the site on those ports", async () => {
  await using site = await startFixtureSite();
  const connect = routingConnector({}, { passLoopback: true });
  const fetcher = createSafeFetcher({
    resolve: fakeResolver({ "loop.test": ["127.0.0.1"] }),
    connect,
    allowedTargets: parseAllowedTargets(["127.0.0.1"]),
    allowedPorts: [site.port],
  });
  using scan = fetcher.startScan();
  assert.ok((await scan.fetchPage(`http://127.0.0.1:${site.port}/`)).body.includes(PAGE_TEXT));
  await assertRefused(scan.fetchPage(`http://loop.test:${site.port}/`), "loop.test");
  await assertRefused(scan.fetchPage(`http://127.0.0.2:${site.port}/`), "127.0.0.2");
  assert.ok(connect.calls.every((call) => call.address === "127.0.0.1"));
});

Deno.test("allow-list: an IPv6 entry allows [::1] and not 127.0.0.1", async () => {
  await withLoopbackSite(
    { hostname: "::1" },
    (port) => [`[::1]:${port}`],
    async ({ port, fetch, calls, paths }) => {
      await fetch(`http://[::1]:${port}/page.html`);
      await assertRefused(fetch(`http://127.0.0.1:${port}/`), "127.0.0.1");
      await assertRefused(fetch(`http://[0:0:0:0:0:0:0:1]:${port}/`), "long form");
      assert.deepEqual(calls().map((call) => call.address), ["::1", "::1"]);
      assert.deepEqual(paths(), ["/robots.txt", "/page.html"]);
    },
  );
});

Deno.test("allow-list: redirects from an allowed site are checked like any other hop", async () => {
  await withLoopbackSite({}, (port) => [`127.0.0.1:${port}`], async ({ port, fetch, paths }) => {
    const base = `http://127.0.0.1:${port}`;
    const page = await fetch(`${base}${FIXTURE_PATHS.sameSiteRedirect}`) as { url: string };
    assert.equal(page.url, `${base}/page.html`);
    for (
      const location of [
        `http://2130706433:${port}/page.html`,
        `http://localhost:${port}/page.html`,
        `http://127.0.0.2:${port}/page.html`,
        `http://127.0.0.1:${port + 1}/page.html`,
      ]
    ) {
      await assertRefused(fetch(`${base}${FIXTURE_PATHS.redirectTo(location)}`), location);
    }
    assert.equal(paths().filter((path) => path === "/page.html").length, 1);
  });
});

Deno.test("allow-list: empty by default, so the loopback site is refused", async () => {
  await withLoopbackSite({}, () => [], async ({ port, fetch, calls }) => {
    await assertRefused(fetch(`http://127.0.0.1:${port}/`), "no allow-list");
    assert.deepEqual(calls(), []);
  });
});
