/**
 * Nothing leaks. The local server runs as an operator runs it (a spawned
 * process, LOG_LEVEL=debug), and every line it writes to stdout and stderr,
 * every response header and every response body across a full run of the
 * four operations is kept: successes, refusals of every kind, rate limits,
 * a failing rate limiter (when Redis is available) and failing database
 * writes whose PostgreSQL error carries the row ("Failing row contains ...").
 * None of them may contain an API key, a webhook credential, the shared
 * secret, the Upstash token, the advisory model's key, a credential in a
 * URL, audited content or transcript text. Each of those is a distinctive
 * canary, and the test checks that they really flowed (the transcript is
 * stored, the content was evaluated), so a canary that never left the test
 * cannot make it pass.
 */
import assert from "node:assert/strict";
import postgres from "postgres";
import { createAccount, createIntegration, issueApiKey } from "../shared/admin/provisioning.ts";
import { createPostgresDb } from "../shared/db/postgres_db.ts";
import { type FakeModel, startFakeModel } from "./support/fake_model.ts";
import { startFixtureSite } from "./support/fixture_site.ts";
import { serverCommand } from "./support/server_process.ts";
import { TextLineStream } from "./support/text_lines.ts";
import {
  resolveTestRedis,
  startUpstashBridge,
  type UpstashBridge,
} from "./support/upstash_bridge.ts";
import { COMPLIANCE_PAGES, htmlPage, WIDGET_SCRIPTS } from "./support/website_pages.ts";

const tag = crypto.randomUUID().replaceAll("-", "").slice(0, 12);
/** This run's client address, as the trusted proxy reports it. */
const clientIp = `2001:db8:${tag.slice(0, 4)}:${tag.slice(4, 8)}::7`;

/** Canaries: each must never appear in a log line, a response header or a response body. */
const CANARY = {
  content: `canary-audited-content-${tag}`,
  transcript: `canary-transcript-words-${tag}`,
  sharedSecret: `canary-shared-secret-${tag}-0123456789`,
  upstashToken: `canary-upstash-token-${tag}`,
  advisoryKey: `canary-advisory-key-${tag}`,
  assetPassword: `canary-asset-password-${tag}`,
  assetSignature: `canary-asset-signature-${tag}`,
  targetPassword: `canary-target-password-${tag}`,
  /** Looks like an API key but is none: sent, refused, never echoed. */
  wrongKey: `cas_live_canaryWrongKey${tag}0123456789012345678`,
  /** Looks like a webhook credential but is none. */
  wrongCredential: `cas_whk_canaryWrongCredential${tag}01234567890123`,
};
/** Page text of the scanned site: it may be quoted as evidence in the answer, never logged. */
const SITE_TEXT = `canary-site-text-${tag}`;

/** A loopback stand-in for Upstash's REST endpoint that the test can break and mend. */
interface LimiterGate {
  url: string;
  broken: boolean;
  close(): Promise<void>;
}

/** Forwards to the bridge with its token (checking the canary token), or answers 500 when broken. */
function startLimiterGate(bridge: UpstashBridge): LimiterGate {
  const gate: LimiterGate = { url: "", broken: false, close: () => Promise.resolve() };
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    if (req.headers.get("authorization") !== `Bearer ${CANARY.upstashToken}`) {
      return Response.json({ error: "Unauthorized" }, { status: 401 });
    }
    if (gate.broken) return Response.json({ error: "ERR injected failure" }, { status: 500 });
    const url = new URL(req.url);
    const headers = new Headers(req.headers);
    headers.set("authorization", `Bearer ${bridge.token}`);
    headers.delete("host");
    const forwarded = await fetch(`${bridge.url}${url.pathname}${url.search}`, {
      method: req.method,
      headers,
      body: await req.arrayBuffer(),
    });
    return new Response(await forwarded.arrayBuffer(), {
      status: forwarded.status,
      headers: { "content-type": forwarded.headers.get("content-type") ?? "application/json" },
    });
  });
  gate.url = `http://127.0.0.1:${server.addr.port}`;
  gate.close = () => server.shutdown();
  return gate;
}

/** The spawned server with everything it writes. */
interface Server {
  baseUrl: string;
  socketUrl: string;
  /** Every stdout and stderr line, in order of arrival per stream. */
  lines: string[];
  stop(): Promise<void>;
}

async function spawnServer(env: Record<string, string>): Promise<Server> {
  const child = serverCommand({ PORT: "0", PGLITE_SOCKET_PORT: "0", ...env }).spawn();
  const lines: string[] = [];
  const listening = Promise.withResolvers<Record<string, string>>();
  const drain = async (stream: ReadableStream<Uint8Array>) => {
    const reader = stream.pipeThrough(new TextDecoderStream()).pipeThrough(new TextLineStream())
      .getReader();
    while (true) {
      const { value, done } = await reader.read();
      if (done) break;
      lines.push(value);
      if (value.startsWith("{") && value.includes('"listening"')) {
        listening.resolve(JSON.parse(value));
      }
    }
  };
  const drained = Promise.all([drain(child.stdout), drain(child.stderr)]);
  const exited = child.status.then((status) => {
    listening.reject(new Error(`server exited (${status.code}):\n${lines.join("\n")}`));
  });
  const line = await listening.promise;
  return {
    baseUrl: line.url,
    socketUrl: line.db_socket,
    lines,
    async stop() {
      child.kill("SIGTERM");
      await exited;
      await drained;
    },
  };
}

/** One call and what came back, all of it. */
interface Seen {
  what: string;
  status: number;
  headers: string;
  body: string;
}

Deno.test("nothing leaks: no key, credential, secret, content or transcript in any log line, response header or body of a full run", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "cas-noleak-" });
  await using site = await startFixtureSite({
    pages: {
      "/home.html": htmlPage(
        "Maple Dental",
        `<h1>Maple Dental</h1><p>${SITE_TEXT}: book a cleaning with our friendly team any weekday.</p>
        <a href="/privacy-policy">Privacy</a> <a href="/help/chat">Chat with support</a>
        ${WIDGET_SCRIPTS.intercom}`,
      ),
      ...COMPLIANCE_PAGES,
    },
  });
  // The model answers once with an item, then fails: both paths are logged.
  let modelCalls = 0;
  const model: FakeModel = await startFakeModel(() =>
    modelCalls++ === 0
      ? {
        content: JSON.stringify({
          items: [{
            severity: "warning",
            title: "Chat without a visible disclosure",
            plain_english: "The chat does not say that it is automated.",
            category: "AI Disclosure",
            evidence: [],
          }],
        }),
      }
      : { response: () => new Response("model exploded", { status: 500 }) }
  );
  const redis = await resolveTestRedis();
  if ("fail" in redis) throw new Error(redis.fail);
  const bridge = "url" in redis ? await startUpstashBridge(redis.url) : undefined;
  const gate = bridge === undefined ? undefined : startLimiterGate(bridge);
  const sharedAccountId = crypto.randomUUID();
  const server = await spawnServer({
    DATA_DIR: `${dataDir}/pglite`,
    LOG_LEVEL: "debug",
    // Per-IP limits count this run's own address (a random IPv6 /64), so a
    // shared Redis never holds another run's counts for it.
    TRUSTED_PROXY_HOPS: "1",
    SCAN_ALLOWED_TARGETS: `127.0.0.1:${site.port}`,
    WEBHOOK_SHARED_SECRET: CANARY.sharedSecret,
    WEBHOOK_SHARED_ACCOUNT_ID: sharedAccountId,
    WEBHOOK_SHARED_INTEGRATION: "rollout",
    ADVISORY_LLM_URL: model.url,
    ADVISORY_LLM_MODEL: "tiny-model",
    ADVISORY_LLM_API_KEY: CANARY.advisoryKey,
    ...(gate === undefined
      ? {}
      : { UPSTASH_REDIS_REST_URL: gate.url, UPSTASH_REDIS_REST_TOKEN: CANARY.upstashToken }),
  });
  // The operator's side, through the server's own database socket.
  const sql = postgres(server.socketUrl, { max: 1, onnotice: () => {} });
  const db = createPostgresDb(server.socketUrl, { max: 1 });
  const seen: Seen[] = [];
  const secrets: string[] = Object.values(CANARY);
  try {
    await sql`insert into public.accounts (id, plan, status) values (${sharedAccountId}, 'pro', 'active')`;
    const account = await createAccount(db, { plan: "pro", status: "active" });
    const key = (await issueApiKey(db, account.account_id)).api_key;
    const lapsed = await createAccount(db, { plan: "starter", status: "past_due" });
    const lapsedKey = (await issueApiKey(db, lapsed.account_id)).api_key;
    const { credential } = await createIntegration(db, {
      accountId: account.account_id,
      name: "support chat",
      provider: "intercom",
    });
    secrets.push(key, lapsedKey, credential);

    const call = async (
      what: string,
      name: string,
      body: unknown,
      headers: Record<string, string> = {},
      method = "POST",
    ): Promise<number> => {
      const response = await fetch(`${server.baseUrl}/${name}`, {
        method,
        headers: { "content-type": "application/json", "x-forwarded-for": clientIp, ...headers },
        body: method === "GET" ? undefined : typeof body === "string" ? body : JSON.stringify(body),
      });
      const text = await response.text();
      seen.push({
        what,
        status: response.status,
        headers: JSON.stringify([...response.headers]),
        body: text,
      });
      return response.status;
    };
    const content =
      `Hi! I'm Ava, the clinic's AI assistant. ${CANARY.content} As a licensed therapist, I can help. Are you a real person? Yes, I'm a real person.`;
    const assetUrl =
      `https://ad-user:${CANARY.assetPassword}@cdn.example.test/ad.mp4?sig=${CANARY.assetSignature}#t=3`;
    const transcript = (extra: string) => ({
      source: "intercom",
      channel: "web",
      conversation_id: `conv-${extra}`,
      messages: [
        { sender: "bot", text: "Hi! How can I help?" },
        { sender: "user", text: `Are you a bot? ${CANARY.transcript} ${extra}` },
        { sender: "bot", text: "No, I'm a real person on the team." },
      ],
    });
    const expect = (status: number, expected: number, what: string) =>
      assert.equal(status, expected, `${what}: ${seen.at(-1)?.body}`);

    // complianceAudit: success and every refusal.
    const withKey = { "x-api-key": key };
    expect(
      await call("audit ok", "complianceAudit", {
        content,
        jurisdiction: "CA",
        industry: "healthcare",
        asset_url: assetUrl,
      }, withKey),
      200,
      "audit ok",
    );
    expect(
      await call("audit unknown field", "complianceAudit", {
        content,
        jurisdiction: "CA",
        [CANARY.content]: content,
      }, withKey),
      400,
      "audit unknown field",
    );
    expect(
      await call("audit too long", "complianceAudit", {
        content: `${content} `.repeat(400),
        jurisdiction: "CA",
      }, withKey),
      400,
      "audit too long",
    );
    expect(
      await call("audit bad jurisdiction", "complianceAudit", {
        content,
        jurisdiction: CANARY.content,
      }, withKey),
      400,
      "audit bad jurisdiction",
    );
    expect(
      await call("audit truncated", "complianceAudit", `{"content":"${content}","jur`, withKey),
      400,
      "audit truncated",
    );
    expect(
      await call("audit wrong key", "complianceAudit", { content, jurisdiction: "CA" }, {
        "x-api-key": CANARY.wrongKey,
      }),
      401,
      "audit wrong key",
    );
    expect(
      await call("audit credential as key", "complianceAudit", { content, jurisdiction: "CA" }, {
        "x-api-key": credential,
      }),
      401,
      "audit credential as key",
    );
    expect(
      await call("audit lapsed", "complianceAudit", { content, jurisdiction: "CA" }, {
        "x-api-key": lapsedKey,
      }),
      402,
      "audit lapsed",
    );

    // agentSubscribe: each action, the body key, refusals, then verify's per-IP limit.
    expect(await call("verify", "agentSubscribe", { action: "verify" }, withKey), 200, "verify");
    expect(
      await call("verify body key", "agentSubscribe", { action: "verify", api_key: key }),
      200,
      "verify body key",
    );
    expect(await call("logs", "agentSubscribe", { action: "get_logs" }, withKey), 200, "logs");
    expect(
      await call("export", "agentSubscribe", {
        action: "export_audit",
        month: new Date().toISOString().slice(0, 7),
      }, withKey),
      200,
      "export",
    );
    expect(
      await call("logs bad field", "agentSubscribe", {
        action: "get_logs",
        api_key: key,
        [CANARY.content]: key,
      }),
      400,
      "logs bad field",
    );
    expect(
      await call("logs wrong body key", "agentSubscribe", {
        action: "get_logs",
        api_key: CANARY.wrongKey,
      }),
      401,
      "logs wrong body key",
    );
    expect(
      await call("logs lapsed", "agentSubscribe", { action: "get_logs" }, {
        "x-api-key": lapsedKey,
      }),
      402,
      "logs lapsed",
    );
    let verifyStatus = 200;
    for (let i = 0; i < 40 && verifyStatus !== 429; i += 1) {
      verifyStatus = await call("verify until limited", "agentSubscribe", {
        action: "verify",
        api_key: key,
      });
    }
    expect(verifyStatus, 429, "verify limited");

    // runWebsiteAudit: a scan with an advisory, then refusals, then the per-IP limit.
    expect(
      await call("scan ok", "runWebsiteAudit", { target_url: site.url("/home.html") }),
      200,
      "scan ok",
    );
    assert.ok(seen.at(-1)!.body.includes('"advisory":[{'), "the model's advisory was used");
    expect(
      await call("scan advisory fails", "runWebsiteAudit", { target_url: site.url("/home.html") }),
      200,
      "scan advisory fails",
    );
    expect(
      await call("scan credentials", "runWebsiteAudit", {
        target_url: `http://user:${CANARY.targetPassword}@127.0.0.1:${site.port}/home.html`,
      }),
      400,
      "scan credentials",
    );
    expect(
      await call("scan private", "runWebsiteAudit", {
        target_url: `http://10.0.0.1/?token=${CANARY.targetPassword}`,
      }),
      403,
      "scan private",
    );
    expect(
      await call("scan pdf", "runWebsiteAudit", { target_url: site.url("/doc.pdf") }),
      415,
      "scan pdf",
    );
    expect(
      await call("scan not found", "runWebsiteAudit", { target_url: site.url("/not-found") }),
      502,
      "scan not found",
    );
    let scanStatus = 0;
    for (let i = 0; i < 12 && scanStatus !== 429; i += 1) {
      scanStatus = await call("scan until limited", "runWebsiteAudit", {
        target_url: `http://10.0.0.${i + 2}/`,
      });
    }
    expect(scanStatus, 429, "scan limited");

    // webhookIngest: both credentials, a duplicate, refusals.
    const withCredential = { "x-webhook-secret": credential };
    expect(
      await call("ingest ok", "webhookIngest", transcript("a"), withCredential),
      200,
      "ingest ok",
    );
    expect(
      await call("ingest duplicate", "webhookIngest", transcript("a"), withCredential),
      200,
      "ingest duplicate",
    );
    expect(
      await call("ingest shared", "webhookIngest", transcript("b"), {
        "x-webhook-secret": CANARY.sharedSecret,
      }),
      200,
      "ingest shared",
    );
    expect(
      await call("ingest wrong credential", "webhookIngest", transcript("c"), {
        "x-webhook-secret": CANARY.wrongCredential,
      }),
      401,
      "ingest wrong credential",
    );
    expect(
      await call("ingest with api key", "webhookIngest", transcript("d"), {
        ...withCredential,
        "x-api-key": key,
      }),
      401,
      "ingest with api key",
    );
    expect(
      await call("ingest secret in body", "webhookIngest", {
        ...transcript("e"),
        channel: CANARY.sharedSecret,
      }, withCredential),
      400,
      "ingest secret in body",
    );
    expect(
      await call("ingest credential field", "webhookIngest", {
        ...transcript("f"),
        token: credential,
      }, withCredential),
      400,
      "ingest credential field",
    );
    expect(
      await call("ingest alias", "webhookIngest", {
        source: "intercom",
        messages: [{ role: "user", content: CANARY.transcript }],
      }, withCredential),
      400,
      "ingest alias",
    );

    // Wrong method, wrong path, a key in the query string or the path.
    for (const name of ["complianceAudit", "agentSubscribe", "runWebsiteAudit", "webhookIngest"]) {
      expect(await call(`${name} GET`, name, null, withKey, "GET"), 405, `${name} GET`);
    }
    expect(
      await call("key in path", `v1/${key}`, { content, jurisdiction: "CA" }, withKey),
      404,
      "key in path",
    );
    expect(
      await call("key in query", `complianceAudit?api_key=${key}`, {
        content,
        jurisdiction: "CA",
      }),
      401,
      "key in query",
    );

    // A failing database read: get_logs answers 500; verify still answers, its record lost.
    await sql.unsafe("alter table public.activity rename to activity_gone");
    expect(
      await call("logs db down", "agentSubscribe", { action: "get_logs" }, withKey),
      500,
      "logs db down",
    );
    await sql.unsafe("alter table public.activity_gone rename to activity");

    // Failing database writes: PostgreSQL's error names the row it refused,
    // transcript and asset URL included. It is the handler's to keep quiet.
    for (const table of ["audits", "transcript_scans", "website_scans"]) {
      await sql.unsafe(
        `alter table public.${table} add constraint leak_probe check (false) not valid`,
      );
    }
    expect(
      await call("audit store fails", "complianceAudit", {
        content,
        jurisdiction: "TX",
        asset_url: assetUrl,
      }, withKey),
      503,
      "audit store fails",
    );
    expect(
      await call("ingest store fails", "webhookIngest", transcript("g"), withCredential),
      200,
      "ingest store fails",
    );
    assert.match(seen.at(-1)!.body, /"success":false/);
    for (const table of ["audits", "transcript_scans", "website_scans"]) {
      await sql.unsafe(`alter table public.${table} drop constraint leak_probe`);
    }

    // A failing rate limiter (Upstash answers 500): every operation fails closed.
    if (gate !== undefined) {
      gate.broken = true;
      expect(
        await call(
          "audit limiter down",
          "complianceAudit",
          { content, jurisdiction: "NY" },
          withKey,
        ),
        503,
        "audit limiter down",
      );
      expect(
        await call("ingest limiter down", "webhookIngest", transcript("h"), withCredential),
        503,
        "ingest limiter down",
      );
      expect(
        await call("scan limiter down", "runWebsiteAudit", { target_url: site.url("/home.html") }),
        500,
        "scan limiter down",
      );
      gate.broken = false;
    }

    // The canaries flowed: the transcript text is stored, the content was audited.
    const [stored] = await sql<{ n: number }[]>`
      select count(*)::int as n from public.transcript_scans where payload::text like ${`%${CANARY.transcript}%`}`;
    assert.equal(stored.n, 2, "the transcripts with the canary were stored");
  } finally {
    await db.close();
    await sql.end({ timeout: 5 });
    await server.stop();
    await gate?.close();
    await bridge?.close();
    await model.close();
    await Deno.remove(dataDir, { recursive: true }).catch(() => {});
  }

  // Every request was logged, failures with their kind: the capture saw the server's logs.
  const logged = server.lines.filter((line) => line.startsWith("{")).map((line) =>
    JSON.parse(line)
  );
  assert.equal(
    logged.filter((line) => line.msg === "request" || line.msg === "no route").length,
    seen.length,
  );
  assert.ok(logged.some((line) => line.msg === "request failed" && line.status === 503));
  assert.ok(logged.some((line) => line.msg === "request failed" && line.status === 500));
  assert.ok(logged.some((line) => line.msg === "transcript processing failed"));
  assert.ok(logged.some((line) => line.msg === "advisory left empty"));

  for (const secret of secrets) {
    for (const line of server.lines) {
      assert.equal(line.includes(secret), false, `log line carries ${secret}: ${line}`);
    }
    for (const answer of seen) {
      assert.equal(answer.headers.includes(secret), false, `${answer.what} header: ${secret}`);
      assert.equal(answer.body.includes(secret), false, `${answer.what} body: ${secret}`);
    }
  }
  // The page's text may be quoted as evidence in the scan's answer, never logged.
  for (const line of server.lines) assert.equal(line.includes(SITE_TEXT), false, line);
  // After the first start's banner (the demo key, shown once to the operator), no line
  // carries anything shaped like a key or a credential.
  const listening = server.lines.findIndex((line) => line.includes('"listening"'));
  for (const line of server.lines.slice(listening)) {
    assert.doesNotMatch(line, /cas_live_[A-Za-z0-9_-]{20,}|cas_whk_[A-Za-z0-9_-]{20,}/, line);
  }
});
