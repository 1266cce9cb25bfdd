import { advisoryPages } from "../advisory/advisory_input.ts";
import {
  type WebsiteAuditErrorEnvelope,
  WebsiteAuditRequest,
  type WebsiteAuditResponse,
} from "../contract/website_audit.ts";
import { websiteScanRecord } from "../db/website_scans.ts";
import { activeRulebook } from "../engine/active_rulebook.ts";
import { endpoint, type EndpointSpec, type Handler } from "../http/endpoint.ts";
import { enforceLimit } from "../http/enforce_limit.ts";
import { jsonResponse } from "../http/json_response.ts";
import { parseJson } from "../http/parse_json.ts";
import { createSafeFetcher } from "../scanner/safe_fetcher.ts";
import { ScanError } from "../scanner/scan_error.ts";
import { ENGINE_VERSION, reportSite } from "../scanner/site_report.ts";
import { scanSite } from "../scanner/site_scan.ts";
import { parseTargetUrl } from "../scanner/target_url.ts";
import { DEFAULT_LIMITS, type ServiceDeps } from "./deps.ts";

/** The operation's name: its route and its log lines. */
export const RUN_WEBSITE_AUDIT = "runWebsiteAudit";

/** Contract 7.3: `{ error }` (never `quota`: a scan has no plan); 500 on an internal error. */
export const RUN_WEBSITE_AUDIT_ENDPOINT = {
  name: RUN_WEBSITE_AUDIT,
  envelope: (error) => ({ error: error.message }) satisfies WebsiteAuditErrorEnvelope,
  unavailable: { status: 500, code: "internal", message: "Internal error" },
  browser: true,
} satisfies EndpointSpec<WebsiteAuditErrorEnvelope>;

/**
 * runWebsiteAudit (contract 4.3): an anonymous scan of a public website, in
 * this order of checks:
 *
 * 1. the body and `target_url` (400; a refused body counts nothing);
 * 2. the client IP's limit, 10 a minute (429 with Retry-After);
 * 3. the active database rulebook, pinned for the scan (500 when it cannot be
 *    loaded: never a fallback);
 * 4. the scan: the target and its compliance pages through the safe fetcher
 *    (403 policy or robots, 415 not HTML, or nothing readable and nothing the
 *    pinned rulebook judges, 502 the target could not be scanned);
 * 5. findings, score and grade from the rulebook's website rules;
 * 6. the optional advisory, asked only once score, grade and findings are
 *    final, so it can never change them;
 * 7. the scan stored without an account (500 when it cannot be: fail closed).
 */
export function runWebsiteAudit(deps: ServiceDeps): Handler {
  const limits = { ...DEFAULT_LIMITS, ...deps.limits };
  const fetcher = deps.scanFetcher ?? createSafeFetcher();
  const now = deps.now ?? (() => new Date());
  return endpoint(RUN_WEBSITE_AUDIT_ENDPOINT, deps, async (req, ctx) => {
    const input = await parseJson(req, WebsiteAuditRequest, {
      maxBytes: limits.scanBodyBytes,
      ...ctx.bodyReading,
    });
    const target = parseTargetUrl(input.target_url);

    await enforceLimit(deps.limiter, `scan:${ctx.ipLimitKey}`, limits.scanPerMinute, 60);

    const rulebook = await activeRulebook(deps.db);

    const started = performance.now();
    const at = now();
    using session = fetcher.startScan({ signal: req.signal });
    const site = await scanSite(session, input.target_url, {
      rulebook: rulebook.compiled,
      at,
    }).catch((error) => {
      if (error instanceof ScanError) {
        deps.logger.log("info", "scan refused", {
          request_id: ctx.requestId,
          status: error.status,
          reason: error.reason,
        });
      }
      throw error;
    });
    session.close();
    const report = reportSite(rulebook.compiled, site.pages, { at });

    const advisory = deps.advisory === undefined ? [] : await deps.advisory(
      advisoryPages(site.pages),
      { requestId: ctx.requestId, signal: req.signal },
    );
    const durationMs = Math.round((performance.now() - started) * 100) / 100;

    await websiteScanRecord(deps.db, {
      targetOrigin: target.url.origin,
      statusCode: site.pages[0].status,
      score: report.score,
      grade: report.grade,
      criticalCount: report.critical.length,
      warningCount: report.warnings.length,
      passedCount: report.passed.length,
      advisoryCount: advisory.length,
      pagesScanned: site.pages.length,
      triggeredRules: report.triggered,
      rulebookVersion: rulebook.version,
      engineVersion: ENGINE_VERSION,
      durationMs,
    });

    return jsonResponse(
      {
        score: report.score,
        grade: report.grade,
        critical: report.critical,
        warnings: report.warnings,
        passed: report.passed,
        advisory,
        scan_meta: {
          fetched: true,
          status_code: site.pages[0].status,
          // Every page and redirect hop was checked against its origin's robots rules.
          robots_respected: true,
          scan_duration_ms: durationMs,
          engine_version: ENGINE_VERSION,
          rulebook_source: "database",
        },
      } satisfies WebsiteAuditResponse,
    );
  });
}
