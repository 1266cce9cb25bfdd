/**
 * webhookIngest end to end: real HTTP to the local server, a real database
 * (PGlite always, PostgreSQL when TEST_DATABASE_URL is set), the seed
 * rulebook, integrations provisioned as an operator does.
 */
import assert from "node:assert/strict";
import { createIntegration, rotateIntegrationCredential } from "../shared/admin/provisioning.ts";
import {
  TranscriptFailure,
  TranscriptResponse,
  WebhookErrorEnvelope,
} from "../shared/contract/webhook_ingest.ts";
import { GRADE_FLOORS } from "../shared/contract/grade.ts";
import type { Industry, Jurisdiction } from "../shared/contract/vocabulary.ts";
import { type Db, DbError } from "../shared/db/db.ts";
import { NEWEST_SEED_VERSION } from "../shared/engine/seed_rulebook.ts";
import { UNAUTHORIZED_MESSAGE } from "../shared/handlers/webhook_ingest.ts";
import type { RateLimiter } from "../shared/ratelimit/rate_limiter.ts";
import { cli } from "./support/admin_cli.ts";
import { dbTargets } from "./support/db.ts";
import { serviceTest, type TestService } from "./support/service.ts";

/** Words of the transcript: they must be stored, and never answered or logged. */
const MARKER = "kw9-transcript-words";

const TRANSCRIPT = {
  source: "intercom",
  channel: "web-messenger",
  conversation_id: "conv-8812",
  messages: [
    {
      sender: "bot",
      text: "Hi! Welcome to Northwind. How can I help?",
      timestamp: "2026-11-20T10:00:00Z",
    },
    {
      sender: "user",
      text: `Are you a real person or a bot? ${MARKER}`,
      timestamp: "2026-11-20T10:00:30Z",
    },
    {
      sender: "bot",
      text: "I'm a real person on the support team, not a bot.",
      timestamp: "2026-11-20T10:01:00Z",
    },
  ],
};

/** An integration provisioned for a new account, as the admin CLI does it. */
async function integration(
  service: TestService,
  settings: { jurisdictions?: Jurisdiction[]; industry?: Industry | null; name?: string } = {},
) {
  const { accountId, apiKey } = await service.account();
  const issued = await createIntegration(service.db, {
    accountId,
    name: settings.name ?? "support chat",
    provider: "intercom",
    jurisdictions: settings.jurisdictions,
    industry: settings.industry ?? null,
  });
  return {
    accountId,
    apiKey,
    integrationId: issued.integration.integration_id,
    credential: issued.credential,
  };
}

function ingest(service: TestService, body: unknown, secret?: string, extra = {}) {
  return service.post(
    "webhookIngest",
    body,
    secret === undefined ? extra : { "x-webhook-secret": secret, ...extra },
  );
}

/** A database whose RPC `name` fails as a dropped connection does. */
function failing(name: string): (db: Db) => Db {
  return (db) => ({
    rpc: (rpc, args) =>
      rpc === name ? Promise.reject(new DbError("connection refused", "08006")) : db.rpc(rpc, args),
    close: () => db.close(),
  });
}

async function storedScans(service: TestService) {
  return await service.query<Record<string, unknown>>(
    `select id::text, account_id::text, integration_id::text, auth_path, channel_origin,
       external_conversation_id, source, channel, grade, score::float8 as score,
       critical_violations, warnings, passed_checks, rulebook_version, payload
     from public.transcript_scans order by created_at`,
  );
}

async function count(service: TestService, table: string): Promise<number> {
  const [{ n }] = await service.query<{ n: number }>(
    `select count(*)::int as n from public.${table}`,
  );
  return n;
}

/** The corpus cases (corpus/cases/webhook.json) on whose label the engine agrees today. */
const AGREED_CASES = [
  "wh-first-reply-ut-v",
  "wh-first-reply-ut-c",
  "wh-companion-start-ny-c",
  "wh-denies-all-v",
  "wh-denies-tx-v",
  "wh-denies-tx-c",
  "wh-evades-ut-v",
  "wh-evades-ut-c",
  "wh-health-ca-v",
  "wh-health-ca-c",
  "wh-finance-ut-v",
  "wh-finance-ut-c",
  "wh-legal-ut-v",
  "wh-legal-ut-c",
  "wh-employment-ny-c",
  "wh-human-ca-v",
  "wh-human-ca-c",
  "wh-crisis-ca-v",
  "wh-crisis-ca-c",
  "wh-reminder-ny-v",
  "wh-reminder-ny-c",
  "wh-minor-break-ca-v",
  "wh-minor-break-ca-c",
];

for (const target of dbTargets()) {
  const test = serviceTest("webhookIngest", target);

  test("stores a transcript for its account and integration and answers every field of contract 2.6", async (service) => {
    const { accountId, integrationId, credential } = await integration(service);
    const response = await ingest(service, TRANSCRIPT, credential);
    assert.equal(response.status, 200);
    const raw = await response.json();
    const body = TranscriptResponse.parse(raw);
    const [scan] = await storedScans(service);
    assert.equal(body.success, true);
    assert.equal(body.scan_result_id, scan.id);
    assert.equal(body.channel_origin, "web-messenger");
    assert.equal(body.external_conversation_id, "conv-8812");
    assert.ok(body.critical_violations >= 1, "a bot claiming to be a person");
    assert.equal(
      body.grade,
      body.score >= GRADE_FLOORS.D ? "D" : "F",
      "a critical violation grades D at best",
    );
    assert.ok(body.score < 100);
    assert.ok(body.passed_checks >= 1);
    assert.ok(body.processing_ms >= 0);
    assert.deepEqual(raw.scan_meta, { rulebook_source: "database" });
    assert.deepEqual(
      {
        account_id: scan.account_id,
        integration_id: scan.integration_id,
        auth_path: scan.auth_path,
        channel_origin: scan.channel_origin,
        external_conversation_id: scan.external_conversation_id,
        grade: scan.grade,
        score: scan.score,
        critical_violations: scan.critical_violations,
        warnings: scan.warnings,
        passed_checks: scan.passed_checks,
        rulebook_version: scan.rulebook_version,
      },
      {
        account_id: accountId,
        integration_id: integrationId,
        auth_path: "credential",
        channel_origin: body.channel_origin,
        external_conversation_id: body.external_conversation_id,
        grade: body.grade,
        score: body.score,
        critical_violations: body.critical_violations,
        warnings: body.warnings,
        passed_checks: body.passed_checks,
        rulebook_version: NEWEST_SEED_VERSION,
      },
    );
    const payload = scan.payload as {
      messages: unknown[];
      findings: Array<{ severity: string; evidence: Array<{ excerpt: string; turn?: number }> }>;
      scan_meta: { rulebook_source: string };
    };
    assert.deepEqual(payload.messages, TRANSCRIPT.messages);
    assert.equal(payload.scan_meta.rulebook_source, "database");
    assert.equal(
      payload.findings.filter((f) => f.severity === "critical").length,
      body.critical_violations,
    );
    assert.ok(
      payload.findings.some((f) => f.evidence.some((e) => e.turn === 2 && e.excerpt.length > 0)),
      "findings keep their evidence, with the turn it came from",
    );

    const everything = JSON.stringify(
      await service.query("select row_to_json(t)::text as r from public.transcript_scans t"),
    );
    assert.equal(everything.includes(credential), false, "the credential is never stored");
    assert.equal(
      service.logLines.join("\n").includes(MARKER),
      false,
      "transcript text is never logged",
    );
    assert.equal(service.logLines.join("\n").includes(credential), false);

    // Without a channel, the source is the channel of origin; without an id, none is answered.
    const bare = await ingest(service, {
      source: "zapier",
      messages: [{ sender: "user", text: "hello" }],
    }, credential);
    const bareBody = TranscriptResponse.parse(await bare.json());
    assert.equal(bareBody.channel_origin, "zapier");
    assert.equal("external_conversation_id" in bareBody, false);
  });

  test("answers a missing, invalid, unknown, revoked or rotated-away credential with one identical 401", async (service) => {
    const live = await integration(service, { name: "live" });
    const gone = await integration(service, { name: "gone" });
    const rotated = await rotateIntegrationCredential(service.db, gone.integrationId);
    await cli(service, ["integration", "revoke", live.integrationId]);
    const attempts: Array<Record<string, string>> = [
      {},
      { "x-webhook-secret": "" },
      { "x-webhook-secret": "guess" },
      { "x-webhook-secret": "cas_whk_" + "Z".repeat(43) },
      { "x-webhook-secret": live.credential },
      { "x-webhook-secret": gone.credential },
      { "x-api-key": rotated.credential },
      { "x-webhook-secret": rotated.credential, "x-api-key": gone.apiKey },
    ];
    const answers = [];
    for (const headers of attempts) {
      const response = await ingest(service, TRANSCRIPT, undefined, headers);
      answers.push({
        status: response.status,
        // The request id differs by design; Date is the HTTP server's clock, not the answer.
        headers: [...response.headers].filter(([name]) => !["x-request-id", "date"].includes(name)),
        body: await response.text(),
      });
    }
    assert.equal(answers[0].status, 401);
    assert.deepEqual(JSON.parse(answers[0].body), { success: false, error: UNAUTHORIZED_MESSAGE });
    for (const answer of answers) assert.deepEqual(answer, answers[0]);
    assert.equal(await count(service, "transcript_scans"), 0);
    assert.equal((await ingest(service, TRANSCRIPT, rotated.credential)).status, 200);
  });

  test("a webhook credential is for transcripts only: as X-API-Key it gets 401 from the API-key operations", async (service) => {
    const { credential } = await integration(service);
    const audit = await service.post("complianceAudit", {
      content: "Hello",
      jurisdiction: "CA",
    }, { "x-api-key": credential });
    assert.equal(audit.status, 401);
    assert.equal((await audit.json()).error.code, "invalid_api_key");
    for (const action of ["verify", "get_logs"]) {
      const account = await service.post("agentSubscribe", { action }, { "x-api-key": credential });
      assert.equal(account.status, 401, action);
      await account.body?.cancel();
    }
    const inBody = await service.post("agentSubscribe", { action: "verify", api_key: credential });
    assert.equal(inBody.status, 401);
    await inBody.body?.cancel();
  });

  test("refuses malformed transcripts with 400 in its envelope and stores nothing", async (service) => {
    const { credential, accountId } = await integration(service);
    const bad: unknown[] = [
      { source: "x", messages: [{ role: "user", content: "hi" }] },
      { source: "x", conversationId: "c", messages: [{ sender: "user", text: "hi" }] },
      { source: " ", messages: [{ sender: "user", text: "hi" }] },
      { source: "x", messages: [] },
      { source: "x", messages: [{ sender: "agent", text: "hi" }] },
      { source: "x", messages: [{ sender: "user", text: "   " }] },
      { source: "x", messages: [{ sender: "user", text: "hi", timestamp: "20/11/2026" }] },
      { source: "x", secret: credential, messages: [{ sender: "user", text: "hi" }] },
      {
        source: "x",
        messages: Array.from({ length: 501 }, () => ({ sender: "user", text: "hi" })),
      },
      "not json",
      // Text PostgreSQL cannot store: a NUL character, a lone surrogate (found by the fuzz test).
      { source: "x", conversation_id: "c\u0000", messages: [{ sender: "user", text: "hi" }] },
      { source: "x", messages: [{ sender: "user", text: "hi \u0000 there" }] },
      { source: "x\uD800", messages: [{ sender: "user", text: "hi" }] },
      { source: "x", channel: "web\uDFFF", messages: [{ sender: "user", text: "hi" }] },
      { source: "x", messages: [{ sender: "bot", text: "a\uDC00b" }] },
    ];
    for (const body of bad) {
      const response = await ingest(service, body, credential);
      assert.equal(response.status, 400, JSON.stringify(body).slice(0, 80));
      const text = await response.text();
      const envelope = WebhookErrorEnvelope.parse(JSON.parse(text));
      assert.equal(typeof envelope.processing_ms, "number");
      for (const detail of [credential, accountId, "support chat"]) {
        assert.equal(text.includes(detail), false, `${detail} in ${text}`);
      }
    }
    // 1 MiB is the cap, enforced while the body streams in.
    const oversized = await ingest(service, {
      source: "x",
      messages: [{ sender: "user", text: "y".repeat(1024 * 1024) }],
    }, credential);
    assert.equal(oversized.status, 400);
    assert.match(WebhookErrorEnvelope.parse(await oversized.json()).error, /1048576 bytes/);
    assert.equal(await count(service, "transcript_scans"), 0);
    assert.equal(await count(service, "transcript_deliveries"), 0);
  });

  test("answers the 61st request in a minute with 429 and Retry-After, per account and integration", async (service) => {
    const first = await integration(service, { name: "first" });
    const other = await integration(service, { name: "other" });
    for (let i = 0; i < 60; i++) {
      const response = await ingest(service, {
        source: "n8n",
        conversation_id: `c-${i}`,
        messages: [{ sender: "user", text: `message ${i}` }],
      }, first.credential);
      assert.equal(response.status, 200);
      await response.body?.cancel();
    }
    const over = await ingest(service, {
      source: "n8n",
      messages: [{ sender: "user", text: "one too many" }],
    }, first.credential);
    assert.equal(over.status, 429);
    const retryAfter = Number(over.headers.get("retry-after"));
    assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60);
    WebhookErrorEnvelope.parse(await over.json());
    assert.equal(await count(service, "transcript_scans"), 60);
    assert.equal(await count(service, "transcript_deliveries"), 0);
    const elsewhere = await ingest(service, TRANSCRIPT, other.credential);
    assert.equal(elsewhere.status, 200, "another integration has its own budget");
    await elsewhere.body?.cancel();
  });

  test("20 concurrent duplicates store one scan, answer its result to all, and count once", async (service) => {
    const { credential } = await integration(service);
    const answers = await Promise.all(
      Array.from({ length: 20 }, async () => {
        const response = await ingest(service, TRANSCRIPT, credential);
        return { status: response.status, body: await response.json() };
      }),
    );
    assert.ok(answers.every((a) => a.status === 200), JSON.stringify(answers.map((a) => a.status)));
    const results = answers.map((a) => {
      const { processing_ms: _, ...result } = TranscriptResponse.parse(a.body);
      return result;
    });
    for (const result of results) assert.deepEqual(result, results[0]);
    assert.equal(await count(service, "transcript_scans"), 1);
    // The duplicates took one unit of the budget: 59 other deliveries fit, the 60th does not.
    for (let i = 0; i < 59; i++) {
      const response = await ingest(service, {
        source: "make",
        messages: [{ sender: "user", text: `distinct ${i}` }],
      }, credential);
      assert.equal(response.status, 200, `distinct ${i}`);
      await response.body?.cancel();
    }
    const over = await ingest(service, {
      source: "make",
      messages: [{ sender: "user", text: "distinct 59" }],
    }, credential);
    assert.equal(over.status, 429);
    await over.body?.cancel();
    const retried = await ingest(service, TRANSCRIPT, credential);
    assert.equal(retried.status, 200, "a stored delivery is answered even past the limit");
    const { processing_ms: _, ...again } = TranscriptResponse.parse(await retried.json());
    assert.deepEqual(again, results[0]);
    assert.equal(await count(service, "transcript_scans"), 60);
  });

  test("answers 503 without an active rulebook, never falling back", async (service) => {
    const { credential } = await integration(service);
    const response = await ingest(service, TRANSCRIPT, credential);
    assert.equal(response.status, 503);
    assert.equal(typeof WebhookErrorEnvelope.parse(await response.json()).processing_ms, "number");
    assert.equal(await count(service, "transcript_scans"), 0);
    assert.equal(await count(service, "transcript_deliveries"), 0);
  }, { seed: false });

  test("answers 503 when the rate limiter fails: closed, nothing stored", async (service) => {
    const { credential } = await integration(service);
    const response = await ingest(service, TRANSCRIPT, credential);
    assert.equal(response.status, 503);
    const text = await response.text();
    WebhookErrorEnvelope.parse(JSON.parse(text));
    assert.equal(/redis|upstash|ECONN/i.test(text), false, text);
    assert.equal(await count(service, "transcript_scans"), 0);
    assert.equal(await count(service, "transcript_deliveries"), 0);
  }, {
    limiter: {
      limit: () => Promise.reject(new Error("ECONNREFUSED redis://127.0.0.1:1")),
    } satisfies RateLimiter,
  });

  test("answers 500 when the credential cannot be looked up", async (service) => {
    const { credential } = await integration(service);
    const response = await ingest(service, TRANSCRIPT, credential);
    assert.equal(response.status, 500);
    const text = await response.text();
    WebhookErrorEnvelope.parse(JSON.parse(text));
    assert.equal(/refused|08006/.test(text), false, text);
  }, { wrapDb: failing("webhook_credential_caller") });

  test(
    "answers a storage failure with HTTP 200 success false and leaves no partial scan",
    async (service) => {
      const { credential } = await integration(service);
      const response = await ingest(service, TRANSCRIPT, credential);
      assert.equal(response.status, 200);
      const body = TranscriptFailure.parse(await response.json());
      assert.equal(body.success, false);
      assert.equal(await count(service, "transcript_scans"), 0);
      assert.equal(await count(service, "transcript_deliveries"), 0, "the claim was given back");
      assert.ok(service.logLines.some((line) => line.includes("transcript processing failed")));
    },
    { wrapDb: failing("transcript_scan_store") },
  );

  test("evaluates each corpus transcript twin under its integration's jurisdiction and industry", async (service) => {
    const { loadCorpus } = await import("../corpus/load.ts");
    const cases = (await loadCorpus()).filter((c) => AGREED_CASES.includes(c.id));
    assert.equal(cases.length, AGREED_CASES.length);
    for (const c of cases) {
      const { credential } = await integration(service, {
        jurisdictions: [c.jurisdiction],
        industry: c.industry,
      });
      const response = await ingest(service, {
        source: "corpus",
        conversation_id: c.id,
        messages: c.messages,
      }, credential);
      assert.equal(response.status, 200, c.id);
      const body = TranscriptResponse.parse(await response.json());
      const [row] = await service.query<{ statutes: string[] }>(
        `select coalesce(array_agg(distinct s), '{}') as statutes
         from public.transcript_scans t,
           jsonb_array_elements(t.payload -> 'findings') f,
           jsonb_array_elements_text(f -> 'statute_ids') s
         where t.external_conversation_id = $1`,
        [c.id],
      );
      if (c.label === "violation") {
        assert.ok(body.critical_violations + body.warnings >= 1, `${c.id}: a violation is found`);
        assert.notEqual(body.grade, "A", c.id);
        assert.ok(c.expect.some((id) => row.statutes.includes(id)), `${c.id}: ${row.statutes}`);
      } else {
        assert.deepEqual(
          [body.critical_violations, body.warnings, body.score, body.grade],
          [0, 0, 100, "A"],
          `${c.id}: a compliant twin is clean`,
        );
        assert.ok(body.passed_checks >= 1, c.id);
      }
    }
  });

  const deploymentSecret = "deployment-shared-secret-000002";
  test(
    "refuses a transcript carrying the shared secret sent with an integration credential, storing nothing",
    async (service) => {
      const { credential, accountId } = await integration(service);
      for (
        const body of [
          {
            source: "x",
            conversation_id: deploymentSecret,
            messages: [{ sender: "user", text: "hi" }],
          },
          { source: "x", messages: [{ sender: "bot", text: `secret: ${deploymentSecret}` }] },
        ]
      ) {
        const response = await ingest(service, body, credential);
        assert.equal(response.status, 400);
        const text = await response.text();
        assert.match(WebhookErrorEnvelope.parse(JSON.parse(text)).error, /x-webhook-secret header/);
        for (const detail of [deploymentSecret, credential, accountId]) {
          assert.equal(text.includes(detail), false);
        }
      }
      assert.equal(await count(service, "transcript_scans"), 0);
      assert.equal(await count(service, "transcript_deliveries"), 0);
      assert.equal(service.logLines.join("\n").includes(deploymentSecret), false);
    },
    {
      webhookShared: {
        secret: deploymentSecret,
        accountId: crypto.randomUUID(),
        integrationName: "zapier",
      },
    },
  );

  // The shared path is bound to an account id by configuration, before the account is seen.
  const sharedAccount = crypto.randomUUID();
  const sharedSecret = "deployment-shared-secret-000001";
  test(
    "the owner's migration order: shared secret, a credential for its integration, attribution",
    async (service) => {
      await service.query(
        "insert into public.accounts (id, plan, status) values ($1, 'pro', 'active')",
        [sharedAccount],
      );
      const legacy = await ingest(service, TRANSCRIPT, sharedSecret);
      assert.equal(legacy.status, 200, "the shared path works while configured");
      await legacy.body?.cancel();

      // 1. Provision a credential for the shared path's integration.
      const [zapier] = JSON.parse(
        (await cli(service, ["--json", "integration", "list", sharedAccount])).out,
      );
      assert.deepEqual([zapier.name, zapier.provider, zapier.credential], [
        "zapier",
        "shared-secret",
        null,
      ]);
      const rotated = JSON.parse(
        (await cli(service, ["--json", "integration", "rotate", zapier.integration_id])).out,
      );
      // 2.-3. The provider is given the credential and sends a redacted test transcript.
      const redacted = await ingest(service, {
        source: "zapier",
        conversation_id: "rollout-test",
        messages: [{ sender: "user", text: "[redacted test message]" }],
      }, rotated.credential);
      assert.equal(redacted.status, 200);
      await redacted.body?.cancel();
      // 4. Attribution: the newest scan is the account's and the integration's, via its credential.
      const scans = JSON.parse(
        (await cli(service, ["--json", "transcript", "list", zapier.integration_id])).out,
      );
      assert.deepEqual(
        scans.map((s: Record<string, string>) => [
          s.account_id,
          s.integration_id,
          s.auth_path,
          s.external_conversation_id ?? null,
        ]),
        [
          [sharedAccount, zapier.integration_id, "credential", "rollout-test"],
          [sharedAccount, zapier.integration_id, "shared_secret", "conv-8812"],
        ],
      );
      // 5. Retiring the path is unsetting WEBHOOK_SHARED_SECRET (config and handler tests).
    },
    {
      webhookShared: { secret: sharedSecret, accountId: sharedAccount, integrationName: "zapier" },
    },
  );
}
