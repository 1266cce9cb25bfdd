/**
 * The landing page in a real browser: Debian's Chromium (/usr/bin/chromium)
 * driven by playwright-core, never a browser download. The page is served by
 * the local server (tests/support/service.ts) on a fresh database with the
 * seed rulebook, and scans a loopback fixture site that the scanner's
 * allow-list (SCAN_ALLOWED_TARGETS' parser, as the other runWebsiteAudit
 * tests) lets through: the browser and the scanner contact nothing but
 * 127.0.0.1. The advisory comes from a fake model on 127.0.0.1.
 *
 * Without Chromium the test is skipped locally with a message, and fails in
 * CI (`CI` set and not "false"/"0"). Screenshots at desktop and phone width
 * are written to .artifacts/web/.
 */
import assert from "node:assert/strict";
import axe from "axe-core";
import type { BrowserContext, Page } from "playwright-core";
import { createAdvisory } from "../../shared/advisory/advisory.ts";
import { loadConfig } from "../../shared/config.ts";
import { WebsiteAuditResponse } from "../../shared/contract/website_audit.ts";
import { clearRulebookCache } from "../../shared/engine/rulebook_cache.ts";
import { createLogger } from "../../shared/log/logger.ts";
import { createSafeFetcher } from "../../shared/scanner/safe_fetcher.ts";
import { dbTargets } from "../support/db.ts";
import { startFakeModel } from "../support/fake_model.ts";
import { type FixtureSite, startFixtureSite } from "../support/fixture_site.ts";
import { startService, type StartServiceOptions, type TestService } from "../support/service.ts";
import { COMPLIANCE_PAGES, HOME } from "../support/website_pages.ts";

/**
 * The callbacks given to page.evaluate() run in the page, where `document` is
 * the DOM's; the test program itself is type-checked without the DOM library.
 */
// deno-lint-ignore no-explicit-any
declare const document: any;

/** Debian's `chromium` package. */
const CHROMIUM = "/usr/bin/chromium";
const ARTIFACTS = new URL("../../.artifacts/web/", import.meta.url);
const WEB = new URL("../../web/", import.meta.url);
const DESKTOP = { width: 1280, height: 900 };
const PHONE = { width: 375, height: 740 };
/** Generous: a scan of the fixture site takes well under a second, the machine may be loaded. */
const WAIT_MS = 60_000;

/** Markup in model-written text that the page must show as text, never run. */
const HOSTILE_TITLE = `Chat <img src=x onerror="document.body.dataset.injected='yes'"> disclosure`;
const HOME_EXCERPT = "Gentle family dentistry in Sacramento since 1998.";

function chromiumState(): { run: true } | { run: false; reason: string } {
  try {
    if (Deno.statSync(CHROMIUM).isFile) return { run: true };
  } catch {
    // missing: below
  }
  const ci = Deno.env.get("CI");
  if (ci && ci !== "false" && ci !== "0") return { run: true }; // and fail at launch, loudly
  return {
    run: false,
    reason: `${CHROMIUM} is missing: the landing page browser test is skipped ` +
      "(apt-get install -y --no-install-recommends chromium; in CI it fails instead)",
  };
}

const state = chromiumState();
if (!state.run) console.warn(state.reason);

/** A fresh profile, and the flags that keep Chromium off the network and quiet. */
async function launch(): Promise<BrowserContext & AsyncDisposable> {
  try {
    Deno.statSync(CHROMIUM);
  } catch {
    throw new Error(
      `${CHROMIUM} is missing and CI is set: install Debian's chromium (.ci/run does)`,
    );
  }
  // playwright-core probes for WSL when it loads (is-wsl reads /proc/sys/fs/binfmt_misc/),
  // which Deno allows only under --allow-all; its own switch defers the probe, which
  // nothing on this path calls. Hence a dynamic import, after the switch.
  Deno.env.set("__IS_WSL_TEST__", "1");
  const { chromium } = await import("playwright-core");
  const profile = await Deno.makeTempDir({ prefix: "landing-chromium-" });
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--disable-dev-shm-usage",
    ],
    viewport: DESKTOP,
    timeout: WAIT_MS,
  });
  return Object.assign(context, {
    async [Symbol.asyncDispose]() {
      await context.close();
      await Deno.remove(profile, { recursive: true }).catch(() => {});
    },
  });
}

/** A service whose scanner may reach exactly the fixture site's IP:port. */
function serviceFor(
  site: FixtureSite,
  options: StartServiceOptions = {},
): Promise<TestService> {
  clearRulebookCache();
  const config = loadConfig({ SCAN_ALLOWED_TARGETS: `127.0.0.1:${site.port}` });
  const target = dbTargets().at(-1)!; // PostgreSQL when TEST_DATABASE_URL is set, else PGlite
  return startService(target, {
    scanFetcher: createSafeFetcher({
      allowedTargets: config.SCAN_ALLOWED_TARGETS,
      allowedPorts: config.SCAN_ALLOWED_PORTS,
    }),
    ...options,
  });
}

/** How many scans the service has stored. */
async function storedScans(service: TestService): Promise<number> {
  const [{ n }] = await service.query<{ n: number }>(
    "select count(*)::int as n from public.website_scans",
  );
  return Number(n);
}

const pageUrl = (service: TestService) => service.baseUrl.replace(/\/functions$/, "/");

/** Types `target` into the form, submits it, and waits for results or a problem. */
async function submit(page: Page, target: string): Promise<"results" | "problem"> {
  await page.fill("#target-url", target);
  await page.click("#scan-button");
  return await settled(page);
}

async function settled(page: Page): Promise<"results" | "problem"> {
  await page.waitForSelector("#results:not([hidden]), #problem:not([hidden])", {
    timeout: WAIT_MS,
  });
  return await page.isVisible("#results") ? "results" : "problem";
}

async function problem(page: Page): Promise<{ title: string; text: string; focused: boolean }> {
  return await page.evaluate(() => ({
    title: document.getElementById("problem-title")!.textContent ?? "",
    text: document.getElementById("problem-text")!.textContent ?? "",
    focused: document.activeElement?.id === "problem",
  }));
}

/** axe-core's serious and critical violations on the page as it stands, and whether contrast ran. */
async function axeCheck(page: Page): Promise<{ serious: string[]; contrastChecked: boolean }> {
  if (!await page.evaluate(() => "axe" in globalThis)) await page.evaluate(axe.source);
  // deno-lint-ignore no-explicit-any
  const results: any = await page.evaluate(() =>
    // deno-lint-ignore no-explicit-any
    (globalThis as any).axe.run(document, { runOnly: ["wcag2a", "wcag2aa", "best-practice"] })
  );
  const serious = results.violations
    .filter((v: { impact: string }) => v.impact === "serious" || v.impact === "critical")
    .map((v: { id: string; nodes: { target: string[] }[] }) =>
      `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`
    );
  const ran = [...results.passes, ...results.violations, ...results.incomplete]
    .map((r: { id: string }) => r.id);
  return { serious, contrastChecked: ran.includes("color-contrast") };
}

async function screenshot(page: Page, name: string): Promise<void> {
  await Deno.mkdir(ARTIFACTS, { recursive: true });
  const file = new URL(name, ARTIFACTS);
  await page.screenshot({ path: file.pathname, fullPage: true });
  assert.ok(Deno.statSync(file).size > 10_000, `${name} is too small to be a screenshot`);
}

Deno.test({
  name: "landing page in Chromium: fixture scan, grouped findings, advisory apart, every " +
    "refusal's message, progress, keyboard, phone width, axe-core, another static host",
  ignore: !state.run,
}, async (t) => {
  await using browser = await launch();
  await using site = await startFixtureSite({
    robots: "disallow-private",
    pages: { "/home.html": HOME, ...COMPLIANCE_PAGES },
  });
  const logger = createLogger({ write: () => {} });
  await using model = await startFakeModel(() => ({
    content: JSON.stringify({
      items: [{
        severity: "warning",
        title: HOSTILE_TITLE,
        plain_english: "The home page names no AI assistant although the chat page has one.",
        category: "ai_disclosure",
        evidence: [{ excerpt: HOME_EXCERPT, source_url: site.url("/home.html") }],
      }],
    }),
  }));
  const service = await serviceFor(site, {
    advisory: createAdvisory({ url: model.url, model: "fake", logger }),
    limits: { scanPerMinute: 100 },
  });
  try {
    const page = await browser.newPage();
    const consoleErrors: string[] = [];
    page.on("console", (message) => {
      if (message.type() === "error") consoleErrors.push(message.text());
    });
    page.on("pageerror", (error) => consoleErrors.push(String(error)));
    await page.goto(pageUrl(service));
    assert.equal(await page.title(), "Website compliance scan: AI disclosure and US state AI laws");

    await t.step(
      "the fixture site: grade and score at a glance, findings grouped with evidence and source links, focus on the results",
      async () => {
        const target = site.url("/home.html");
        assert.equal(await submit(page, target), "results");
        const api = WebsiteAuditResponse.parse(
          await (await service.post("runWebsiteAudit", { target_url: target })).json(),
        );
        const shown = await page.evaluate(() => {
          const text = (id: string) => document.getElementById(id)!.textContent ?? "";
          const count = (id: string) => document.querySelectorAll(`#${id} > li`).length;
          return {
            focused: document.activeElement?.id,
            grade: text("grade"),
            score: text("score-value"),
            counts: [count("critical-list"), count("warnings-list"), count("passed-list")],
            headings: [text("critical-title"), text("warnings-title"), text("passed-title")],
            sources: [...document.querySelectorAll(".group .evidence a")].map((a) => a.href),
            excerpts: [...document.querySelectorAll(".group .evidence blockquote")].map((q) =>
              q.textContent
            ),
          };
        });
        assert.equal(shown.focused, "results");
        assert.equal(shown.grade, api.grade);
        assert.equal(Number(shown.score), api.score);
        assert.deepEqual(shown.counts, [
          api.critical.length,
          api.warnings.length,
          api.passed.length,
        ]);
        assert.deepEqual(shown.headings, [
          `Critical (${api.critical.length})`,
          `Warnings (${api.warnings.length})`,
          `Passed (${api.passed.length})`,
        ]);
        const findings = [...api.critical, ...api.warnings, ...api.passed];
        assert.ok(findings.length > 0, "the seed rulebook judged nothing on the fixture site");
        const evidence = findings.flatMap((f) => f.evidence);
        assert.ok(evidence.length > 0, "no finding carried evidence");
        assert.deepEqual(shown.excerpts, evidence.map((e) => e.excerpt));
        assert.deepEqual(shown.sources, evidence.map((e) => new URL(e.source_url).href));
        for (const source of shown.sources) assert.ok(source.startsWith(site.origin), source);
      },
    );

    await t.step(
      "the advisory is marked model-written, set apart from the score, and its markup stays text",
      async () => {
        const advisory = await page.evaluate(() => {
          const aside = document.getElementById("advisory")!;
          return {
            visible: !aside.hidden,
            heading: document.getElementById("advisory-title")!.textContent ?? "",
            note: (aside.querySelector(".advisory-note")?.textContent ?? "").replace(/\s+/g, " "),
            titles: [...aside.querySelectorAll(".finding h4")].map((h) => h.textContent),
            insideSummary: document.getElementById("summary")!.contains(aside),
            insideGroups: aside.closest(".group") !== null,
            images: document.querySelectorAll("#results img").length,
            injected: document.body.dataset.injected ?? null,
          };
        });
        assert.equal(advisory.visible, true);
        assert.match(advisory.heading, /AI-written/);
        assert.match(advisory.note, /not part of the score or grade/);
        assert.deepEqual(advisory.titles, [HOSTILE_TITLE]);
        assert.equal(advisory.insideSummary, false);
        assert.equal(advisory.insideGroups, false);
        assert.equal(advisory.images, 0, "model text was parsed as HTML");
        assert.equal(advisory.injected, null);
      },
    );

    await t.step(
      "axe-core finds no serious or critical violation on the results, contrast included",
      async () => {
        const { serious, contrastChecked } = await axeCheck(page);
        assert.deepEqual(serious, []);
        assert.ok(contrastChecked, "axe-core did not run color-contrast");
        await screenshot(page, "landing-desktop-results.png");
      },
    );

    await t.step("progress shows while a scan runs; Cancel stops waiting and says so", async () => {
      // /slow/headers stalls 2 s before it answers: the scan is under way all that time.
      await page.fill("#target-url", site.url("/slow/headers"));
      await page.click("#scan-button");
      const during = await page.evaluate(() => ({
        progress: !document.getElementById("progress").hidden,
        text: document.getElementById("progress-text").textContent,
        disabled: document.getElementById("scan-button").disabled,
        busy: document.getElementById("scan-form").getAttribute("aria-busy"),
        results: !document.getElementById("results").hidden,
      }));
      assert.deepEqual(
        { ...during, text: during.text.includes(`Scanning ${new URL(site.origin).host}`) },
        { progress: true, text: true, disabled: true, busy: "true", results: false },
      );
      assert.equal(await settled(page), "results");
      assert.equal(await page.isVisible("#progress"), false);
      assert.equal(await page.isEnabled("#scan-button"), true);

      await page.fill("#target-url", site.url("/slow/headers"));
      await page.click("#scan-button");
      await page.click("#cancel-button");
      assert.equal(await settled(page), "problem");
      assert.equal((await problem(page)).title, "Scan cancelled");
      assert.equal(await page.isVisible("#progress"), false);
    });

    await t.step(
      "a URL robots.txt disallows: the robots message, focus on it, the page never fetched",
      async () => {
        assert.equal(await submit(page, site.url("/private/page.html")), "problem");
        const shown = await problem(page);
        assert.equal(shown.title, "This site asks scanners not to visit this page");
        assert.match(shown.text, /robots\.txt/);
        assert.equal(shown.focused, true);
        assert.equal(await page.isVisible("#results"), false);
        assert.ok(!site.requests.some((r) => r.path === "/private/page.html"));
        const { serious } = await axeCheck(page);
        assert.deepEqual(serious, []);
      },
    );

    await t.step("400, policy 403, 415 and 502 each get their own plain message", async () => {
      const cases: Array<[string, string]> = [
        ["https://exa mple.test/", "That address can't be scanned"],
        ["http://10.0.0.1/", "We don't scan this address"],
        [site.url("/doc.pdf"), "There is no web page here we can read"],
        [site.url("/error"), "We couldn't reach that website"],
      ];
      for (const [target, title] of cases) {
        assert.equal(await submit(page, target), "problem", target);
        const shown = await problem(page);
        assert.equal(shown.title, title, target);
        assert.equal(shown.focused, true, target);
      }
    });

    await t.step(
      "an empty address is caught in the form, focus on the field, nothing sent",
      async () => {
        const before = service.logLines.length;
        await page.fill("#target-url", "");
        await page.click("#scan-button");
        assert.equal(await page.getAttribute("#target-url", "aria-invalid"), "true");
        assert.equal(await page.isVisible("#target-url-error"), true);
        assert.equal(await page.evaluate(() => document.activeElement?.id), "target-url");
        assert.equal(service.logLines.length, before, "an empty address reached the API");
      },
    );

    await t.step(
      "keyboard only at phone width: Tab to the field, Enter submits, results fit the screen",
      async () => {
        await page.setViewportSize(PHONE);
        await page.goto(pageUrl(service));
        let focused: string | undefined;
        for (let i = 0; i < 5 && focused !== "target-url"; i += 1) {
          await page.keyboard.press("Tab");
          focused = await page.evaluate(() => document.activeElement?.id);
        }
        assert.equal(focused, "target-url", "Tab never reached the address field");
        await page.keyboard.type(site.url("/home.html"));
        await page.keyboard.press("Enter");
        assert.equal(await settled(page), "results");
        assert.equal(await page.evaluate(() => document.activeElement?.id), "results");
        const overflow = await page.evaluate(() =>
          document.documentElement.scrollWidth - document.documentElement.clientWidth
        );
        assert.equal(overflow, 0, "the page scrolls sideways at phone width");
        const { serious } = await axeCheck(page);
        assert.deepEqual(serious, []);
        await screenshot(page, "landing-phone-results.png");
        await page.setViewportSize(DESKTOP);
      },
    );

    await t.step(
      "from another static host, api-base-url points the page at the API's base URL (CORS)",
      async () => {
        // What the README tells an operator: set api-base-url, and for an http: API on another
        // origin add that origin to the page's connect-src. The host is a bare file server.
        const apiOrigin = new URL(service.baseUrl).origin;
        const original = await Deno.readTextFile(new URL("index.html", WEB));
        const html = original
          .replace(
            '<meta name="api-base-url" content="/functions">',
            `<meta name="api-base-url" content="${service.baseUrl}">`,
          )
          .replace("connect-src 'self' https:", `connect-src 'self' https: ${apiOrigin}`);
        assert.equal(html.includes(service.baseUrl) && html.includes(`https: ${apiOrigin}`), true);
        const files: Record<string, [string, string]> = {
          "/": [html, "text/html; charset=utf-8"],
          "/style.css": [await Deno.readTextFile(new URL("style.css", WEB)), "text/css"],
          "/app.js": [await Deno.readTextFile(new URL("app.js", WEB)), "text/javascript"],
        };
        const host = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (req) => {
          const file = files[new URL(req.url).pathname];
          return file === undefined
            ? new Response("not found", { status: 404 })
            : new Response(file[0], { headers: { "content-type": file[1] } });
        });
        try {
          const before = await storedScans(service);
          const other = await browser.newPage();
          await other.goto(`http://127.0.0.1:${host.addr.port}/`);
          assert.equal(await submit(other, site.url("/home.html")), "results");
          assert.match(await other.textContent("#grade") ?? "", /^[A-F]$/);
          assert.equal(await storedScans(service), before + 1, "the scan did not reach the API");
          await other.close();
        } finally {
          await host.shutdown();
        }
      },
    );

    assert.deepEqual(consoleErrors.filter((e) => !/status of (4|5)\d\d/.test(e)), []);
  } finally {
    await service.close();
  }

  await t.step("429 says when to scan again, from Retry-After", async () => {
    const limited = await serviceFor(site, { limits: { scanPerMinute: 1 } });
    try {
      const page = await browser.newPage();
      await page.goto(pageUrl(limited));
      assert.equal(await submit(page, "http://10.0.0.1/"), "problem");
      assert.equal((await problem(page)).title, "We don't scan this address");
      assert.equal(await submit(page, "http://10.0.0.1/"), "problem");
      const shown = await problem(page);
      assert.equal(shown.title, "Too many scans in a short time");
      assert.match(shown.text, /You can scan again in \d+ seconds? \(at \d/);
      await screenshot(page, "landing-desktop-429.png");
      await page.close();
    } finally {
      await limited.close();
    }
  });

  await t.step("500 says the problem is on the service's side", async () => {
    const broken = await serviceFor(site, { seed: false }); // no active rulebook: a 500
    try {
      const page = await browser.newPage();
      await page.goto(pageUrl(broken));
      assert.equal(await submit(page, site.url("/home.html")), "problem");
      assert.equal((await problem(page)).title, "Something went wrong on our side");
      await page.close();
    } finally {
      await broken.close();
    }
  });
});
