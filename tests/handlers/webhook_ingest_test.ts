/**
 * webhookIngest in process: the handler over a fake Db and limiter, through
 * its order of checks (credential 401, body 400, delivery already stored,
 * limit 429/503, rulebook 503, evaluation and storage), what each branch
 * calls, stores and never leaks.
 */
import assert from "node:assert/strict";
import {
  MAX_TRANSCRIPT_MESSAGES,
  TranscriptFailure,
  TranscriptResponse,
  WebhookErrorEnvelope,
} from "../../shared/contract/webhook_ingest.ts";
import {
  PROCESSING_FAILED_MESSAGE,
  UNAUTHORIZED_MESSAGE,
  webhookIngest,
} from "../../shared/handlers/webhook_ingest.ts";
import {
  fakeAccount,
  type FakeDeps,
  fakeDeps,
  fakeIntegration,
  jsonRequest,
} from "../support/fake_deps.ts";

/** A marker in the transcript text: it must never reach a response or a log line. */
const MARKER = "zq7x-transcript-marker";

const TRANSCRIPT = {
  source: "intercom",
  channel: "web-chat",
  conversation_id: "conv-1001",
  messages: [
    {
      sender: "user",
      text: `Hello, are you a real person? ${MARKER}`,
      timestamp: "2026-11-20T10:00:00Z",
    },
    {
      sender: "bot",
      text: "Yes, I'm a real person on the support team.",
      timestamp: "2026-11-20T10:00:05Z",
    },
  ],
};

async function call(
  deps: FakeDeps,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Headers; text: string; json: () => unknown }> {
  const response = await webhookIngest(deps)(jsonRequest("webhookIngest", body, headers));
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, json: () => JSON.parse(text) };
}

function withoutRequestId(headers: Headers): Array<[string, string]> {
  return [...headers].filter(([name]) => name !== "x-request-id");
}

Deno.test("webhookIngest() answers one byte-identical 401 to a missing, invalid, unknown, revoked or misplaced credential", async () => {
  const deps = fakeDeps();
  const valid = await fakeIntegration(deps.db);
  const revoked = await fakeIntegration(deps.db);
  deps.db.integrations.get(revoked.integrationId)!.credentialDigest = null;
  const inactive = await fakeIntegration(deps.db, { account: { status: "canceled" } });
  const { apiKey } = await fakeAccount(deps.db);
  const attempts: Array<Record<string, string>> = [
    {},
    { "x-webhook-secret": "" },
    { "x-webhook-secret": "not-a-credential" },
    { "x-webhook-secret": "cas_whk_" + "A".repeat(43) },
    { "x-webhook-secret": revoked.credential },
    { "x-webhook-secret": inactive.credential },
    { "x-api-key": apiKey },
    { "x-api-key": valid.credential },
    { "x-webhook-secret": valid.credential, "x-api-key": apiKey },
    { "x-webhook-secret": valid.credential.toUpperCase() },
  ];
  const answers = [];
  for (const headers of attempts) {
    const calls = deps.db.calls.length;
    const result = await call(deps, TRANSCRIPT, headers);
    answers.push({
      status: result.status,
      headers: withoutRequestId(result.headers),
      body: result.text,
    });
    // The same work whatever was sent: one lookup by a SHA-256 digest, nothing else.
    const made = deps.db.calls.slice(calls);
    assert.deepEqual(made.map((c) => c.name), ["webhook_credential_caller"]);
    assert.match(String(made[0].args.p_credential_digest), /^[0-9a-f]{64}$/);
  }
  assert.equal(answers[0].status, 401);
  assert.deepEqual(JSON.parse(answers[0].body), { success: false, error: UNAUTHORIZED_MESSAGE });
  for (const answer of answers) assert.deepEqual(answer, answers[0]);
  assert.deepEqual(deps.limiter.calls, []);
  assert.deepEqual(deps.db.scans, []);
  const everything = answers.map((a) => a.body).join() + deps.logText.join();
  for (const secret of [valid.credential, revoked.credential, apiKey, valid.accountId]) {
    assert.equal(everything.includes(secret), false);
  }
});

Deno.test("webhookIngest() answers the same byte-identical 401 while the shared-secret path is open", async () => {
  const secret = "shared-secret-0123456789abcdef";
  const open = fakeDeps();
  const { accountId } = await fakeAccount(open.db);
  open.webhookShared = { secret, accountId, integrationName: "legacy-zapier" };
  const closed = fakeDeps();
  const lastChanged = secret.slice(0, -1) + (secret.endsWith("f") ? "e" : "f");
  const attempts: Array<[FakeDeps, Record<string, string>]> = [
    [open, {}],
    [open, { "x-webhook-secret": "" }],
    [open, { "x-webhook-secret": lastChanged }],
    [open, { "x-webhook-secret": "t" + secret.slice(1) }],
    [open, { "x-webhook-secret": secret.toUpperCase() }],
    [open, { "x-webhook-secret": secret.slice(0, -1) }],
    [open, { "x-webhook-secret": `${secret}x` }],
    [open, { "x-webhook-secret": "cas_whk_" + "A".repeat(43) }],
    [open, { "x-api-key": secret }],
    // The same answer as with the path closed: nothing tells that it is open.
    [closed, { "x-webhook-secret": "cas_whk_" + "A".repeat(43) }],
    [closed, { "x-webhook-secret": secret }],
  ];
  const answers = [];
  for (const [deps, headers] of attempts) {
    const calls = deps.db.calls.length;
    const result = await call(deps, TRANSCRIPT, headers);
    // The same work whatever was sent: one lookup by a SHA-256 digest, nothing else.
    const made = deps.db.calls.slice(calls);
    answers.push({
      status: result.status,
      headers: withoutRequestId(result.headers),
      body: result.text,
      calls: made.map((c) => [c.name, Object.keys(c.args).sort()]),
    });
    assert.match(String(made[0].args.p_credential_digest), /^[0-9a-f]{64}$/);
  }
  assert.equal(answers[0].status, 401);
  assert.deepEqual(JSON.parse(answers[0].body), { success: false, error: UNAUTHORIZED_MESSAGE });
  assert.deepEqual(answers[0].calls, [["webhook_credential_caller", ["p_credential_digest"]]]);
  for (const [i, answer] of answers.entries()) {
    assert.deepEqual(answer, answers[0], JSON.stringify(attempts[i][1]));
  }
  for (const deps of [open, closed]) {
    assert.deepEqual(deps.limiter.calls, []);
    assert.deepEqual(deps.db.scans, []);
    assert.equal(JSON.stringify(deps.db.calls).includes(secret), false);
    assert.equal((answers.map((a) => a.body).join() + deps.logText.join()).includes(secret), false);
  }
});

Deno.test("webhookIngest() accepts the shared secret only while it is configured, and attributes it to its integration", async () => {
  const secret = "shared-secret-0123456789abcdef";
  const closed = fakeDeps();
  const account = await fakeAccount(closed.db);
  const refused = await call(closed, TRANSCRIPT, { "x-webhook-secret": secret });
  assert.equal(refused.status, 401);

  const open = fakeDeps();
  open.db.accounts.set(account.accountId, closed.db.accounts.get(account.accountId)!);
  open.webhookShared = { secret, accountId: account.accountId, integrationName: "legacy-zapier" };
  const accepted = await call(open, TRANSCRIPT, { "x-webhook-secret": secret });
  assert.equal(accepted.status, 200, accepted.text);
  assert.equal(open.db.scans.length, 1);
  const stored = open.db.scans[0].args;
  assert.equal(stored.p_account_id, account.accountId);
  assert.equal(stored.p_auth_path, "shared_secret");
  const integration = open.db.integrations.get(String(stored.p_integration_id))!;
  assert.equal(integration.name, "legacy-zapier");

  for (const wrong of [secret.slice(0, -1), `${secret}x`, secret.toUpperCase()]) {
    assert.equal((await call(open, TRANSCRIPT, { "x-webhook-secret": wrong })).status, 401);
  }
  assert.equal(
    JSON.stringify(open.db.calls).includes(secret),
    false,
    "only digests reach the database",
  );
  assert.equal(open.logText.join().includes(secret), false);
});

Deno.test("webhookIngest() refuses a body carrying the shared secret, whichever credential authenticated it", async () => {
  const secret = "shared-secret-0123456789abcdef";
  const deps = fakeDeps();
  const { credential, accountId } = await fakeIntegration(deps.db);
  deps.webhookShared = { secret, accountId, integrationName: "legacy-zapier" };
  const message = { sender: "user", text: "hi" };
  const bodies: Array<[string, unknown]> = [
    ["conversation_id", { source: "x", conversation_id: `conv-${secret}`, messages: [message] }],
    ["a message's text", {
      source: "x",
      messages: [message, { sender: "bot", text: `the webhook secret is ${secret}` }],
    }],
    ["source", { source: secret, messages: [message] }],
    ["channel", { source: "x", channel: ` ${secret} `, messages: [message] }],
  ];
  for (const [where, body] of bodies) {
    for (const presented of [credential, secret]) {
      const result = await call(deps, body, { "x-webhook-secret": presented });
      assert.equal(result.status, 400, `${where}: ${result.text}`);
      const envelope = WebhookErrorEnvelope.parse(result.json());
      assert.match(envelope.error, /x-webhook-secret header/, where);
      assert.equal(result.text.includes(secret), false, where);
    }
  }
  assert.deepEqual(deps.db.scans, []);
  assert.equal(deps.db.deliveries.size, 0);
  assert.deepEqual(deps.limiter.calls, []);
  assert.equal(JSON.stringify(deps.db.calls).includes(secret), false);
  assert.equal(deps.logText.join().includes(secret), false);
});

Deno.test("webhookIngest() answers 500 when the shared secret's account does not exist, naming nothing", async () => {
  const deps = fakeDeps();
  const missing = crypto.randomUUID();
  deps.webhookShared = {
    secret: "shared-secret-0123456789abcdef",
    accountId: missing,
    integrationName: "x",
  };
  const result = await call(deps, TRANSCRIPT, {
    "x-webhook-secret": "shared-secret-0123456789abcdef",
  });
  assert.equal(result.status, 500);
  const body = WebhookErrorEnvelope.parse(result.json());
  assert.equal(typeof body.processing_ms, "number");
  assert.equal(result.text.includes(missing), false);
  assert.equal(deps.logs.filter((line) => line.level === "error").length, 1);
});

Deno.test("webhookIngest() refuses every malformed transcript with 400 in its envelope, and does no work", async () => {
  const deps = fakeDeps({ limits: { webhookBodyBytes: 64 * 1024 } });
  const { credential, accountId } = await fakeIntegration(deps.db);
  const message = { sender: "user", text: "hi" };
  const bad: Array<[string, unknown]> = [
    ["alias role", { source: "x", messages: [{ role: "user", text: "hi" }] }],
    ["alias content", { source: "x", messages: [{ sender: "user", content: "hi" }] }],
    ["alias message", { source: "x", messages: [{ sender: "user", message: "hi" }] }],
    ["alias from", { source: "x", messages: [{ from: "user", text: "hi" }] }],
    ["alias conversationId", { source: "x", conversationId: "c1", messages: [message] }],
    ["alias transcript", { source: "x", transcript: [message] }],
    ["unknown field", { source: "x", messages: [message], extra: 1 }],
    ["unknown message field", { source: "x", messages: [{ ...message, id: 3 }] }],
    ["missing source", { messages: [message] }],
    ["empty source", { source: "", messages: [message] }],
    ["whitespace source", { source: "   ", messages: [message] }],
    ["missing messages", { source: "x" }],
    ["no message", { source: "x", messages: [] }],
    ["too many messages", {
      source: "x",
      messages: Array.from({ length: MAX_TRANSCRIPT_MESSAGES + 1 }, () => message),
    }],
    ["sender alias", { source: "x", messages: [{ sender: "assistant", text: "hi" }] }],
    ["sender missing", { source: "x", messages: [{ text: "hi" }] }],
    ["empty text", { source: "x", messages: [{ sender: "bot", text: "" }] }],
    ["whitespace text", { source: "x", messages: [{ sender: "bot", text: " \n\t " }] }],
    ["text not a string", { source: "x", messages: [{ sender: "bot", text: 42 }] }],
    ["timestamp without offset", {
      source: "x",
      messages: [{ ...message, timestamp: "2026-11-20T10:00:00" }],
    }],
    ["timestamp not a date", { source: "x", messages: [{ ...message, timestamp: "yesterday" }] }],
    ["channel not a string", { source: "x", channel: 7, messages: [message] }],
    ["secret field", { source: "x", secret: "abc", messages: [message] }],
    ["api_key field", { source: "x", api_key: "abc", messages: [message] }],
    ["webhook_secret field", { source: "x", webhook_secret: "abc", messages: [message] }],
    ["token in a message", { source: "x", messages: [{ ...message, token: "abc" }] }],
    ["credential in the text", {
      source: "x",
      messages: [{ sender: "user", text: `key ${credential}` }],
    }],
    ["other credential in source", { source: "cas_live_" + "B".repeat(43), messages: [message] }],
    ["account_id of another account", {
      source: "x",
      account_id: crypto.randomUUID(),
      messages: [message],
    }],
    ["not an object", [message]],
    ["null", null],
    ["over the body cap", {
      source: "x",
      messages: [{ sender: "user", text: "y".repeat(70_000) }],
    }],
    ["not JSON", "{source:"],
  ];
  for (const [name, body] of bad) {
    const result = await call(
      deps,
      typeof body === "string" ? body : JSON.stringify(body),
      { "x-webhook-secret": credential },
    );
    assert.equal(result.status, 400, `${name}: ${result.text}`);
    const envelope = WebhookErrorEnvelope.parse(result.json());
    assert.equal(envelope.success, false);
    assert.equal(typeof envelope.processing_ms, "number", name);
    assert.equal(result.text.includes(credential), false, name);
    assert.equal(result.text.includes(accountId), false, name);
  }
  assert.deepEqual([...new Set(deps.db.names())], ["webhook_credential_caller"]);
  assert.deepEqual(deps.limiter.calls, [], "a refused body costs no rate-limit unit");

  const aliased = await call(deps, { source: "x", messages: [{ role: "user", text: "hi" }] }, {
    "x-webhook-secret": credential,
  });
  assert.match(WebhookErrorEnvelope.parse(aliased.json()).error, /role/);
  const secretLike = await call(deps, { source: "x", api_key: "abc", messages: [message] }, {
    "x-webhook-secret": credential,
  });
  assert.match(WebhookErrorEnvelope.parse(secretLike.json()).error, /x-webhook-secret header/);
});

Deno.test("webhookIngest() refuses a deeply nested body with 400 in its envelope, storing and logging no error", async () => {
  const deps = fakeDeps();
  const { credential } = await fakeIntegration(deps.db);
  // About 400 KB of nested arrays: under the body cap, far past any recursion's stack.
  const depth = 200_000;
  const nested = "[".repeat(depth) + "]".repeat(depth);
  const message = `{"sender":"user","text":"hi"}`;
  const bodies: Array<[string, string]> = [
    ["the whole body", nested],
    ["an unknown field", `{"source":"x","messages":[${message}],"extra":${nested}}`],
    ["a secret-like field", `{"source":"x","messages":[${message}],"token":${nested}}`],
    ["the messages", `{"source":"x","messages":${nested}}`],
    ["a message", `{"source":"x","messages":[${nested}]}`],
    ["a message's text", `{"source":"x","messages":[{"sender":"user","text":${nested}}]}`],
  ];
  for (const [where, body] of bodies) {
    const result = await call(deps, body, { "x-webhook-secret": credential });
    assert.equal(result.status, 400, `nested in ${where}: ${result.text}`);
    const envelope = WebhookErrorEnvelope.parse(result.json());
    assert.equal(typeof envelope.processing_ms, "number", where);
  }
  assert.deepEqual(deps.db.scans, []);
  assert.deepEqual(deps.limiter.calls, []);
  assert.deepEqual(deps.logs.filter((line) => line.level === "error"), []);
});

Deno.test("webhookIngest() normalises what it accepts: trimmed text and source, sender case, empty channel", async () => {
  const deps = fakeDeps();
  const { credential, accountId } = await fakeIntegration(deps.db);
  const result = await call(deps, {
    source: "  zendesk  ",
    channel: "   ",
    account_id: accountId,
    conversation_id: " 77 ",
    messages: [
      { sender: " User ", text: "  Where is my order?  " },
      { sender: "BOT", text: "\tI'm an AI assistant, not a person. It ships today.\n" },
    ],
  }, { "x-webhook-secret": credential });
  assert.equal(result.status, 200, result.text);
  const body = TranscriptResponse.parse(result.json());
  assert.equal(body.channel_origin, "zendesk");
  assert.equal(body.external_conversation_id, "77");
  const stored = deps.db.scans[0].args;
  assert.equal(stored.p_source, "zendesk");
  assert.equal(stored.p_channel, null);
  assert.deepEqual((stored.p_payload as { messages: unknown }).messages, [
    { sender: "user", text: "Where is my order?" },
    { sender: "bot", text: "I'm an AI assistant, not a person. It ships today." },
  ]);
});

Deno.test("webhookIngest() answers exactly contract 2.6 and stores the scan with its evidence, never the credential", async () => {
  const deps = fakeDeps();
  const { credential, accountId, integrationId } = await fakeIntegration(deps.db);
  const result = await call(deps, TRANSCRIPT, { "x-webhook-secret": credential });
  assert.equal(result.status, 200, result.text);
  const body = TranscriptResponse.parse(result.json());
  assert.deepEqual(Object.keys(result.json() as object).sort(), [
    "channel_origin",
    "critical_violations",
    "external_conversation_id",
    "grade",
    "passed_checks",
    "processing_ms",
    "scan_meta",
    "scan_result_id",
    "score",
    "success",
    "warnings",
  ]);
  assert.equal(body.channel_origin, "web-chat");
  assert.equal(body.external_conversation_id, "conv-1001");
  assert.ok(body.critical_violations >= 1, "a bot denying it is AI is a critical violation");
  assert.notEqual(body.grade, "A");
  assert.ok(body.passed_checks >= 1);

  const [scan] = deps.db.scans;
  assert.equal(body.scan_result_id, scan.id);
  assert.equal(scan.args.p_account_id, accountId);
  assert.equal(scan.args.p_integration_id, integrationId);
  assert.equal(scan.args.p_auth_path, "credential");
  assert.deepEqual(scan.args.p_jurisdictions, ["ALL"]);
  assert.equal(scan.args.p_industry, null);
  assert.equal(scan.args.p_rulebook_version, deps.db.activeVersion);
  const payload = scan.args.p_payload as {
    findings: Array<{ rule_key: string; evidence: Array<{ turn?: number; speaker?: string }> }>;
    scan_meta: { rulebook_source: string };
  };
  assert.equal(payload.scan_meta.rulebook_source, "database");
  assert.equal(payload.findings.length, body.critical_violations + body.warnings);
  assert.ok(
    payload.findings.some((f) => f.evidence.some((e) => e.speaker === "bot" && e.turn === 1)),
  );
  assert.equal(JSON.stringify(deps.db.calls).includes(credential), false);
  assert.equal(deps.logText.join("\n").includes(MARKER), false, "transcript text is never logged");
  assert.deepEqual(deps.limiter.calls, [{
    key: `webhook:${accountId}:${integrationId}`,
    max: 60,
    windowSeconds: 60,
  }]);

  const plain = await call(deps, { source: "n8n", messages: [{ sender: "user", text: "hi" }] }, {
    "x-webhook-secret": credential,
  });
  const bare = TranscriptResponse.parse(plain.json());
  assert.equal(bare.channel_origin, "n8n");
  assert.equal("external_conversation_id" in bare, false);
});

Deno.test("webhookIngest() answers a retried delivery with its first result, counting and storing it once", async () => {
  const deps = fakeDeps();
  const { credential } = await fakeIntegration(deps.db);
  const first = TranscriptResponse.parse(
    (await call(deps, TRANSCRIPT, { "x-webhook-secret": credential })).json(),
  );
  const again = TranscriptResponse.parse(
    (await call(deps, TRANSCRIPT, { "x-webhook-secret": credential })).json(),
  );
  const { processing_ms: _a, ...firstResult } = first;
  const { processing_ms: _b, ...againResult } = again;
  assert.deepEqual(againResult, firstResult);
  assert.equal(deps.db.scans.length, 1);
  assert.equal(deps.limiter.calls.length, 1);

  const grown = {
    ...TRANSCRIPT,
    messages: [...TRANSCRIPT.messages, { sender: "user", text: "ok" }],
  };
  const next = TranscriptResponse.parse(
    (await call(deps, grown, { "x-webhook-secret": credential })).json(),
  );
  assert.notEqual(
    next.scan_result_id,
    first.scan_result_id,
    "a conversation that grew is new content",
  );
  assert.equal(deps.db.scans.length, 2);
});

Deno.test("webhookIngest() answers 503 with Retry-After while another request holds the same delivery", async () => {
  const deps = fakeDeps({ limits: { webhookDuplicateWaitMs: 50 } });
  const { credential } = await fakeIntegration(deps.db);
  deps.db.answers.set("transcript_delivery_begin", { state: "pending", retry_after_seconds: 7 });
  const result = await call(deps, TRANSCRIPT, { "x-webhook-secret": credential });
  assert.equal(result.status, 503);
  assert.equal(result.headers.get("retry-after"), "7");
  WebhookErrorEnvelope.parse(result.json());
  assert.deepEqual(deps.limiter.calls, []);
  assert.equal(deps.db.scans.length, 0);
});

Deno.test("webhookIngest() answers 429 with Retry-After past 60 a minute, and gives the delivery back", async () => {
  const deps = fakeDeps();
  const { credential } = await fakeIntegration(deps.db);
  deps.limiter.remaining = 0;
  const result = await call(deps, TRANSCRIPT, { "x-webhook-secret": credential });
  assert.equal(result.status, 429);
  const retryAfter = Number(result.headers.get("retry-after"));
  assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60);
  WebhookErrorEnvelope.parse(result.json());
  assert.equal(deps.db.scans.length, 0);
  assert.equal(deps.db.deliveries.size, 0, "the claim is released, so a retry is processed");
  deps.limiter.remaining = 1;
  assert.equal((await call(deps, TRANSCRIPT, { "x-webhook-secret": credential })).status, 200);
});

Deno.test("webhookIngest() answers 503 when the limiter fails or the rulebook is unavailable, storing nothing", async () => {
  for (const failure of ["limiter", "no active rulebook", "rulebook unreadable"]) {
    const deps = fakeDeps();
    const { credential } = await fakeIntegration(deps.db);
    if (failure === "limiter") deps.limiter.failing = true;
    else if (failure === "no active rulebook") deps.db.activeVersion = null;
    else deps.db.failing.add("rulebook_get");
    const result = await call(deps, TRANSCRIPT, { "x-webhook-secret": credential });
    assert.equal(result.status, 503, failure);
    const body = WebhookErrorEnvelope.parse(result.json());
    assert.equal(typeof body.processing_ms, "number");
    assert.equal(/redis|rulebook v|stack|\.ts/i.test(result.text), false, result.text);
    assert.equal(deps.db.scans.length, 0);
    assert.equal(deps.db.deliveries.size, 0);
    assert.equal(deps.logs.filter((line) => line.level === "error").length, 1, failure);
  }
});

Deno.test("webhookIngest() answers a processing failure with HTTP 200 success false, leaving nothing behind", async () => {
  for (const failing of ["transcript_delivery_begin", "transcript_scan_store"]) {
    const deps = fakeDeps();
    const { credential } = await fakeIntegration(deps.db);
    deps.db.failing.add(failing);
    const result = await call(deps, TRANSCRIPT, { "x-webhook-secret": credential });
    assert.equal(result.status, 200, failing);
    const body = TranscriptFailure.parse(result.json());
    assert.equal(body.error, PROCESSING_FAILED_MESSAGE);
    assert.equal(deps.db.scans.length, 0);
    assert.equal(deps.db.deliveries.size, 0, `${failing}: the claim is given back`);
    const errors = deps.logs.filter((line) => line.msg === "transcript processing failed");
    assert.equal(errors.length, 1);
    assert.equal(errors[0].error, "DbError 08006");
  }
});

Deno.test("webhookIngest() answers 500 when the credential cannot be looked up", async () => {
  const deps = fakeDeps();
  const { credential } = await fakeIntegration(deps.db);
  deps.db.failing.add("webhook_credential_caller");
  const result = await call(deps, TRANSCRIPT, { "x-webhook-secret": credential });
  assert.equal(result.status, 500);
  const body = WebhookErrorEnvelope.parse(result.json());
  assert.equal(typeof body.processing_ms, "number");
});

Deno.test("webhookIngest() evaluates under every jurisdiction of its integration and its industry", async () => {
  const deps = fakeDeps();
  const messages = [
    { sender: "user", text: "hi, I've been so anxious I can't sleep" },
    { sender: "bot", text: "I'm sorry. Try writing your worries down before bed." },
  ];
  const grades: Record<string, unknown> = {};
  for (
    const [name, jurisdictions] of [["tx", ["TX"]], ["ut", ["UT"]], ["tx+ut", [
      "TX",
      "UT",
    ]]] as const
  ) {
    const { credential } = await fakeIntegration(deps.db, {
      jurisdictions: [...jurisdictions],
      industry: "healthcare",
    });
    const body = TranscriptResponse.parse(
      (await call(deps, { source: name, messages }, { "x-webhook-secret": credential })).json(),
    );
    grades[name] = body.critical_violations;
  }
  // Utah's mental-health chatbot law asks for an AI notice before first use; Texas has no such rule.
  assert.equal(grades.tx, 0);
  assert.ok(Number(grades.ut) >= 1);
  assert.equal(grades["tx+ut"], grades.ut);
});
