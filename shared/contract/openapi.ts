/**
 * The OpenAPI 3.1 description of the four operations, generated from the
 * contract's zod schemas (zod 4's JSON Schema output, draft 2020-12, which is
 * OpenAPI 3.1's own dialect). `deno task openapi` writes it to openapi.json;
 * tests/contract/openapi_test.ts fails when the committed file differs from
 * what these schemas generate, or when an OpenAPI validator refuses it.
 *
 * The MCP server (scripts/mcp.ts) takes its tools' input schemas from
 * {@linkcode jsonSchemaOf} too, so both describe the same requests.
 *
 * @module
 */
import { z } from "zod";
import {
  AccountErrorEnvelope,
  AccountRequest,
  ACTIVITY_CSV_COLUMNS,
  LogsResponse,
  VerifyResponse,
} from "./account.ts";
import {
  type AuditErrorCode,
  AuditErrorEnvelope,
  AuditRequest,
  AuditResponse,
  MAX_CONTENT_CHARS,
} from "./audit.ts";
import {
  TranscriptFailure,
  TranscriptRequest,
  TranscriptResponse,
  WebhookErrorEnvelope,
} from "./webhook_ingest.ts";
import {
  WebsiteAuditErrorEnvelope,
  WebsiteAuditRequest,
  WebsiteAuditResponse,
} from "./website_audit.ts";

/** The contract's version (section 9). */
export const CONTRACT_VERSION = "1.0.0";

/** The local server's `{base_url}` and the alternate host's, as `ALT_PORT=54331 npm start` serves it. */
export const LOCAL_BASE_URL = "http://127.0.0.1:54321/functions";
export const LOCAL_ALT_BASE_URL = "http://127.0.0.1:54331/functions";

/** A JSON Schema object. */
export type JsonSchema = Record<string, unknown>;

/**
 * Facts a zod check cannot express in JSON Schema: the content's length is a
 * refinement (it counts code points), which JSON Schema's minLength and
 * maxLength count too.
 */
function override(ctx: { zodSchema: unknown; jsonSchema: JsonSchema }): void {
  if (ctx.zodSchema === AuditRequest.shape.content) {
    ctx.jsonSchema.minLength = 1;
    ctx.jsonSchema.maxLength = MAX_CONTENT_CHARS;
  }
}

/**
 * The JSON Schema (draft 2020-12) of a contract schema: what a caller may
 * send (`input`: before trimming and normalising) or what the service answers
 * (`output`). Self-contained, without `$schema`.
 */
export function jsonSchemaOf(schema: z.ZodType, io: "input" | "output"): JsonSchema {
  const generated = z.toJSONSchema(schema, {
    target: "draft-2020-12",
    io,
    unrepresentable: "throw",
    override,
  }) as JsonSchema;
  delete generated.$schema;
  return generated;
}

/** One error row of the contract's section 7. */
interface ErrorRow {
  status: number;
  condition: string;
  /** complianceAudit's machine-readable codes for this status. */
  codes?: readonly AuditErrorCode[];
  /** The answer may carry `Retry-After`. */
  retryAfter?: boolean;
}

/** Section 7.1. */
const AUDIT_ERRORS: readonly ErrorRow[] = [
  { status: 400, codes: ["invalid_request"], condition: "malformed request" },
  { status: 401, codes: ["invalid_api_key"], condition: "key missing or invalid" },
  {
    status: 402,
    codes: ["account_inactive"],
    condition: "account neither active nor trialing",
  },
  {
    status: 429,
    codes: ["rate_limited", "quota_exceeded"],
    condition: "`rate_limited`: per-minute account limit exceeded (with `Retry-After`); " +
      "`quota_exceeded`: monthly plan quota exceeded",
    retryAfter: true,
  },
  {
    status: 503,
    codes: ["service_unavailable"],
    condition: "active database rulebook unavailable, or the service failed",
  },
];

/** Section 7.2. */
const ACCOUNT_ERRORS: readonly ErrorRow[] = [
  { status: 400, condition: "malformed account operation request (including unknown fields)" },
  { status: 401, condition: "key missing or invalid" },
  { status: 402, condition: "account neither active nor trialing" },
  { status: 429, condition: "verify exceeded 30 requests per minute per IP", retryAfter: true },
  { status: 500, condition: "the account operation failed" },
];

/** Section 7.3. */
const WEBSITE_ERRORS: readonly ErrorRow[] = [
  { status: 400, condition: "scan error for a bad request" },
  { status: 403, condition: "target disallowed by robots rules or security policy" },
  {
    status: 415,
    condition: "target content type unsupported, or a compressed request body " +
      "(Content-Encoding other than identity)",
  },
  { status: 429, condition: "IP limit exceeded", retryAfter: true },
  { status: 500, condition: "internal error" },
  { status: 502, condition: "target could not be scanned" },
];

/** Section 7.4 (HTTP 200 with `success` false is the 200 answer's failure form). */
const WEBHOOK_ERRORS: readonly ErrorRow[] = [
  { status: 400, condition: "payload fails validation" },
  {
    status: 401,
    condition: "credential missing, invalid, revoked or unknown (identical response)",
  },
  {
    status: 429,
    condition: "account-and-integration rate limit exhausted",
    retryAfter: true,
  },
  { status: 500, condition: "processing error" },
  {
    status: 503,
    condition: "the rate limiter failed (fails closed), or evaluation unavailable",
    retryAfter: true,
  },
];

/**
 * Beyond section 7, for every operation: a compressed body (a Content-Encoding
 * other than identity) is refused with 415 in the operation's own envelope
 * (docs/api.md, "Body"). Listed in each operation's responses, not in
 * CONTRACT_ERROR_STATUSES.
 */
const COMPRESSED_BODY: ErrorRow = {
  status: 415,
  condition: "a compressed body: Content-Encoding other than identity",
};

/** The error statuses of each operation, from the contract's section 7. */
export const CONTRACT_ERROR_STATUSES: Readonly<Record<OperationName, readonly number[]>> = {
  complianceAudit: AUDIT_ERRORS.map((row) => row.status),
  agentSubscribe: ACCOUNT_ERRORS.map((row) => row.status),
  runWebsiteAudit: WEBSITE_ERRORS.map((row) => row.status),
  webhookIngest: WEBHOOK_ERRORS.map((row) => row.status),
};

/** The four operations. */
export const OPERATIONS = [
  "complianceAudit",
  "agentSubscribe",
  "runWebsiteAudit",
  "webhookIngest",
] as const;
export type OperationName = typeof OPERATIONS[number];

/** Component schemas: name, zod schema, and whether it is sent or answered. */
const COMPONENTS: ReadonlyArray<[string, z.ZodType, "input" | "output"]> = [
  ["AuditRequest", AuditRequest, "input"],
  ["AuditResponse", AuditResponse, "output"],
  ["AuditErrorEnvelope", AuditErrorEnvelope, "output"],
  ["AccountRequest", AccountRequest, "input"],
  ["VerifyResponse", VerifyResponse, "output"],
  ["LogsResponse", LogsResponse, "output"],
  ["AccountErrorEnvelope", AccountErrorEnvelope, "output"],
  ["WebsiteAuditRequest", WebsiteAuditRequest, "input"],
  ["WebsiteAuditResponse", WebsiteAuditResponse, "output"],
  ["WebsiteAuditErrorEnvelope", WebsiteAuditErrorEnvelope, "output"],
  ["TranscriptRequest", TranscriptRequest, "input"],
  ["TranscriptResponse", TranscriptResponse, "output"],
  ["TranscriptFailure", TranscriptFailure, "output"],
  ["WebhookErrorEnvelope", WebhookErrorEnvelope, "output"],
];

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: JsonSchema, extra: JsonSchema = {}) => ({
  "application/json": { schema, ...extra },
});
const REQUEST_ID = { "x-request-id": { $ref: "#/components/headers/RequestId" } };
const RETRY_AFTER = { "Retry-After": { $ref: "#/components/headers/RetryAfter" } };

function errorResponses(
  rows: readonly ErrorRow[],
  envelope: string,
  example: (row: ErrorRow) => unknown,
): Record<string, unknown> {
  return Object.fromEntries(rows.map((row) => [String(row.status), {
    description: row.condition,
    headers: { ...REQUEST_ID, ...(row.retryAfter ? RETRY_AFTER : {}) },
    content: json(
      row.codes === undefined ? ref(envelope) : {
        allOf: [ref(envelope), {
          properties: { error: { properties: { code: { enum: [...row.codes] } } } },
        }],
      },
      { example: example(row) },
    ),
  }]));
}

const AUDIT_EXAMPLE = {
  content: "Hi! I'm Ava, the clinic's AI assistant. As a licensed therapist, I can help.",
  jurisdiction: "CA",
  industry: "healthcare",
};

const TRANSCRIPT_EXAMPLE = {
  source: "intercom",
  channel: "web-messenger",
  conversation_id: "conv-8812",
  messages: [
    { sender: "bot", text: "Hi! How can I help?", timestamp: "2026-11-20T10:00:00Z" },
    { sender: "user", text: "Are you a real person?", timestamp: "2026-11-20T10:00:30Z" },
    { sender: "bot", text: "Yes, I am a real person.", timestamp: "2026-11-20T10:01:00Z" },
  ],
};

/** The OpenAPI 3.1 document of the four operations. */
export function openApiDocument(): Record<string, unknown> {
  const schemas = Object.fromEntries(
    COMPONENTS.map(([name, schema, io]) => [name, jsonSchemaOf(schema, io)]),
  );
  return {
    openapi: "3.1.0",
    info: {
      title: "Compliance Audit Service",
      version: CONTRACT_VERSION,
      description: "Every operation is `POST {base_url}/<name>` with a JSON body. " +
        "`{base_url}` ends in `/functions` and carries no version segment; there is no " +
        "other spelling of a route (no `/v1`, no alias). Generated from the service's zod " +
        "schemas by `deno task openapi`; the reference is docs/api.md.",
    },
    servers: [
      {
        url: "{base_url}",
        description: "The contract's base URL (ends in /functions)",
        variables: {
          base_url: {
            default: LOCAL_BASE_URL,
            description:
              "The local server's, or a deployment's public `https://<api host>/functions`",
          },
        },
      },
      {
        url: "{alt_base_url}",
        description: "The contract's alternate host: the same routes",
        variables: {
          alt_base_url: {
            default: LOCAL_ALT_BASE_URL,
            description: "The local server's second listener (ALT_PORT), or a deployment's " +
              "second host name with the same mapping",
          },
        },
      },
    ],
    paths: {
      "/complianceAudit": {
        post: {
          operationId: "complianceAudit",
          summary: "Audit content against the active database rulebook",
          description: "Evaluates the content under the jurisdiction (and industry) and answers " +
            "a verdict, a risk score, the statutes involved, a penalty exposure and remediation. " +
            "`asset_url` is never fetched. An accepted call counts against the plan's monthly quota.",
          security: [{ ApiKey: [] }],
          parameters: [{
            name: "Idempotency-Key",
            in: "header",
            required: false,
            description: "Makes a retry safe (Stripe's convention): the same key with the same " +
              "body within 24 hours answers the first audit again and is not charged or counted " +
              "again; the same key with a different body is refused with 400.",
            schema: { type: "string", minLength: 1, maxLength: 255, pattern: "^[\\x21-\\x7e]+$" },
          }],
          requestBody: {
            required: true,
            content: json(ref("AuditRequest"), { example: AUDIT_EXAMPLE }),
          },
          responses: {
            "200": {
              description: "The audit",
              headers: REQUEST_ID,
              content: json(ref("AuditResponse")),
            },
            ...errorResponses(
              [...AUDIT_ERRORS, { ...COMPRESSED_BODY, codes: ["invalid_request"] }],
              "AuditErrorEnvelope",
              (row) => ({
                error: { code: row.codes![0], message: row.condition },
              }),
            ),
          },
        },
      },
      "/agentSubscribe": {
        post: {
          operationId: "agentSubscribe",
          summary: "Verify the account, read its activity log, export a month as CSV",
          description: "Chosen by `action`. The key goes in `X-API-Key`; the body field " +
            "`api_key` is accepted for one existing dashboard client only, when the header is " +
            "absent. `verify` is limited to 30 requests a minute per client IP.",
          security: [{ ApiKey: [] }],
          requestBody: {
            required: true,
            content: json(ref("AccountRequest"), {
              examples: {
                verify: { value: { action: "verify" } },
                get_logs: { value: { action: "get_logs" } },
                export_audit: { value: { action: "export_audit", month: "2026-11" } },
              },
            }),
          },
          responses: {
            "200": {
              description: "`verify`: the verification object; `get_logs`: the activity log " +
                "(JSON); `export_audit`: the month's activity as CSV (`text/csv`)",
              headers: {
                ...REQUEST_ID,
                "Content-Disposition": {
                  description: 'export_audit only: `attachment; filename="activity-YYYY-MM.csv"`',
                  schema: { type: "string" },
                },
              },
              content: {
                ...json({ oneOf: [ref("VerifyResponse"), ref("LogsResponse")] }),
                "text/csv": {
                  schema: {
                    type: "string",
                    description: `A header row (${ACTIVITY_CSV_COLUMNS.join(",")}), then one ` +
                      "row per activity record of the month, oldest first (RFC 4180, CRLF)",
                  },
                  example: `${ACTIVITY_CSV_COLUMNS.join(",")}\r\n` +
                    "2026-11-20T10:00:00.000Z,complianceAudit,200,41.7,starter,true\r\n",
                },
              },
            },
            ...errorResponses(
              [...ACCOUNT_ERRORS, COMPRESSED_BODY],
              "AccountErrorEnvelope",
              (row) => ({
                error: row.condition,
              }),
            ),
          },
        },
      },
      "/runWebsiteAudit": {
        post: {
          operationId: "runWebsiteAudit",
          summary: "Scan a public website anonymously",
          description: "No credential, no account, no quota: 10 scans a minute per client IP. " +
            "The scanner honours robots.txt and answers a score, a grade and findings with " +
            "evidence; `advisory` is model-written, kept apart from the score.",
          security: [],
          requestBody: {
            required: true,
            content: json(ref("WebsiteAuditRequest"), {
              example: { target_url: "https://www.example.com/" },
            }),
          },
          responses: {
            "200": {
              description: "The scan",
              headers: REQUEST_ID,
              content: json(ref("WebsiteAuditResponse")),
            },
            ...errorResponses(WEBSITE_ERRORS, "WebsiteAuditErrorEnvelope", (row) => ({
              error: row.condition,
            })),
          },
        },
      },
      "/webhookIngest": {
        post: {
          operationId: "webhookIngest",
          summary: "Ingest a conversation transcript from a chat platform",
          description: "For chat platforms, CRMs and automation tools. The integration's " +
            "credential goes only in `x-webhook-secret`; `X-API-Key` or a secret in the body is " +
            "refused. A processing failure after validation answers 200 with `success` false, so " +
            "that the platform does not retry in a storm.",
          security: [{ WebhookSecret: [] }],
          requestBody: {
            required: true,
            content: json(ref("TranscriptRequest"), { example: TRANSCRIPT_EXAMPLE }),
          },
          responses: {
            "200": {
              description: "The grade and counts (`success` true), or a processing failure " +
                "(`success` false)",
              headers: REQUEST_ID,
              content: json({ oneOf: [ref("TranscriptResponse"), ref("TranscriptFailure")] }),
            },
            ...errorResponses(
              [...WEBHOOK_ERRORS, COMPRESSED_BODY],
              "WebhookErrorEnvelope",
              (row) => ({
                success: false,
                error: row.condition,
              }),
            ),
          },
        },
      },
    },
    components: {
      schemas,
      securitySchemes: {
        ApiKey: {
          type: "apiKey",
          in: "header",
          name: "X-API-Key",
          description: "An account's API key (`cas_live_…`). Never put it in browser code, URLs, " +
            "screenshots or source control.",
        },
        WebhookSecret: {
          type: "apiKey",
          in: "header",
          name: "x-webhook-secret",
          description: "A webhook integration's credential (`cas_whk_…`), or during the " +
            "rollout the deployment's shared secret. Transcript writing only.",
        },
      },
      headers: {
        RequestId: {
          description: "The request's id (a UUID), also in the server's log line",
          schema: { type: "string", format: "uuid" },
        },
        RetryAfter: {
          description: "Whole seconds until the limit admits the caller again (at least 1)",
          schema: { type: "integer", minimum: 1 },
        },
      },
    },
  };
}
