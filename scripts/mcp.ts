/**
 * An MCP server over stdio for agents that check their own output before they
 * send it: three tools that call the service at COMPLIANCE_API_BASE_URL with
 * the API key in COMPLIANCE_API_KEY.
 *
 * - `audit_content`: complianceAudit (the key's account, counts against its quota);
 * - `scan_website`: runWebsiteAudit (no key);
 * - `verify_account`: agentSubscribe `verify`.
 *
 * Each tool's input and output JSON schemas come from the contract's zod
 * schemas (shared/contract/openapi.ts, as openapi.json's do). A tool answers
 * the service's JSON as structured content, or, for an error status, a result
 * with `isError` whose text is `{ operation, status, body }`, `body` being the
 * operation's error envelope. The key is sent only as `X-API-Key`: it never
 * appears in a tool result or on stderr (anything the service or the network
 * answers is redacted before it is passed on).
 *
 * Run: deno task mcp
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import {
  type CallToolRequest,
  CallToolRequestSchema,
  type CallToolResult,
  ListToolsRequestSchema,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { AccountRequest, VerifyResponse } from "../shared/contract/account.ts";
import { AuditRequest, AuditResponse } from "../shared/contract/audit.ts";
import { jsonSchemaOf, LOCAL_BASE_URL } from "../shared/contract/openapi.ts";
import { WebsiteAuditRequest, WebsiteAuditResponse } from "../shared/contract/website_audit.ts";

/** The MCP server's environment. */
export const McpConfig = z.object({
  COMPLIANCE_API_BASE_URL: z.string().trim().transform((value) => value === "" ? undefined : value)
    .optional().default(LOCAL_BASE_URL)
    .pipe(
      z.url({ protocol: /^https?$/, error: "must be an http(s) URL ending in /functions" })
        .transform((value) => value.replace(/\/+$/, "")),
    ),
  COMPLIANCE_API_KEY: z.string().trim().optional()
    .transform((value) => value === "" ? undefined : value),
  MCP_REQUEST_TIMEOUT_MS: z.coerce.number().int().min(1000).max(600_000).optional()
    .default(60_000),
});
export type McpConfig = z.output<typeof McpConfig>;

/** verify takes no arguments: the key comes from the environment, never from a tool call. */
const VerifyArguments = AccountRequest.options[0].omit({ action: true, api_key: true });

interface ToolSpec {
  tool: Tool;
  operation: "complianceAudit" | "runWebsiteAudit" | "agentSubscribe";
  needsKey: boolean;
  /** The request body from the tool's arguments. */
  body(args: Record<string, unknown>): unknown;
}

const TOOLS: readonly ToolSpec[] = [
  {
    operation: "complianceAudit",
    needsKey: true,
    body: (args) => args,
    tool: {
      name: "audit_content",
      title: "Audit content for AI compliance",
      description:
        "Checks text, HTML, a script or an asset description against the active rulebook " +
        "for a US jurisdiction (and optionally an industry) before it is published or sent: " +
        "verdict GREEN/YELLOW/RED, risk score, statutes, penalty exposure in USD and " +
        "remediation steps. Counts against the account's monthly quota.",
      inputSchema: jsonSchemaOf(AuditRequest, "input") as Tool["inputSchema"],
      outputSchema: jsonSchemaOf(AuditResponse, "output") as Tool["outputSchema"],
    },
  },
  {
    operation: "runWebsiteAudit",
    needsKey: false,
    body: (args) => args,
    tool: {
      name: "scan_website",
      title: "Scan a public website",
      description: "Scans a public website (robots.txt honoured) for AI-disclosure, privacy and " +
        "accessibility findings: score 0-100, grade A-F, critical findings, warnings and " +
        "passed checks with evidence. Anonymous; 10 scans a minute per client IP.",
      inputSchema: jsonSchemaOf(WebsiteAuditRequest, "input") as Tool["inputSchema"],
      outputSchema: jsonSchemaOf(WebsiteAuditResponse, "output") as Tool["outputSchema"],
    },
  },
  {
    operation: "agentSubscribe",
    needsKey: true,
    body: () => ({ action: "verify" }),
    tool: {
      name: "verify_account",
      title: "Verify the account",
      description: "Verifies the configured API key's account: plan, status, price, " +
        "this month's usage count and trial end.",
      inputSchema: jsonSchemaOf(VerifyArguments, "input") as Tool["inputSchema"],
      outputSchema: jsonSchemaOf(VerifyResponse, "output") as Tool["outputSchema"],
    },
  },
];

/** Options of {@linkcode createMcpServer}. */
export interface McpServerOptions {
  config: McpConfig;
  /** One line, never with the key, a body or content. */
  log?: (line: string) => void;
}

/** The MCP server with its three tools (not yet connected to a transport). */
export function createMcpServer({ config, log = () => {} }: McpServerOptions): Server {
  const apiKey = config.COMPLIANCE_API_KEY;
  const redact = (text: string) =>
    apiKey === undefined ? text : text.split(apiKey).join("[redacted]");
  const failure = (payload: Record<string, unknown>): CallToolResult => ({
    isError: true,
    content: [{ type: "text", text: redact(JSON.stringify(payload)) }],
  });

  const server = new Server(
    { name: "compliance-audit", version: "1.0.0" },
    {
      capabilities: { tools: {} },
      instructions: "Check content with audit_content before you publish or send it; " +
        "a RED verdict means fix the remediation items first.",
    },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: TOOLS.map((spec) => spec.tool),
  }));
  server.setRequestHandler(
    CallToolRequestSchema,
    async (request: CallToolRequest): Promise<CallToolResult> => {
      const spec = TOOLS.find((candidate) => candidate.tool.name === request.params.name);
      if (spec === undefined) {
        return failure({ error: `Unknown tool: ${request.params.name.slice(0, 64)}` });
      }
      const args = request.params.arguments ?? {};
      if (spec.tool.name === "verify_account" && !VerifyArguments.safeParse(args).success) {
        return failure({ error: "verify_account takes no arguments" });
      }
      if (spec.needsKey && apiKey === undefined) {
        return failure({
          operation: spec.operation,
          error: "COMPLIANCE_API_KEY is not set: the MCP server needs an API key for this tool",
        });
      }
      const started = performance.now();
      let response: Response;
      try {
        response = await fetch(`${config.COMPLIANCE_API_BASE_URL}/${spec.operation}`, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            ...(spec.needsKey && apiKey !== undefined ? { "x-api-key": apiKey } : {}),
          },
          body: JSON.stringify(spec.body(args)),
          redirect: "error",
          signal: AbortSignal.timeout(config.MCP_REQUEST_TIMEOUT_MS),
        });
      } catch (error) {
        const reason = error instanceof Error ? error.name : "Error";
        log(`${spec.tool.name}: ${spec.operation} unreachable (${reason})`);
        return failure({
          operation: spec.operation,
          error:
            `The service at ${config.COMPLIANCE_API_BASE_URL} could not be reached (${reason})`,
        });
      }
      const text = await response.text().catch(() => "");
      log(
        `${spec.tool.name}: ${spec.operation} ${response.status} in ${
          Math.round(performance.now() - started)
        } ms`,
      );
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        body = undefined;
      }
      if (!response.ok || body === null || typeof body !== "object" || Array.isArray(body)) {
        return failure({
          operation: spec.operation,
          status: response.status,
          ...(body === undefined ? { error: "The service answered without JSON" } : { body }),
        });
      }
      const safe = JSON.parse(redact(JSON.stringify(body))) as Record<string, unknown>;
      return {
        content: [{ type: "text", text: JSON.stringify(safe) }],
        structuredContent: safe,
      };
    },
  );
  return server;
}

async function main(): Promise<void> {
  const parsed = McpConfig.safeParse(Deno.env.toObject());
  if (!parsed.success) {
    const names = [...new Set(parsed.error.issues.map((issue) => String(issue.path[0])))];
    console.error(`The MCP server could not start: ${names.join(", ")} is malformed`);
    Deno.exit(2);
  }
  const config = parsed.data;
  const log = (line: string) => console.error(`[compliance-mcp] ${line}`);
  const server = createMcpServer({ config, log });
  await server.connect(new StdioServerTransport());
  log(
    `serving on stdio for ${config.COMPLIANCE_API_BASE_URL} (API key ${
      config.COMPLIANCE_API_KEY === undefined ? "not set" : "set"
    })`,
  );
}

if (import.meta.main) await main();
