/**
 * runWebsiteAudit end to end: real HTTP to the local server, a real database
 * with the seed rulebook active (PGlite always, PostgreSQL when
 * TEST_DATABASE_URL is set), and a real scan of a loopback fixture site that
 * SCAN_ALLOWED_TARGETS lets through (system sockets, no injected network).
 * The seed rulebook's tuning is the engine's: these tests assert the
 * contract, the policy and what is stored, never which seed rules fire.
 */
import assert from "node:assert/strict";
import { loadConfig } from "../shared/config.ts";
import {
  WebsiteAuditErrorEnvelope,
  WebsiteAuditResponse,
} from "../shared/contract/website_audit.ts";
import { NEWEST_SEED_VERSION } from "../shared/engine/seed_rulebook.ts";
import { createSafeFetcher } from "../shared/scanner/safe_fetcher.ts";
import { ENGINE_VERSION } from "../shared/scanner/site_report.ts";
import { dbTargets } from "./support/db.ts";
import { type FixtureSite, startFixtureSite } from "./support/fixture_site.ts";
import { startService, type TestService } from "./support/service.ts";
import { COMPLIANCE_PAGES, HOME } from "./support/website_pages.ts";

/** A fixture site and a service whose scanner may reach exactly that site's IP:port. */
async function scanService(
  target: ReturnType<typeof dbTargets>[number],
): Promise<{ site: FixtureSite; service: TestService } & AsyncDisposable> {
  const site = await startFixtureSite({ pages: { "/home.html": HOME, ...COMPLIANCE_PAGES } });
  const config = loadConfig({ SCAN_ALLOWED_TARGETS: `127.0.0.1:${site.port}` });
  const service = await startService(target, {
    scanFetcher: createSafeFetcher({
      allowedTargets: config.SCAN_ALLOWED_TARGETS,
      allowedPorts: config.SCAN_ALLOWED_PORTS,
    }),
  });
  return {
    site,
    service,
    async [Symbol.asyncDispose]() {
      await service.close();
      await site.close();
    },
  };
}

for (const target of dbTargets()) {
  Deno.test(`runWebsiteAudit [${target.name}] scans a loopback site on the allow-list and stores the scan with its pinned rulebook`, async () => {
    await using s = await scanService(target);
    const response = await s.service.post("runWebsiteAudit", {
      target_url: s.site.url("/home.html"),
    });
    const text = await response.text();
    assert.equal(response.status, 200, text);
    const body = WebsiteAuditResponse.parse(JSON.parse(text));
    assert.equal(body.scan_meta.rulebook_source, "database");
    assert.equal(body.scan_meta.engine_version, ENGINE_VERSION);
    assert.equal(body.scan_meta.status_code, 200);
    const pages = new Set(s.site.requests.map((r) => r.path));
    for (const path of ["/robots.txt", "/home.html", ...Object.keys(COMPLIANCE_PAGES)]) {
      assert.ok(pages.has(path), `${path} was not fetched`);
    }
    for (const finding of [...body.critical, ...body.warnings, ...body.passed]) {
      for (const evidence of finding.evidence) {
        assert.ok(evidence.source_url.startsWith(s.site.origin), evidence.source_url);
      }
    }
    const rows = await s.service.query<Record<string, unknown>>(
      `select target_origin, rulebook_version, grade, score::float8 as score, pages_scanned,
         critical_count, engine_version from public.website_scans`,
    );
    assert.deepEqual(rows.map((row) => ({ ...row })), [{
      target_origin: s.site.origin,
      rulebook_version: NEWEST_SEED_VERSION,
      grade: body.grade,
      score: body.score,
      pages_scanned: 6,
      critical_count: body.critical.length,
      engine_version: ENGINE_VERSION,
    }]);
    // Anonymous: no account, no usage, no activity.
    const [{ n }] = await s.service.query<{ n: number }>(
      "select (select count(*) from public.activity) + (select count(*) from public.monthly_usage) as n",
    );
    assert.equal(Number(n), 0);
  });

  Deno.test(`runWebsiteAudit [${target.name}] allows exactly the listed IP:port, no other form of it`, async () => {
    await using s = await scanService(target);
    const port = s.site.port;
    const others = [
      `http://127.0.0.2:${port}/home.html`,
      `http://[::1]:${port}/home.html`,
      `http://localhost:${port}/home.html`,
      `http://2130706433:${port}/home.html`,
      `http://0x7f000001:${port}/home.html`,
      `http://127.1:${port}/home.html`,
      `http://[::ffff:127.0.0.1]:${port}/home.html`,
      `http://127.0.0.1:${port === 65535 ? port - 1 : port + 1}/home.html`,
      "http://127.0.0.1/home.html",
    ];
    for (const url of others) {
      const response = await s.service.post("runWebsiteAudit", { target_url: url });
      assert.equal(response.status, 403, url);
      WebsiteAuditErrorEnvelope.parse(await response.json());
    }
    assert.deepEqual(s.site.requests, [], "a refused form reached the site");
  });

  Deno.test(`runWebsiteAudit [${target.name}] limits a client IP to 10 scans a minute, refusals included`, async () => {
    await using s = await scanService(target);
    for (let i = 0; i < 10; i += 1) {
      const response = await s.service.post("runWebsiteAudit", {
        target_url: "http://10.0.0.1/",
      });
      assert.equal(response.status, 403);
      await response.body?.cancel();
    }
    const limited = await s.service.post("runWebsiteAudit", { target_url: s.site.url("/") });
    assert.equal(limited.status, 429);
    const retryAfter = Number(limited.headers.get("retry-after"));
    assert.ok(retryAfter >= 1 && retryAfter <= 60, String(retryAfter));
    assert.deepEqual(Object.keys(await limited.json()), ["error"]);
    assert.deepEqual(s.site.requests, []);
  });

  Deno.test(`runWebsiteAudit [${target.name}] is the one operation a browser may call`, async () => {
    await using s = await scanService(target);
    const preflight = (name: string) =>
      fetch(`${s.service.baseUrl}/${name}`, {
        method: "OPTIONS",
        headers: {
          origin: "https://landing.example.test",
          "access-control-request-method": "POST",
          "access-control-request-headers": "content-type",
        },
      });
    const scan = await preflight("runWebsiteAudit");
    assert.equal(scan.status, 204);
    assert.equal(scan.headers.get("access-control-allow-origin"), "*");
    await scan.body?.cancel();
    for (const name of ["complianceAudit", "agentSubscribe", "webhookIngest"]) {
      const keyed = await preflight(name);
      assert.equal(keyed.status, 204);
      assert.equal(keyed.headers.get("access-control-allow-origin"), null, name);
      await keyed.body?.cancel();
    }
  });
}
