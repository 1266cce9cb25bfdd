/** Which limiter the operations get: never per-isolate memory in a function. */
import assert from "node:assert/strict";
import { loadConfig } from "../../shared/config.ts";
import { AuditErrorEnvelope } from "../../shared/contract/audit.ts";
import { complianceAudit } from "../../shared/handlers/compliance_audit.ts";
import { createLogger } from "../../shared/log/logger.ts";
import { serviceDeps } from "../../shared/service_deps.ts";
import { fakeAccount, fakeDb, jsonRequest } from "../support/fake_deps.ts";

async function audits(runtime: "function" | "local-server", count: number) {
  const db = fakeDb();
  const { apiKey } = await fakeAccount(db);
  const lines: Array<Record<string, unknown>> = [];
  const logger = createLogger({ write: (line) => lines.push(JSON.parse(line)) });
  const handler = complianceAudit(serviceDeps(loadConfig({}), db, { runtime, logger }));
  const statuses: number[] = [];
  const codes: string[] = [];
  for (let i = 0; i < count; i++) {
    const response = await handler(
      jsonRequest("complianceAudit", { content: "Hello.", jurisdiction: "CA" }, {
        "x-api-key": apiKey,
      }),
    );
    statuses.push(response.status);
    if (!response.ok) codes.push(AuditErrorEnvelope.parse(await response.json()).error.code);
    else await response.body?.cancel();
  }
  return { statuses, codes, lines, db };
}

Deno.test("a function without Upstash refuses limited requests with its 5xx and says why once", async () => {
  const { statuses, codes, lines, db } = await audits("function", 2);
  assert.deepEqual(statuses, [503, 503]);
  assert.deepEqual(codes, ["service_unavailable", "service_unavailable"]);
  const why = lines.filter((line) => String(line.msg).startsWith("rate limiter not configured"));
  assert.equal(why.length, 1);
  assert.match(String(why[0].msg), /UPSTASH_REDIS_REST_URL/);
  assert.equal(db.names().includes("audit_record"), false);
});

Deno.test("the local server without Upstash keeps the in-memory limiter", async () => {
  const { statuses, lines } = await audits("local-server", 2);
  assert.deepEqual(statuses, [200, 200]);
  assert.equal(lines.some((line) => line.level === "error"), false);
});
