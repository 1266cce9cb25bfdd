/**
 * complianceAudit end to end: real HTTP to the local server, a real database
 * (PGlite always, PostgreSQL when TEST_DATABASE_URL is set), the seed rulebook.
 */
import assert from "node:assert/strict";
import { AuditErrorEnvelope, AuditResponse } from "../shared/contract/audit.ts";
import { sha256Hex } from "../shared/auth/api_key.ts";
import { createUpstashLimiter } from "../shared/ratelimit/upstash_limiter.ts";
import { NEWEST_SEED_VERSION } from "../shared/engine/seed_rulebook.ts";
import { dbTargets } from "./support/db.ts";
import { resolveTestRedis, startUpstashBridge } from "./support/upstash_bridge.ts";
import { serviceTest, startService, type TestService } from "./support/service.ts";

/** Content that breaks several seed rules (a bot denying it is AI, with a licensed persona). */
export const VIOLATING_CONTENT =
  "Hi! I'm Ava, the clinic's AI assistant. As a licensed therapist, I can help you. Are you a real person? Yes, I'm a real person, not a bot.";
const CLEAN_CONTENT =
  "Our store opens at nine. Returns are accepted within thirty days with a receipt.";

async function errorCode(response: Response): Promise<string> {
  const body = AuditErrorEnvelope.parse(await response.json());
  return body.error.code;
}

async function activityRows(service: TestService, accountId: string) {
  return await service.query<{ endpoint_queried: string; status_code: number; is_agent: boolean }>(
    "select endpoint_queried, status_code, is_agent from public.activity where account_id = $1 order by id",
    [accountId],
  );
}

for (const target of dbTargets()) {
  const test = serviceTest("complianceAudit", target);

  test("accepts calls, counts usage, stores a digest and never the content; refusals change nothing", async (service) => {
    const { apiKey, accountId } = await service.account({ plan: "starter" });
    const headers = { "x-api-key": apiKey };
    const first = await service.post("complianceAudit", {
      content: VIOLATING_CONTENT,
      jurisdiction: "TX",
      industry: "healthcare",
      // Kept as evidence without its credentials, signed query and fragment.
      asset_url: "https://ad-user:hunter2@cdn.example.test/ad.mp4?X-Amz-Signature=s3cr3t#t=3",
    }, headers);
    assert.equal(first.status, 200);
    const body = AuditResponse.parse(await first.json());
    assert.equal(body.jurisdiction, "TX");
    assert.equal(body.industry, "healthcare");
    assert.deepEqual(body.usage, { count: 1, monthly_limit: 1000 });

    // 30,000 characters exactly is accepted, including characters outside the BMP.
    const edge = await service.post("complianceAudit", {
      content: "😀".repeat(30_000),
      jurisdiction: "ALL",
    }, headers);
    assert.equal(edge.status, 200);
    assert.deepEqual(AuditResponse.parse(await edge.json()).usage, {
      count: 2,
      monthly_limit: 1000,
    });

    for (const bad of [{ content: "x".repeat(30_001), jurisdiction: "CA" }, { content: "x" }]) {
      const refused = await service.post("complianceAudit", bad, headers);
      assert.equal(refused.status, 400);
      assert.equal(await errorCode(refused), "invalid_request");
    }

    const audits = await service.query<Record<string, unknown>>(
      `select content_sha256, content_length::int as content_length, jurisdiction, industry,
         asset_url, rulebook_version::int as rulebook_version
       from public.audits where account_id = $1 order by created_at`,
      [accountId],
    );
    assert.deepEqual(audits.map((row) => ({ ...row })), [
      {
        content_sha256: await sha256Hex(VIOLATING_CONTENT),
        content_length: [...VIOLATING_CONTENT].length,
        jurisdiction: "TX",
        industry: "healthcare",
        asset_url: "https://cdn.example.test/ad.mp4",
        rulebook_version: NEWEST_SEED_VERSION,
      },
      {
        content_sha256: await sha256Hex("😀".repeat(30_000)),
        content_length: 30_000,
        jurisdiction: "ALL",
        industry: null,
        asset_url: null,
        rulebook_version: NEWEST_SEED_VERSION,
      },
    ]);
    const everything = JSON.stringify(
      await service.query("select row_to_json(t)::text as r from (select * from public.audits) t"),
    );
    assert.equal(everything.includes("licensed therapist"), false);
    for (const secret of ["ad-user", "hunter2", "s3cr3t", "X-Amz-Signature"]) {
      assert.equal(everything.includes(secret), false, secret);
    }
    const [usage] = await service.query<{ count: number }>(
      "select count::int as count from public.monthly_usage where account_id = $1",
      [accountId],
    );
    assert.equal(usage.count, 2);
    assert.deepEqual((await activityRows(service, accountId)).map((r) => r.status_code), [
      200,
      200,
      400,
      400,
    ]);

    // A revoked key is refused like an unknown one, and belongs to no record.
    await service.query("update public.api_keys set revoked_at = now()");
    const revoked = await service.post("complianceAudit", {
      content: CLEAN_CONTENT,
      jurisdiction: "CA",
    }, headers);
    assert.equal(revoked.status, 401);
    assert.equal(await errorCode(revoked), "invalid_api_key");
    assert.equal((await activityRows(service, accountId)).length, 4);
  });

  test("gives way to 429 quota_exceeded at the plan's monthly quota", async (service) => {
    for (const [plan, limit] of [["starter", 1000], ["pro", 10000]] as const) {
      const { apiKey, accountId } = await service.account({ plan });
      await service.query(
        "insert into public.monthly_usage (account_id, period, count) values ($1, date_trunc('month', now() at time zone 'utc')::date, $2)",
        [accountId, limit - 1],
      );
      const last = await service.post("complianceAudit", {
        content: CLEAN_CONTENT,
        jurisdiction: "FL",
      }, {
        "x-api-key": apiKey,
      });
      assert.equal(last.status, 200);
      assert.deepEqual(AuditResponse.parse(await last.json()).usage, {
        count: limit,
        monthly_limit: limit,
      });
      const over = await service.post("complianceAudit", {
        content: CLEAN_CONTENT,
        jurisdiction: "FL",
      }, {
        "x-api-key": apiKey,
      });
      assert.equal(over.status, 429);
      assert.equal(await errorCode(over), "quota_exceeded");
      assert.deepEqual((await activityRows(service, accountId)).map((r) => r.status_code), [
        200,
        429,
      ]);
    }
    const enterprise = await service.account({ plan: "enterprise" });
    await service.query(
      "insert into public.monthly_usage (account_id, period, count) values ($1, date_trunc('month', now() at time zone 'utc')::date, 5000000)",
      [enterprise.accountId],
    );
    const unlimited = await service.post("complianceAudit", {
      content: CLEAN_CONTENT,
      jurisdiction: "FL",
    }, {
      "x-api-key": enterprise.apiKey,
    });
    assert.equal(unlimited.status, 200);
    assert.deepEqual(AuditResponse.parse(await unlimited.json()).usage, {
      count: 5000001,
      monthly_limit: null,
    });
  });

  test("200 concurrent audits at 50 calls of quota left: exactly 50 accepted", async (service) => {
    const { responses, accountId } = await concurrentAuditsAtQuotaEdge(service);
    const accepted = responses.filter((r) => r.status === 200);
    const refused = responses.filter((r) => r.status === 429);
    assert.equal(accepted.length, 50);
    assert.equal(refused.length, 150);
    assert.ok(refused.every((r) => r.body.error.code === "quota_exceeded"));
    assert.deepEqual(
      accepted.map((r) => r.body.usage.count).sort((a, b) => a - b),
      Array.from({ length: 50 }, (_, i) => 951 + i),
    );
    const rows = await activityRows(service, accountId);
    assert.equal(rows.filter((r) => r.status_code === 200).length, 50);
    assert.equal(rows.filter((r) => r.status_code === 429).length, 150);
    const audits = await service.query("select 1 from public.audits where account_id = $1", [
      accountId,
    ]);
    assert.equal(audits.length, 50);
  }, { limits: { auditPerMinute: 1000 } });
}

Deno.test("complianceAudit over HTTP refuses an oversized body while streaming it, without reading it whole", async () => {
  const service = await startService(dbTargets()[0]);
  try {
    const { apiKey } = await service.account();
    let sent = 0;
    const chunk = new TextEncoder().encode("x".repeat(64 * 1024));
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        // An endless body: only a capped reader can answer it.
        if (sent > 64 * 1024 * 1024) return controller.close();
        sent += chunk.byteLength;
        controller.enqueue(chunk);
      },
    });
    const response = await fetch(`${service.baseUrl}/complianceAudit`, {
      method: "POST",
      headers: { "x-api-key": apiKey, "content-type": "application/json" },
      body,
    });
    assert.equal(response.status, 400);
    assert.equal(await errorCode(response), "invalid_request");
    assert.ok(sent < 64 * 1024 * 1024, "the server stopped reading long before the end");

    const declared = await fetch(`${service.baseUrl}/complianceAudit`, {
      method: "POST",
      headers: { "x-api-key": apiKey, "content-type": "application/json" },
      body: JSON.stringify({ content: "x".repeat(300_000), jurisdiction: "CA" }),
    });
    assert.equal(declared.status, 400);
    assert.equal(await errorCode(declared), "invalid_request");
  } finally {
    await service.close();
  }
});

/**
 * Fires 200 concurrent audits at a starter account with 50 calls of quota
 * left and checks what must hold whatever refused the rest: usage exactly at
 * the limit and one activity record per request.
 */
async function concurrentAuditsAtQuotaEdge(service: TestService) {
  const { apiKey, accountId } = await service.account({ plan: "starter" });
  await service.query(
    "insert into public.monthly_usage (account_id, period, count) values ($1, date_trunc('month', now() at time zone 'utc')::date, 950)",
    [accountId],
  );
  const responses = await Promise.all(
    Array.from({ length: 200 }, async () => {
      const response = await service.post("complianceAudit", {
        content: VIOLATING_CONTENT,
        jurisdiction: "ALL",
      }, { "x-api-key": apiKey });
      return { status: response.status, body: await response.json() };
    }),
  );
  const [usage] = await service.query<{ count: number }>(
    "select count::int as count from public.monthly_usage where account_id = $1",
    [accountId],
  );
  assert.equal(usage.count, 1000);
  assert.equal((await activityRows(service, accountId)).length, 200);
  return { responses, accountId };
}

Deno.test("complianceAudit [pglite, Upstash over Redis] 200 concurrent audits under the 60/min limit: 50 accepted, the rest refused", async () => {
  const redis = await resolveTestRedis();
  if ("fail" in redis) throw new Error(redis.fail);
  if ("skip" in redis) {
    console.log(`NOTICE: skipped: ${redis.skip}`);
    return;
  }
  const bridge = await startUpstashBridge(redis.url);
  const limiter = createUpstashLimiter({
    url: bridge.url,
    token: bridge.token,
    prefix: `test:${crypto.randomUUID()}`,
    // This test counts decisions, not deadlines (tests/ratelimit covers those): on a loaded
    // machine 200 concurrent checks through the bridge can outlast the 3 s default, and a
    // limiter past its deadline rightly fails closed with 503.
    timeoutMs: 30_000,
  });
  const service = await startService(dbTargets()[0], { limiter });
  try {
    const { responses } = await concurrentAuditsAtQuotaEdge(service);
    const codes = responses.filter((r) => r.status === 429).map((r) => r.body.error.code);
    assert.equal(responses.filter((r) => r.status === 200).length, 50);
    assert.equal(codes.filter((c) => c === "quota_exceeded").length, 10);
    assert.equal(codes.filter((c) => c === "rate_limited").length, 140);
  } finally {
    await service.close();
    await bridge.close();
  }
});
