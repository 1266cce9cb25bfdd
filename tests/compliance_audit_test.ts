/**
 * complianceAudit end to end: real HTTP to the local server, a real database
 * (PGlite always, PostgreSQL when TEST_DATABASE_URL is set), the seed rulebook.
 */
import assert from "node:assert/strict";
import { AuditErrorEnvelope, AuditResponse } from "../shared/contract/audit.ts";
import { sha256Hex } from "../shared/auth/api_key.ts";
import { createUpstashLimiter } from "../shared/ratelimit/upstash_limiter.ts";
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

  test("answers 200 with the contract's response and counts usage", async (service) => {
    const { apiKey, accountId } = await service.account({ plan: "starter" });
    const first = await service.post("complianceAudit", {
      content: VIOLATING_CONTENT,
      jurisdiction: "CA",
      industry: "healthcare",
    }, {
      "x-api-key": apiKey,
    });
    assert.equal(first.status, 200);
    const body = AuditResponse.parse(await first.json());
    assert.equal(body.verdict, "RED");
    assert.ok(body.risk_score > 0 && body.risk_score <= 100);
    assert.ok(body.statutes.length > 0);
    assert.ok(body.remediation.length > 0);
    assert.ok(body.penalty_exposure_usd > 0);
    assert.equal(body.jurisdiction, "CA");
    assert.equal(body.industry, "healthcare");
    assert.deepEqual(body.usage, { count: 1, monthly_limit: 1000 });

    const second = await service.post("complianceAudit", {
      content: CLEAN_CONTENT,
      jurisdiction: "ALL",
    }, {
      "x-api-key": apiKey,
    });
    const clean = AuditResponse.parse(await second.json());
    assert.equal(clean.verdict, "GREEN");
    assert.equal(clean.risk_score, 0);
    assert.deepEqual(clean.statutes, []);
    assert.equal(clean.penalty_exposure_usd, 0);
    assert.equal("industry" in clean, false);
    assert.deepEqual(clean.usage, { count: 2, monthly_limit: 1000 });

    const [usage] = await service.query<{ count: number }>(
      "select count::int as count from public.monthly_usage where account_id = $1",
      [accountId],
    );
    assert.equal(usage.count, 2);
    const rows = await activityRows(service, accountId);
    assert.deepEqual(rows.map((r) => [r.endpoint_queried, r.status_code, r.is_agent]), [
      ["complianceAudit", 200, true],
      ["complianceAudit", 200, true],
    ]);
  });

  test("stores the audit's digest and length, never the content", async (service) => {
    const { apiKey, accountId } = await service.account();
    const response = await service.post("complianceAudit", {
      content: VIOLATING_CONTENT,
      jurisdiction: "TX",
      asset_url: "https://cdn.example.test/ad.mp4",
    }, { "x-api-key": apiKey });
    assert.equal(response.status, 200);
    const audits = await service.query<Record<string, unknown>>(
      "select * from public.audits where account_id = $1",
      [accountId],
    );
    assert.equal(audits.length, 1);
    assert.equal(audits[0].content_sha256, await sha256Hex(VIOLATING_CONTENT));
    assert.equal(Number(audits[0].content_length), VIOLATING_CONTENT.length);
    assert.equal(audits[0].jurisdiction, "TX");
    assert.equal(audits[0].asset_url, "https://cdn.example.test/ad.mp4");
    assert.equal(audits[0].verdict, "RED");
    assert.equal(Number(audits[0].rulebook_version), 1);
    const everything = JSON.stringify(
      await service.query("select row_to_json(t)::text as r from (select * from public.audits) t"),
    );
    assert.equal(everything.includes("licensed therapist"), false);
  });

  test("refuses a missing, malformed, unknown or revoked key with 401", async (service) => {
    const { apiKey } = await service.account();
    const body = { content: CLEAN_CONTENT, jurisdiction: "CA" };
    const keyHeaders: Record<string, string>[] = [{}, { "x-api-key": "" }, {
      "x-api-key": "not-a-key",
    }, {
      "x-api-key": "cas_live_" + "A".repeat(43),
    }, { "x-api-key": apiKey.slice(0, -1) + (apiKey.endsWith("A") ? "B" : "A") }];
    for (const headers of keyHeaders) {
      const response = await service.post("complianceAudit", body, headers);
      assert.equal(response.status, 401);
      assert.equal(await errorCode(response), "invalid_api_key");
    }
    await service.query("update public.api_keys set revoked_at = now()");
    const revoked = await service.post("complianceAudit", body, { "x-api-key": apiKey });
    assert.equal(revoked.status, 401);
    assert.equal(await errorCode(revoked), "invalid_api_key");
  });

  test("refuses accounts neither active nor trialing with 402, and records the call", async (service) => {
    for (const status of ["past_due", "canceled", "paused"] as const) {
      const { apiKey, accountId } = await service.account({ status });
      const response = await service.post("complianceAudit", {
        content: CLEAN_CONTENT,
        jurisdiction: "CA",
      }, {
        "x-api-key": apiKey,
      });
      assert.equal(response.status, 402);
      assert.equal(await errorCode(response), "account_inactive");
      assert.deepEqual((await activityRows(service, accountId)).map((r) => r.status_code), [402]);
    }
    const expired = await service.account({ status: "trialing", trialEnd: "2020-01-01T00:00:00Z" });
    const refused = await service.post("complianceAudit", {
      content: CLEAN_CONTENT,
      jurisdiction: "CA",
    }, {
      "x-api-key": expired.apiKey,
    });
    assert.equal(refused.status, 402);
    const trialing = await service.account({
      status: "trialing",
      trialEnd: "2999-01-01T00:00:00Z",
    });
    const accepted = await service.post("complianceAudit", {
      content: CLEAN_CONTENT,
      jurisdiction: "CA",
    }, {
      "x-api-key": trialing.apiKey,
    });
    assert.equal(accepted.status, 200);
  });

  test("refuses malformed requests with 400 invalid_request and changes no usage", async (service) => {
    const { apiKey, accountId } = await service.account();
    const headers = { "x-api-key": apiKey };
    const bad: unknown[] = [
      { content: CLEAN_CONTENT, jurisdiction: "CA", extra: 1 },
      { content: CLEAN_CONTENT, jurisdiction: "WA" },
      { content: CLEAN_CONTENT, jurisdiction: "ca" },
      { content: CLEAN_CONTENT },
      { jurisdiction: "CA" },
      { content: "", jurisdiction: "CA" },
      { content: "x".repeat(30_001), jurisdiction: "CA" },
      { content: 42, jurisdiction: "CA" },
      { content: CLEAN_CONTENT, jurisdiction: "CA", industry: "crypto" },
      { content: CLEAN_CONTENT, jurisdiction: "CA", asset_url: "ftp://example.test/x" },
      { content: CLEAN_CONTENT, jurisdiction: "CA", asset_url: "https:///nohost" },
      { content: CLEAN_CONTENT, jurisdiction: "CA", asset_url: "example.test/x" },
      [],
      null,
      "text",
      "{not json",
    ];
    for (const body of bad) {
      const response = await service.post(
        "complianceAudit",
        typeof body === "string" && body.startsWith("{") ? body : JSON.stringify(body),
        headers,
      );
      assert.equal(response.status, 400, `expected 400 for ${JSON.stringify(body).slice(0, 80)}`);
      assert.equal(await errorCode(response), "invalid_request");
    }
    const textPlain = await fetch(`${service.baseUrl}/complianceAudit`, {
      method: "POST",
      headers: { ...headers, "content-type": "text/plain" },
      body: JSON.stringify({ content: CLEAN_CONTENT, jurisdiction: "CA" }),
    });
    assert.equal(textPlain.status, 400);
    assert.equal(await errorCode(textPlain), "invalid_request");

    // 30,000 characters exactly is accepted, including characters outside the BMP.
    const edge = await service.post("complianceAudit", {
      content: "😀".repeat(30_000),
      jurisdiction: "CA",
    }, headers);
    assert.equal(edge.status, 200);
    const [stored] = await service.query<{ content_length: number }>(
      "select content_length::int as content_length from public.audits where account_id = $1",
      [accountId],
    );
    assert.equal(stored.content_length, 30_000);

    const [usage] = await service.query<{ count: number }>(
      "select coalesce(sum(count), 0)::int as count from public.monthly_usage where account_id = $1",
      [accountId],
    );
    assert.equal(usage.count, 1);
    const audits = await service.query("select 1 from public.audits where account_id = $1", [
      accountId,
    ]);
    assert.equal(audits.length, 1);
  });

  test("refuses an oversized body while streaming it, without reading it whole", async (service) => {
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
  });

  test("gives way to 429 rate_limited after 60 accepted requests in a minute", async (service) => {
    const { apiKey, accountId } = await service.account({ plan: "pro" });
    const statuses: number[] = [];
    for (let i = 0; i < 61; i++) {
      const response = await service.post("complianceAudit", {
        content: CLEAN_CONTENT,
        jurisdiction: "NY",
      }, {
        "x-api-key": apiKey,
      });
      statuses.push(response.status);
      if (response.status === 429) {
        assert.equal(await errorCode(response), "rate_limited");
        assert.ok(Number(response.headers.get("retry-after")) >= 1);
      } else {
        await response.body?.cancel();
      }
    }
    assert.deepEqual(statuses, [...Array(60).fill(200), 429]);
    const other = await service.account({ plan: "pro" });
    const unaffected = await service.post("complianceAudit", {
      content: CLEAN_CONTENT,
      jurisdiction: "NY",
    }, {
      "x-api-key": other.apiKey,
    });
    assert.equal(unaffected.status, 200);
    const rows = await activityRows(service, accountId);
    assert.equal(rows.length, 61);
    assert.deepEqual(rows.at(-1), {
      endpoint_queried: "complianceAudit",
      status_code: 429,
      is_agent: true,
    });
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

  test(
    "answers 503 service_unavailable without an active rulebook, and never falls back",
    async (service) => {
      const { apiKey, accountId } = await service.account();
      const response = await service.post("complianceAudit", {
        content: VIOLATING_CONTENT,
        jurisdiction: "CA",
      }, {
        "x-api-key": apiKey,
      });
      assert.equal(response.status, 503);
      assert.equal(await errorCode(response), "service_unavailable");
      const [usage] = await service.query<{ n: number }>(
        "select count(*)::int as n from public.monthly_usage where account_id = $1",
        [accountId],
      );
      assert.equal(usage.n, 0);
    },
    { seed: false },
  );

  test("answers 503 when the database fails, with no internals", async (service) => {
    const { apiKey } = await service.account();
    await service.db.close();
    const response = await service.post("complianceAudit", {
      content: CLEAN_CONTENT,
      jurisdiction: "CA",
    }, {
      "x-api-key": apiKey,
    });
    assert.equal(response.status, 503);
    const text = await response.text();
    assert.deepEqual(Object.keys(JSON.parse(text).error).sort(), ["code", "message"]);
    assert.equal(
      /at |\.ts|stack|pglite|postgres|select/i.test(JSON.parse(text).error.message),
      false,
    );
  });

  test("fails closed with 503 when the rate limiter fails", async (service) => {
    const { apiKey } = await service.account();
    const response = await service.post("complianceAudit", {
      content: CLEAN_CONTENT,
      jurisdiction: "CA",
    }, {
      "x-api-key": apiKey,
    });
    assert.equal(response.status, 503);
    assert.equal(await errorCode(response), "service_unavailable");
  }, { limiter: { limit: () => Promise.reject(new Error("redis down")) } });

  test("never fetches asset_url", async (service) => {
    const { apiKey } = await service.account();
    let hits = 0;
    const bait = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, () => {
      hits++;
      return new Response("ok");
    });
    const realFetch = globalThis.fetch;
    const outbound: string[] = [];
    try {
      const baitUrl = `http://127.0.0.1:${bait.addr.port}/asset.png`;
      // Every fetch the process makes is seen here; only the test's own call may go out.
      globalThis.fetch = (input, init) => {
        const url = input instanceof Request ? input.url : String(input);
        outbound.push(url);
        return realFetch(input, init);
      };
      const response = await service.post("complianceAudit", {
        content: "An image of our product.",
        jurisdiction: "CA",
        asset_url: baitUrl,
      }, { "x-api-key": apiKey });
      assert.equal(response.status, 200);
      await response.body?.cancel();
    } finally {
      globalThis.fetch = realFetch;
      await bait.shutdown();
    }
    assert.equal(hits, 0);
    assert.deepEqual(outbound, [`${service.baseUrl}/complianceAudit`]);
  });

  test("keeps keys and content out of every log line and response", async (service) => {
    const { apiKey } = await service.account();
    const secretContent = "Unique audited sentence 7f3a9: I am a human, not an AI.";
    const ok = await service.post(
      "complianceAudit",
      { content: secretContent, jurisdiction: "CA" },
      {
        "x-api-key": apiKey,
      },
    );
    const okText = await ok.text();
    const bad = await service.post("complianceAudit", {
      content: secretContent,
      jurisdiction: "XX",
    }, {
      "x-api-key": apiKey,
    });
    const badText = await bad.text();
    const pastedAsName = await service.post("complianceAudit", {
      content: "x",
      jurisdiction: "CA",
      [apiKey]: true,
    }, { "x-api-key": apiKey });
    assert.equal(pastedAsName.status, 400);
    const pastedText = await pastedAsName.text();
    const wrongKey = await service.post("complianceAudit", {
      content: secretContent,
      jurisdiction: "CA",
    }, {
      "x-api-key": apiKey.slice(0, -2) + "zz",
    });
    const wrongText = await wrongKey.text();
    for (const text of [okText, badText, wrongText, pastedText, ...service.logLines]) {
      assert.equal(text.includes(apiKey), false);
      assert.equal(text.includes(apiKey.slice(0, -2)), false);
      assert.equal(text.includes("7f3a9"), false);
    }
    const lines = service.logLines.map((line) => JSON.parse(line));
    const requests = lines.filter((line) => line.msg === "request");
    assert.equal(requests.length, 4);
    for (const line of requests) {
      assert.equal(line.operation, "complianceAudit");
      assert.match(line.request_id, /^[0-9a-f-]{36}$/);
      assert.equal(typeof line.status, "number");
      assert.equal(typeof line.latency_ms, "number");
    }
  });

  test("answers the CORS preflight and refuses other methods in its envelope", async (service) => {
    const preflight = await fetch(`${service.baseUrl}/complianceAudit`, {
      method: "OPTIONS",
      headers: { origin: "https://app.example.test", "access-control-request-method": "POST" },
    });
    assert.equal(preflight.status, 204);
    assert.equal(preflight.headers.get("access-control-allow-origin"), "*");
    await preflight.body?.cancel();
    const get = await fetch(`${service.baseUrl}/complianceAudit`);
    assert.equal(get.status, 405);
    assert.equal(await errorCode(get), "invalid_request");
    // Errors carry the CORS headers and the request id too.
    const refused = await fetch(`${service.baseUrl}/complianceAudit`, {
      method: "POST",
      headers: { origin: "https://app.example.test", "content-type": "application/json" },
      body: "{}",
    });
    assert.equal(refused.status, 401);
    assert.equal(refused.headers.get("access-control-allow-origin"), "*");
    assert.match(refused.headers.get("x-request-id") ?? "", /^[0-9a-f-]{36}$/);
    await refused.body?.cancel();
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
