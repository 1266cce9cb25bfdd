/**
 * A real client: every function called through supabase-js's functions client
 * (`FunctionsClient` of @supabase/functions-js, what `supabase.functions`
 * is) with the contract's base URL of the local server and the contract's
 * headers, as a developer's code would call it. Answers and error envelopes
 * are checked against the contract's zod schemas and against openapi.json's
 * description of that operation's status (with ajv, through the MCP SDK's
 * validator), so the committed OpenAPI describes what the service answers.
 */
import assert from "node:assert/strict";
import { FunctionsClient, FunctionsHttpError } from "@supabase/functions-js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import { createIntegration } from "../shared/admin/provisioning.ts";
import { loadConfig } from "../shared/config.ts";
import {
  AccountErrorEnvelope,
  ACTIVITY_CSV_COLUMNS,
  LogsResponse,
  VerifyResponse,
} from "../shared/contract/account.ts";
import { AuditErrorEnvelope, AuditResponse } from "../shared/contract/audit.ts";
import { TranscriptResponse, WebhookErrorEnvelope } from "../shared/contract/webhook_ingest.ts";
import {
  WebsiteAuditErrorEnvelope,
  WebsiteAuditResponse,
} from "../shared/contract/website_audit.ts";
import { createSafeFetcher } from "../shared/scanner/safe_fetcher.ts";
import { dbTargets } from "./support/db.ts";
import { startFixtureSite } from "./support/fixture_site.ts";
import { startService } from "./support/service.ts";
import { COMPLIANCE_PAGES, HOME } from "./support/website_pages.ts";

const openapi = JSON.parse(
  await Deno.readTextFile(new URL("../openapi.json", import.meta.url)),
);
const validators = new AjvJsonSchemaValidator();

/** Asserts that openapi.json's schema for this operation, status and media type accepts `data`. */
function described(operation: string, status: number, data: unknown, type = "application/json") {
  const schema = openapi.paths[`/${operation}`].post.responses[String(status)]?.content?.[type]
    ?.schema;
  assert.ok(schema, `openapi.json has no ${status} ${type} for ${operation}`);
  const result = validators.getValidator({ ...schema, components: openapi.components })(data);
  assert.ok(result.valid, `${operation} ${status}: ${result.errorMessage}`);
}

/** The error of a refused invoke: its status and parsed envelope, as openapi.json describes it. */
async function refusal(operation: string, result: { data: unknown; error: unknown }) {
  assert.equal(result.data, null);
  assert.ok(result.error instanceof FunctionsHttpError, String(result.error));
  const response = result.error.context as Response;
  const body = await response.json();
  described(operation, response.status, body);
  return { status: response.status, body };
}

const TRANSCRIPT = {
  source: "intercom",
  channel: "web-messenger",
  conversation_id: "conv-client-1",
  messages: [
    { sender: "bot", text: "Hi! How can I help?", timestamp: "2026-11-20T10:00:00Z" },
    { sender: "user", text: "Are you a real person?", timestamp: "2026-11-20T10:00:30Z" },
    { sender: "bot", text: "Yes, I am a real person.", timestamp: "2026-11-20T10:01:00Z" },
  ],
};

for (const target of dbTargets()) {
  Deno.test(`FunctionsClient [${target.name}] calls all four functions at the contract's base URL with the contract's headers`, async () => {
    const site = await startFixtureSite({ pages: { "/home.html": HOME, ...COMPLIANCE_PAGES } });
    const config = loadConfig({ SCAN_ALLOWED_TARGETS: `127.0.0.1:${site.port}` });
    const service = await startService(target, {
      scanFetcher: createSafeFetcher({
        allowedTargets: config.SCAN_ALLOWED_TARGETS,
        allowedPorts: config.SCAN_ALLOWED_PORTS,
      }),
    });
    try {
      assert.match(service.baseUrl, /^http:\/\/127\.0\.0\.1:\d+\/functions$/);
      const { accountId, apiKey } = await service.account({ plan: "starter" });
      const keyed = new FunctionsClient(service.baseUrl, { headers: { "X-API-Key": apiKey } });
      const anonymous = new FunctionsClient(service.baseUrl);

      // complianceAudit
      const audit = await keyed.invoke("complianceAudit", {
        body: { content: "Hello from our support bot.", jurisdiction: "CA" },
      });
      assert.equal(audit.error, null, String(audit.error));
      const audited = AuditResponse.parse(audit.data);
      described("complianceAudit", 200, audit.data);
      assert.deepEqual(audited.usage, { count: 1, monthly_limit: 1000 });
      const invalid = await refusal(
        "complianceAudit",
        await keyed.invoke("complianceAudit", {
          body: { content: "Hello", jurisdiction: "CA", role: "bot" },
        }),
      );
      assert.equal(invalid.status, 400);
      assert.equal(AuditErrorEnvelope.parse(invalid.body).error.code, "invalid_request");
      const unkeyed = await refusal(
        "complianceAudit",
        await anonymous.invoke("complianceAudit", { body: { content: "Hi", jurisdiction: "CA" } }),
      );
      assert.equal(unkeyed.status, 401);
      assert.equal(AuditErrorEnvelope.parse(unkeyed.body).error.code, "invalid_api_key");

      // agentSubscribe: verify, get_logs, export_audit (text/csv), and its errors
      const verify = await keyed.invoke("agentSubscribe", { body: { action: "verify" } });
      assert.equal(verify.error, null, String(verify.error));
      assert.equal(VerifyResponse.parse(verify.data).usage_count, 1);
      described("agentSubscribe", 200, verify.data);
      const logs = await keyed.invoke("agentSubscribe", { body: { action: "get_logs" } });
      const log = LogsResponse.parse(logs.data);
      described("agentSubscribe", 200, logs.data);
      assert.equal(log.account_id, accountId);
      assert.deepEqual(
        log.logs.map((entry) => [entry.endpoint_queried, entry.status_code]).sort(),
        [["agentSubscribe.verify", 200], ["complianceAudit", 200], ["complianceAudit", 400]],
      );
      const month = new Date().toISOString().slice(0, 7);
      const exported = await keyed.invoke<string>("agentSubscribe", {
        body: { action: "export_audit", month },
      });
      assert.equal(exported.error, null, String(exported.error));
      assert.equal(typeof exported.data, "string", "text/csv is read as text");
      described("agentSubscribe", 200, exported.data, "text/csv");
      const lines = (exported.data as string).trimEnd().split("\r\n");
      assert.equal(lines[0], ACTIVITY_CSV_COLUMNS.join(","));
      assert.equal(lines.length, 1 + 4, "the audit, the refused audit, verify and get_logs");
      const badMonth = await refusal(
        "agentSubscribe",
        await keyed.invoke("agentSubscribe", {
          body: { action: "export_audit", month: "2026-13" },
        }),
      );
      assert.equal(badMonth.status, 400);
      AccountErrorEnvelope.parse(badMonth.body);
      const noKey = await refusal(
        "agentSubscribe",
        await anonymous.invoke("agentSubscribe", { body: { action: "verify" } }),
      );
      assert.equal(noKey.status, 401);
      AccountErrorEnvelope.parse(noKey.body);
      const lapsed = await service.account({ status: "past_due" });
      const inactive = await refusal(
        "agentSubscribe",
        await keyed.invoke("agentSubscribe", {
          body: { action: "verify" },
          headers: { "X-API-Key": lapsed.apiKey },
        }),
      );
      assert.equal(inactive.status, 402);
      AccountErrorEnvelope.parse(inactive.body);

      // runWebsiteAudit: no credential
      const scan = await anonymous.invoke("runWebsiteAudit", {
        body: { target_url: site.url("/home.html") },
      });
      assert.equal(scan.error, null, String(scan.error));
      assert.equal(WebsiteAuditResponse.parse(scan.data).scan_meta.rulebook_source, "database");
      described("runWebsiteAudit", 200, scan.data);
      const badUrl = await refusal(
        "runWebsiteAudit",
        await anonymous.invoke("runWebsiteAudit", { body: { target_url: "ftp://example.com/" } }),
      );
      assert.equal(badUrl.status, 400);
      WebsiteAuditErrorEnvelope.parse(badUrl.body);
      const privateTarget = await refusal(
        "runWebsiteAudit",
        await anonymous.invoke("runWebsiteAudit", { body: { target_url: "http://10.0.0.1/" } }),
      );
      assert.equal(privateTarget.status, 403);
      WebsiteAuditErrorEnvelope.parse(privateTarget.body);

      // webhookIngest: the integration's credential in x-webhook-secret
      const { credential } = await createIntegration(service.db, {
        accountId,
        name: "support chat",
        provider: "intercom",
        industry: null,
      });
      const webhook = new FunctionsClient(service.baseUrl, {
        headers: { "x-webhook-secret": credential },
      });
      const ingested = await webhook.invoke("webhookIngest", { body: TRANSCRIPT });
      assert.equal(ingested.error, null, String(ingested.error));
      const transcript = TranscriptResponse.parse(ingested.data);
      described("webhookIngest", 200, ingested.data);
      assert.equal(transcript.external_conversation_id, "conv-client-1");
      const [{ n }] = await service.query<{ n: number }>(
        "select count(*)::int as n from public.transcript_scans where id::text = $1",
        [transcript.scan_result_id],
      );
      assert.equal(n, 1);
      const wrongSecret = await refusal(
        "webhookIngest",
        await anonymous.invoke("webhookIngest", {
          body: TRANSCRIPT,
          headers: { "x-webhook-secret": `cas_whk_${"A".repeat(43)}` },
        }),
      );
      assert.equal(wrongSecret.status, 401);
      assert.equal(WebhookErrorEnvelope.parse(wrongSecret.body).success, false);
      const withApiKey = await refusal(
        "webhookIngest",
        await keyed.invoke("webhookIngest", { body: TRANSCRIPT }),
      );
      assert.equal(withApiKey.status, 401, "X-API-Key is refused on webhookIngest");
      const badTranscript = await refusal(
        "webhookIngest",
        await webhook.invoke("webhookIngest", { body: { ...TRANSCRIPT, messages: [] } }),
      );
      assert.equal(badTranscript.status, 400);
      WebhookErrorEnvelope.parse(badTranscript.body);
    } finally {
      await service.close();
      await site.close();
    }
  });
}
