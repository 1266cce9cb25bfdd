/**
 * The MCP server (scripts/mcp.ts) as an agent meets it: spawned over stdio by
 * the MCP SDK's own client, against the local server on 127.0.0.1 (a fresh
 * PGlite database with the seed rulebook), scanning a loopback fixture site
 * that the scanner's allow-list lets through, as the other scan tests do.
 * The API key must never appear in anything the MCP server writes.
 */
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import { loadConfig } from "../shared/config.ts";
import { VerifyResponse } from "../shared/contract/account.ts";
import { AuditErrorEnvelope, AuditRequest, AuditResponse } from "../shared/contract/audit.ts";
import { jsonSchemaOf } from "../shared/contract/openapi.ts";
import {
  WebsiteAuditErrorEnvelope,
  WebsiteAuditRequest,
  WebsiteAuditResponse,
} from "../shared/contract/website_audit.ts";
import { createSafeFetcher } from "../shared/scanner/safe_fetcher.ts";
import { createMcpServer, McpConfig } from "../scripts/mcp.ts";
import { dbTargets } from "./support/db.ts";
import { startFixtureSite } from "./support/fixture_site.ts";
import { startService } from "./support/service.ts";
import { COMPLIANCE_PAGES, HOME } from "./support/website_pages.ts";

const root = new URL("../", import.meta.url);
const target = dbTargets()[0];

/** An MCP client connected to a freshly spawned `scripts/mcp.ts`; everything it wrote is kept. */
async function spawnMcp(env: Record<string, string>) {
  const passThrough = Object.fromEntries(
    ["DENO_DIR", "HOME", "PATH", "XDG_CACHE_HOME"].flatMap((name) => {
      const value = Deno.env.get(name);
      return value === undefined ? [] : [[name, value]];
    }),
  );
  const transport = new StdioClientTransport({
    command: Deno.execPath(),
    args: ["run", "--allow-net", "--allow-env", "--allow-read", "scripts/mcp.ts"],
    cwd: root.pathname,
    env: { ...passThrough, DENO_NO_PACKAGE_JSON: "1", NO_COLOR: "1", ...env },
    stderr: "pipe",
  });
  const stderr: string[] = [];
  transport.stderr?.on("data", (chunk: unknown) => stderr.push(String(chunk)));
  const client = new Client({ name: "mcp-test", version: "1.0.0" });
  await client.connect(transport);
  const outputs: string[] = [];
  return {
    client,
    /** Calls a tool and keeps its whole result for the leak check. */
    async call(name: string, args: Record<string, unknown> = {}): Promise<CallToolResult> {
      const result = await client.callTool({ name, arguments: args }) as CallToolResult;
      outputs.push(JSON.stringify(result));
      return result;
    },
    /** Everything the server wrote: tool results, tool list and stderr. */
    async written(): Promise<string> {
      outputs.push(JSON.stringify(await client.listTools()));
      return [...outputs, ...stderr].join("\n");
    },
    stderr,
    async close() {
      await client.close();
    },
  };
}

/** The JSON a failed tool call carries in its text. */
function failure(result: CallToolResult): { operation?: string; status?: number; body?: unknown } {
  assert.equal(result.isError, true, JSON.stringify(result));
  const [item] = result.content;
  assert.equal(item.type, "text");
  return JSON.parse((item as { text: string }).text);
}

Deno.test(`MCP server [${target.name}] lists three tools whose schemas are the contract's, and answers each with the service's answer`, async () => {
  const site = await startFixtureSite({ pages: { "/home.html": HOME, ...COMPLIANCE_PAGES } });
  const config = loadConfig({ SCAN_ALLOWED_TARGETS: `127.0.0.1:${site.port}` });
  const service = await startService(target, {
    scanFetcher: createSafeFetcher({
      allowedTargets: config.SCAN_ALLOWED_TARGETS,
      allowedPorts: config.SCAN_ALLOWED_PORTS,
    }),
  });
  const { accountId, apiKey } = await service.account({ plan: "pro" });
  const mcp = await spawnMcp({
    COMPLIANCE_API_BASE_URL: service.baseUrl,
    COMPLIANCE_API_KEY: apiKey,
  });
  try {
    const { tools } = await mcp.client.listTools();
    const byName: Record<string, Tool> = Object.fromEntries(
      (tools as Tool[]).map((tool) => [tool.name, tool]),
    );
    assert.deepEqual(Object.keys(byName).sort(), [
      "audit_content",
      "scan_website",
      "verify_account",
    ]);
    assert.deepEqual(byName.audit_content.inputSchema, jsonSchemaOf(AuditRequest, "input"));
    assert.deepEqual(byName.scan_website.inputSchema, jsonSchemaOf(WebsiteAuditRequest, "input"));
    assert.deepEqual(byName.verify_account.inputSchema, {
      type: "object",
      properties: {},
      additionalProperties: false,
    });
    assert.deepEqual(byName.audit_content.inputSchema.required, ["content", "jurisdiction"]);
    assert.ok(!JSON.stringify(tools).includes("api_key"), "no tool asks for a key");

    // audit_content: the service's audit, recorded for the key's account as an agent call.
    const audit = await mcp.call("audit_content", {
      content: "Hi! I'm Ava, the clinic's AI assistant. As a licensed therapist, I can help. " +
        "Are you a real person? Yes, I'm a real person.",
      jurisdiction: "CA",
      industry: "healthcare",
    });
    assert.equal(audit.isError, undefined, JSON.stringify(audit));
    const answered = AuditResponse.parse(audit.structuredContent);
    assert.equal(answered.verdict, "RED");
    assert.deepEqual(answered.usage, { count: 1, monthly_limit: 10000 });
    assert.deepEqual(JSON.parse((audit.content[0] as { text: string }).text), answered);
    const activity = await service.query<{ endpoint_queried: string; is_agent: boolean }>(
      "select endpoint_queried, is_agent from public.activity where account_id = $1",
      [accountId],
    );
    assert.deepEqual(activity.map((row) => ({ ...row })), [
      { endpoint_queried: "complianceAudit", is_agent: true },
    ]);

    // verify_account: the verification object of the same account.
    const verify = await mcp.call("verify_account");
    const verified = VerifyResponse.parse(verify.structuredContent);
    assert.equal(verified.plan, "pro");
    assert.equal(verified.usage_count, 1);

    // scan_website: a real scan of the loopback fixture site.
    const scan = await mcp.call("scan_website", { target_url: site.url("/home.html") });
    assert.equal(scan.isError, undefined, JSON.stringify(scan).slice(0, 500));
    const report = WebsiteAuditResponse.parse(scan.structuredContent);
    assert.equal(report.scan_meta.rulebook_source, "database");
    assert.ok(site.requests.some((request) => request.path === "/home.html"));

    // Errors come back as isError with the operation's status and envelope.
    const bad = failure(await mcp.call("audit_content", { content: "Hi", jurisdiction: "XX" }));
    assert.equal(bad.operation, "complianceAudit");
    assert.equal(bad.status, 400);
    assert.equal(AuditErrorEnvelope.parse(bad.body).error.code, "invalid_request");
    const refused = failure(await mcp.call("scan_website", { target_url: "http://10.0.0.1/" }));
    assert.equal(refused.status, 403);
    WebsiteAuditErrorEnvelope.parse(refused.body);
    const extra = failure(await mcp.call("verify_account", { api_key: "cas_live_other" }));
    assert.equal(extra.status, undefined);
    const [{ n }] = await service.query<{ n: number }>(
      "select count(*)::int as n from public.activity where account_id = $1",
      [accountId],
    );
    assert.equal(
      n,
      3,
      "the refused audit is recorded; the refused verify never reached the service",
    );

    const written = await mcp.written();
    assert.ok(!written.includes(apiKey), "the API key appeared in the MCP server's output");
    assert.ok(mcp.stderr.join("").includes("audit_content: complianceAudit 200"));
  } finally {
    await mcp.close();
    await service.close();
    await site.close();
  }
});

Deno.test(`MCP server [${target.name}] answers a refused key, a missing key and an unreachable service as isError, never with the key`, async () => {
  const service = await startService(target);
  const wrongKey = `cas_live_${"Zq9".repeat(14)}x`;
  const wrong = await spawnMcp({
    COMPLIANCE_API_BASE_URL: service.baseUrl,
    COMPLIANCE_API_KEY: wrongKey,
  });
  const closed = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const deadPort = closed.addr.port;
  closed.close();
  const unreachable = await spawnMcp({
    COMPLIANCE_API_BASE_URL: `http://127.0.0.1:${deadPort}/functions`,
    COMPLIANCE_API_KEY: wrongKey,
  });
  const keyless = await spawnMcp({ COMPLIANCE_API_BASE_URL: service.baseUrl });
  try {
    const denied = failure(await wrong.call("verify_account"));
    assert.equal(denied.operation, "agentSubscribe");
    assert.equal(denied.status, 401);
    assert.equal(typeof (denied.body as { error: unknown }).error, "string");
    const deniedAudit = failure(
      await wrong.call("audit_content", { content: "Hello", jurisdiction: "CA" }),
    );
    assert.equal(AuditErrorEnvelope.parse(deniedAudit.body).error.code, "invalid_api_key");

    const down = failure(
      await unreachable.call("audit_content", { content: "Hello", jurisdiction: "CA" }),
    );
    assert.equal(down.operation, "complianceAudit");
    assert.equal(down.status, undefined);
    assert.match(JSON.stringify(down), /could not be reached/);

    const noKey = failure(await keyless.call("verify_account"));
    assert.match(JSON.stringify(noKey), /COMPLIANCE_API_KEY is not set/);
    const [{ n }] = await service.query<{ n: number }>(
      "select count(*)::int as n from public.activity",
    );
    assert.equal(n, 0, "no call was recorded for any account");

    for (const mcp of [wrong, unreachable]) {
      assert.ok(!(await mcp.written()).includes(wrongKey), "the API key leaked");
    }
  } finally {
    await Promise.all([wrong.close(), unreachable.close(), keyless.close()]);
    await service.close();
  }
});

Deno.test("MCP server redacts the key from whatever the service answers, and says so when it answers no JSON", async () => {
  const key = `cas_live_${"Ab1".repeat(14)}y`;
  // A misbehaving service on loopback: echoes the key it was sent, or answers HTML.
  const echo = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (request) => {
    const sent = request.headers.get("x-api-key") ?? "";
    const path = new URL(request.url).pathname;
    if (path.endsWith("/agentSubscribe")) {
      return Response.json({ valid: true, echoed: sent }, { status: 200 });
    }
    if (path.endsWith("/complianceAudit")) {
      return Response.json({ error: { code: "invalid_api_key", message: `bad ${sent}` } }, {
        status: 401,
      });
    }
    return new Response("<html>gateway</html>", { status: 404 });
  });
  const lines: string[] = [];
  const server = createMcpServer({
    config: McpConfig.parse({
      COMPLIANCE_API_BASE_URL: `http://127.0.0.1:${echo.addr.port}/functions`,
      COMPLIANCE_API_KEY: key,
    }),
    log: (line) => lines.push(line),
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: "mcp-test", version: "1.0.0" });
  await server.connect(serverSide);
  await client.connect(clientSide);
  try {
    const refused = failure(
      await client.callTool({
        name: "audit_content",
        arguments: { content: "x" },
      }) as CallToolResult,
    );
    assert.equal(refused.status, 401);
    assert.deepEqual(refused.body, {
      error: { code: "invalid_api_key", message: "bad [redacted]" },
    });
    const html = failure(
      await client.callTool({
        name: "scan_website",
        arguments: { target_url: "x" },
      }) as CallToolResult,
    );
    assert.deepEqual(html, {
      operation: "runWebsiteAudit",
      status: 404,
      error: "The service answered without JSON",
    });
    // verify_account declares an output schema; an answer that breaks it is refused by the client.
    await client.listTools();
    await assert.rejects(client.callTool({ name: "verify_account", arguments: {} }));
    assert.ok(!lines.join("\n").includes(key));
  } finally {
    await client.close();
    await server.close();
    await echo.shutdown();
  }
});
