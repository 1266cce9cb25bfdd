/** Robots rules (RFC 9309) as the scanner applies them. */
import assert from "node:assert/strict";
import { productToken } from "../../shared/scanner/robots_rules.ts";
import { DEFAULT_USER_AGENT } from "../../shared/scanner/safe_fetcher.ts";
import type { ScanError } from "../../shared/scanner/scan_error.ts";
import type { ScanSession } from "../../shared/scanner/scan_session.ts";
import { PUBLIC_V4, PUBLIC_V4_OTHER } from "../support/fake_network.ts";
import { FIXTURE_PATHS, type RobotsVariant } from "../support/fixture_site.ts";
import { scanFailure, type ScanHarnessOptions, startScanHarness } from "../support/scan_harness.ts";

const SITE = "http://site.test";

function refusal(scan: ScanSession, path: string): Promise<ScanError> {
  return scanFailure(scan.fetchPage(`${SITE}${path}`), `${path} to be refused`);
}

async function withRobots(
  robots: RobotsVariant,
  test: (scan: ScanSession, paths: () => string[]) => Promise<void>,
  options: ScanHarnessOptions = {},
) {
  await using h = await startScanHarness({ ...options, site: { ...options.site, robots } });
  using scan = h.fetcher.startScan();
  await test(scan, () => h.site.requests.map((request) => request.path));
}

Deno.test("productToken() is the first product name of the User-Agent", () => {
  assert.equal(productToken(DEFAULT_USER_AGENT), "ComplianceAuditBot");
  assert.equal(productToken("ComplianceAuditBot/1.0 (+https://x.test/bot)"), "ComplianceAuditBot");
  assert.equal(productToken("my-bot"), "my-bot");
});

Deno.test("robots: an allowing robots.txt lets the page through and is fetched once per scan", async () => {
  await withRobots("allow-all", async (scan, paths) => {
    await scan.fetchPage(`${SITE}/page.html`);
    await scan.fetchPage(`${SITE}/`);
    const rules = await scan.robots(`${SITE}/anything`);
    assert.equal(rules.source, "file");
    assert.equal(rules.status, 200);
    assert.deepEqual(paths(), ["/robots.txt", "/page.html", "/"]);
  });
});

Deno.test("robots: a disallowed path is refused with 403 before it is requested", async () => {
  await withRobots("disallow-private", async (scan, paths) => {
    const error = await refusal(scan, FIXTURE_PATHS.privatePage);
    assert.equal(error.status, 403);
    assert.equal(error.kind, "robots_refused");
    assert.equal(error.reason, "robots_disallowed");
    assert.match(error.message, /ComplianceAuditBot/);
    assert.equal((await scan.fetchPage(`${SITE}/page.html`)).status, 200);
    assert.deepEqual(paths(), ["/robots.txt", "/page.html"]);
  });
});

Deno.test("robots: Disallow: / refuses every path", async () => {
  await withRobots("disallow-all", async (scan, paths) => {
    assert.equal((await refusal(scan, "/")).status, 403);
    assert.equal((await refusal(scan, "/page.html")).status, 403);
    assert.deepEqual(paths(), ["/robots.txt"]);
  });
});

Deno.test("robots: the group of the scanner's product token wins over *", async () => {
  await withRobots("disallow-bot", async (scan) => {
    assert.equal((await refusal(scan, "/page.html")).reason, "robots_disallowed");
    assert.equal((await scan.fetchPage(`${SITE}${FIXTURE_PATHS.privatePage}`)).status, 200);
  });
  await withRobots("disallow-bot", async (scan) => {
    assert.equal((await scan.fetchPage(`${SITE}/page.html`)).status, 200);
  }, { fetcher: { userAgent: "OtherBot/2.0" } });
});

Deno.test("robots: a 4xx robots.txt (404, 403) means everything is allowed", async () => {
  for (const variant of ["missing", "forbidden"] as const) {
    await withRobots(variant, async (scan) => {
      assert.equal((await scan.fetchPage(`${SITE}${FIXTURE_PATHS.privatePage}`)).status, 200);
      const rules = await scan.robots(SITE);
      assert.equal(rules.source, "none");
      assert.equal(rules.status, variant === "missing" ? 404 : 403);
    });
  }
});

Deno.test("robots: a 5xx robots.txt means complete disallow (403)", async () => {
  await withRobots("server-error", async (scan, paths) => {
    const error = await refusal(scan, "/page.html");
    assert.equal(error.status, 403);
    assert.equal(error.reason, "robots_unavailable");
    const rules = await scan.robots(SITE);
    assert.equal(rules.source, "unavailable");
    assert.equal(rules.status, 503);
    assert.deepEqual(paths(), ["/robots.txt"]);
  });
});

Deno.test("robots: a robots.txt that times out means complete disallow (403)", async () => {
  await withRobots("slow", async (scan) => {
    const error = await refusal(scan, "/page.html");
    assert.equal(error.status, 403);
    assert.equal(error.reason, "robots_unavailable");
    assert.equal((await scan.robots(SITE)).source, "unavailable");
  }, { site: { slowMs: 2000 }, fetcher: { limits: { requestTimeoutMs: 150 } } });
});

Deno.test("robots: robots.txt redirects are followed (at most five) through the same checks", async () => {
  await withRobots("redirect", async (scan, paths) => {
    assert.equal((await refusal(scan, FIXTURE_PATHS.privatePage)).reason, "robots_disallowed");
    assert.deepEqual(paths(), ["/robots.txt", "/robots-target.txt"]);
  });
  await withRobots("redirect-loop", async (scan, paths) => {
    assert.equal((await refusal(scan, "/page.html")).reason, "robots_unavailable");
    assert.equal(paths().length, 6);
  });
});

Deno.test("robots: a robots.txt redirect to a refused address is a policy refusal, never a connection", async () => {
  await using h = await startScanHarness({
    site: { robots: { status: 302, body: "", location: "http://internal.test/robots.txt" } },
    names: { "internal.test": ["10.0.0.7"] },
  });
  using scan = h.fetcher.startScan();
  const error = await refusal(scan, "/page.html");
  assert.equal(error.kind, "policy_refused");
  assert.equal(error.reason, "private_address");
  assert.deepEqual(h.connect.calls.map((call) => call.address), [PUBLIC_V4]);
  assert.deepEqual(h.site.requests.map((request) => request.path), ["/robots.txt"]);
});

Deno.test("robots: an origin that cannot be reached at all is a 502, not a robots verdict", async () => {
  await withRobots("allow-all", async (scan, paths) => {
    const error = await scanFailure(scan.fetchPage("http://down.test/page.html"));
    assert.equal(error.status, 502);
    assert.equal(error.reason, "connect");
    assert.deepEqual(paths(), []);
  }, { names: { "down.test": [PUBLIC_V4_OTHER] } });
});

Deno.test("robots: only the first 500 KiB of robots.txt count", async () => {
  const body = `User-agent: *\nDisallow: /early/\n#${
    "x".repeat(520 * 1024)
  }\nDisallow: /private/\n`;
  await withRobots({ status: 200, body }, async (scan) => {
    const rules = await scan.robots(SITE);
    assert.equal(rules.isAllowed(`${SITE}/early/page.html`), false);
    assert.equal(rules.isAllowed(`${SITE}/private/page.html`), true);
  });
});

Deno.test("robots: rules check more same-origin URLs without fetching again, and refuse other origins", async () => {
  await withRobots("disallow-private", async (scan, paths) => {
    const page = await scan.fetchPage(`${SITE}/page.html`);
    const rules = await scan.robots(page.url);
    assert.equal(rules.origin, SITE);
    assert.equal(rules.isAllowed(`${SITE}/about`), true);
    assert.equal(rules.isAllowed(new URL("/private/x", page.url)), false);
    assert.throws(() => rules.isAllowed("http://other.test/"), RangeError);
    assert.throws(() => rules.isAllowed("https://site.test/"), RangeError);
    assert.deepEqual(paths(), ["/robots.txt", "/page.html"]);
  });
});

Deno.test("robots: a redirect into a disallowed path is refused before that hop is requested", async () => {
  await withRobots("disallow-private", async (scan, paths) => {
    const error = await refusal(scan, FIXTURE_PATHS.redirectTo("/private/page.html"));
    assert.equal(error.reason, "robots_disallowed");
    assert.ok(!paths().includes("/private/page.html"));
  });
});

Deno.test("robots: the scanner sends its User-Agent for robots.txt and pages", async () => {
  await using h = await startScanHarness();
  using scan = h.fetcher.startScan();
  await scan.fetchPage(`${SITE}/page.html`);
  assert.deepEqual(h.site.requests.map((request) => request.userAgent), [
    DEFAULT_USER_AGENT,
    DEFAULT_USER_AGENT,
  ]);
});
