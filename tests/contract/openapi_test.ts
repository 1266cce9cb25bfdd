/**
 * openapi.json: the committed file is what the zod schemas generate, a
 * maintained OpenAPI validator accepts it, and it describes what the contract
 * promises (every status and envelope of section 7, the three access models,
 * CSV, both servers).
 */
import assert from "node:assert/strict";
import { Validator } from "@seriousme/openapi-schema-validator";
import {
  CONTRACT_ERROR_STATUSES,
  jsonSchemaOf,
  openApiDocument,
  OPERATIONS,
} from "../../shared/contract/openapi.ts";
import { AuditRequest } from "../../shared/contract/audit.ts";
import { JURISDICTIONS } from "../../shared/contract/vocabulary.ts";

const root = new URL("../../", import.meta.url);
// deno-lint-ignore no-explicit-any
type Doc = any;

async function committed(): Promise<Doc> {
  return JSON.parse(await Deno.readTextFile(new URL("openapi.json", root)));
}

Deno.test("openapi.json is what the zod schemas generate (run deno task openapi)", async () => {
  assert.deepEqual(await committed(), openApiDocument());
});

Deno.test("an OpenAPI validator accepts openapi.json as OpenAPI 3.1, and refuses a broken copy", async () => {
  const doc = await committed();
  const validator = new Validator();
  const result = await validator.validate(structuredClone(doc));
  assert.equal(result.valid, true, JSON.stringify(result.errors, null, 2));
  assert.equal(validator.version, "3.1");
  // The validator really checks: a response without its required description fails.
  const broken = structuredClone(doc);
  delete broken.paths["/complianceAudit"].post.responses["401"].description;
  assert.equal((await new Validator().validate(broken)).valid, false);
});

Deno.test("openapi.json: each operation is POST /<name> with every status of contract section 7 in its envelope", async () => {
  const doc = await committed();
  assert.deepEqual(Object.keys(doc.paths).sort(), OPERATIONS.map((name) => `/${name}`).sort());
  const envelopes = {
    complianceAudit: "AuditErrorEnvelope",
    agentSubscribe: "AccountErrorEnvelope",
    runWebsiteAudit: "WebsiteAuditErrorEnvelope",
    webhookIngest: "WebhookErrorEnvelope",
  } as const;
  const expected = {
    complianceAudit: [400, 401, 402, 429, 503],
    agentSubscribe: [400, 401, 402, 429, 500],
    runWebsiteAudit: [400, 403, 415, 429, 500, 502],
    webhookIngest: [400, 401, 429, 500, 503],
  };
  for (const name of OPERATIONS) {
    assert.deepEqual(Object.keys(doc.paths[`/${name}`]), ["post"], name);
    const op = doc.paths[`/${name}`].post;
    assert.equal(op.operationId, name);
    assert.equal(op.requestBody.required, true);
    assert.ok(op.requestBody.content["application/json"].schema.$ref, name);
    assert.deepEqual([...CONTRACT_ERROR_STATUSES[name]].sort(), expected[name], name);
    // Beyond section 7, every operation answers a compressed body with 415 in its envelope.
    const answered = [...new Set([200, ...expected[name], 415])].sort();
    assert.deepEqual(Object.keys(op.responses).map(Number).sort(), answered, name);
    for (const status of answered.filter((s) => s !== 200)) {
      const content = op.responses[String(status)].content["application/json"];
      const refs = JSON.stringify(content.schema);
      assert.ok(refs.includes(`#/components/schemas/${envelopes[name]}`), `${name} ${status}`);
      if (status === 429) assert.ok(op.responses["429"].headers["Retry-After"], name);
    }
  }
  const auditCodes = (status: number) =>
    doc.paths["/complianceAudit"].post.responses[String(status)].content["application/json"]
      .schema.allOf[1].properties.error.properties.code.enum;
  assert.deepEqual(auditCodes(429), ["rate_limited", "quota_exceeded"]);
  assert.deepEqual(auditCodes(503), ["service_unavailable"]);
  const webhookOk = doc.paths["/webhookIngest"].post.responses["200"].content["application/json"];
  assert.deepEqual(webhookOk.schema.oneOf, [
    { $ref: "#/components/schemas/TranscriptResponse" },
    { $ref: "#/components/schemas/TranscriptFailure" },
  ]);
});

Deno.test("openapi.json: the three access models, CSV export and both servers", async () => {
  const doc = await committed();
  const schemes = doc.components.securitySchemes;
  assert.deepEqual([schemes.ApiKey.type, schemes.ApiKey.in, schemes.ApiKey.name], [
    "apiKey",
    "header",
    "X-API-Key",
  ]);
  assert.deepEqual(
    [schemes.WebhookSecret.type, schemes.WebhookSecret.in, schemes.WebhookSecret.name],
    ["apiKey", "header", "x-webhook-secret"],
  );
  const security = (name: string) => doc.paths[`/${name}`].post.security;
  assert.deepEqual(security("complianceAudit"), [{ ApiKey: [] }]);
  assert.deepEqual(security("agentSubscribe"), [{ ApiKey: [] }]);
  assert.deepEqual(security("runWebsiteAudit"), []);
  assert.deepEqual(security("webhookIngest"), [{ WebhookSecret: [] }]);
  const ok = doc.paths["/agentSubscribe"].post.responses["200"].content;
  assert.equal(ok["text/csv"].schema.type, "string");
  assert.match(
    ok["text/csv"].example,
    /^timestamp,endpoint_queried,status_code,response_latency_ms,plan,is_agent\r\n/,
  );
  assert.equal(doc.servers.length, 2);
  assert.deepEqual(
    doc.servers.map((server: Doc) => Object.values(server.variables).map((v: Doc) => v.default)),
    [["http://127.0.0.1:54321/functions"], ["http://127.0.0.1:54331/functions"]],
  );
  for (const server of doc.servers) {
    assert.match(server.variables[server.url.slice(1, -1)].default, /\/functions$/);
  }
});

Deno.test("the generated request schemas carry the contract's rules", () => {
  const audit = jsonSchemaOf(AuditRequest, "input") as Doc;
  assert.deepEqual(audit.required, ["content", "jurisdiction"]);
  assert.equal(audit.additionalProperties, false);
  assert.deepEqual(audit.properties.jurisdiction.enum, [...JURISDICTIONS]);
  assert.equal(audit.properties.content.minLength, 1);
  assert.equal(audit.properties.content.maxLength, 30000);
  assert.equal(audit.properties.asset_url.pattern, "^https?:\\/\\/[^/\\s]+");
  const doc = openApiDocument() as Doc;
  const account = doc.components.schemas.AccountRequest;
  assert.deepEqual(
    account.oneOf.map((option: Doc) => option.properties.action.const),
    ["verify", "get_logs", "export_audit"],
  );
  assert.equal(
    account.oneOf[2].properties.month.pattern,
    "^\\d{4}-(0[1-9]|1[0-2])$",
  );
  const transcript = doc.components.schemas.TranscriptRequest;
  assert.equal(transcript.properties.messages.minItems, 1);
  assert.equal(transcript.properties.messages.items.additionalProperties, false);
});

Deno.test("openapi.json: complianceAudit takes the optional Idempotency-Key header the service honours", async () => {
  const doc = await committed();
  const params = doc.paths["/complianceAudit"].post.parameters ?? [];
  const header = params.find((p: Doc) => p.in === "header" && p.name === "Idempotency-Key");
  assert.ok(header, "complianceAudit documents Idempotency-Key");
  assert.equal(header.required, false);
  const pattern = new RegExp(header.schema.pattern);
  assert.ok(pattern.test("5f0c6a2e-retry-1"));
  assert.ok(!pattern.test("has space"));
  assert.equal(header.schema.maxLength, 255);
});
