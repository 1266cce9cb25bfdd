/**
 * Request bodies over real HTTP, on PGlite and (with TEST_DATABASE_URL)
 * PostgreSQL: every cap admits the largest valid request even fully
 * \u-escaped, a compressed body is 415, a URI with a space or line break is
 * 400, a body that stops arriving is refused at its deadline, and a 400 for
 * a call with a valid key is in the activity log like every other outcome.
 */
import assert from "node:assert/strict";
import { createIntegration } from "../shared/admin/provisioning.ts";
import { AuditErrorEnvelope, AuditResponse, MAX_CONTENT_CHARS } from "../shared/contract/audit.ts";
import { dbTargets } from "./support/db.ts";
import { serviceTest, type TestService } from "./support/service.ts";

/** JSON with every character of every string, keys included, as a \u escape. */
function escapedJson(value: Record<string, string>): string {
  const escape = (text: string) =>
    '"' + Array.from(
      { length: text.length },
      (_, i) => `\\u${text.charCodeAt(i).toString(16).padStart(4, "0")}`,
    ).join("") + '"';
  return "{" + Object.entries(value).map(([key, text]) => `${escape(key)}:${escape(text)}`)
    .join(",") +
    "}";
}

function post(service: TestService, name: string, body: string, headers = {}) {
  return fetch(`${service.baseUrl}/${name}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body,
  });
}

async function auditRows(service: TestService): Promise<number> {
  const [row] = await service.query<{ n: number }>("select count(*)::int as n from public.audits");
  return row.n;
}

for (const target of dbTargets()) {
  const test = serviceTest("request bodies", target);

  test("complianceAudit accepts 30,000 emoji sent as \\u escapes with every other field at its longest", async (service) => {
    const { apiKey } = await service.account();
    const content = "😀".repeat(MAX_CONTENT_CHARS); // 60,000 UTF-16 units
    const assetUrl = "https://cdn.example/" + "a".repeat(2048 - "https://cdn.example/".length);
    const body = escapedJson({
      content,
      jurisdiction: "ALL",
      industry: "healthcare",
      asset_url: assetUrl,
    });
    assert.ok(body.length > 370_000, `${body.length} bytes`);
    const response = await post(service, "complianceAudit", body, { "x-api-key": apiKey });
    assert.equal(response.status, 200, await response.clone().text());
    AuditResponse.parse(await response.json());
    assert.equal(await auditRows(service), 1);
    // One character more is refused by the schema, not by the size cap.
    const over = await post(
      service,
      "complianceAudit",
      escapedJson({ content: content + "😀", jurisdiction: "ALL" }),
      { "x-api-key": apiKey },
    );
    assert.equal(over.status, 400);
    assert.deepEqual(await over.json(), {
      error: {
        code: "invalid_request",
        message: "content: content must be at most 30000 characters",
      },
    });
  });

  test("runWebsiteAudit's cap admits a 2,048-character target_url sent as \\u escapes", async (service) => {
    // A loopback target: with no allow-list the scanner refuses it (403)
    // before any connection, which shows the body and the URL were accepted.
    const url = "http://127.0.0.1:9/" + "a".repeat(2048 - "http://127.0.0.1:9/".length);
    const response = await post(service, "runWebsiteAudit", escapedJson({ target_url: url }));
    assert.equal(response.status, 403, await response.clone().text());
    assert.deepEqual(Object.keys(await response.json()), ["error"]);
  });

  test("a compressed body gets 415 in each endpoint's envelope and changes nothing", async (service) => {
    const { apiKey, accountId } = await service.account();
    const hook = await createIntegration(service.db, {
      accountId,
      name: "chat",
      provider: "intercom",
      industry: null,
    });
    const gzipped = (text: string) =>
      new Response(
        new Blob([text]).stream().pipeThrough(new CompressionStream("gzip")),
      ).arrayBuffer();
    const calls: Array<[string, string, Record<string, string>, (body: unknown) => void]> = [
      [
        "complianceAudit",
        JSON.stringify({ content: "Hello", jurisdiction: "CA" }),
        { "x-api-key": apiKey },
        (body) => assert.equal(AuditErrorEnvelope.parse(body).error.code, "invalid_request"),
      ],
      [
        "agentSubscribe",
        JSON.stringify({ action: "verify" }),
        { "x-api-key": apiKey },
        (body) => assert.deepEqual(Object.keys(body as object), ["error"]),
      ],
      [
        "runWebsiteAudit",
        JSON.stringify({ target_url: "https://www.example.com/" }),
        {},
        (body) => assert.deepEqual(Object.keys(body as object), ["error"]),
      ],
      [
        "webhookIngest",
        JSON.stringify({ source: "chat", messages: [{ sender: "bot", text: "Hi" }] }),
        { "x-webhook-secret": hook.credential },
        (body) => {
          const envelope = body as Record<string, unknown>;
          assert.equal(envelope.success, false);
          assert.equal(typeof envelope.error, "string");
          assert.equal(typeof envelope.processing_ms, "number");
        },
      ],
    ];
    for (const [name, json, headers, envelope] of calls) {
      const response = await fetch(`${service.baseUrl}/${name}`, {
        method: "POST",
        headers: { "content-type": "application/json", "content-encoding": "gzip", ...headers },
        body: await gzipped(json),
      });
      assert.equal(response.status, 415, name);
      envelope(await response.json());
    }
    assert.equal(await auditRows(service), 0);
    const [scans] = await service.query<{ n: number }>(
      "select (select count(*) from public.website_scans)::int + (select count(*) from public.transcript_scans)::int as n",
    );
    assert.equal(scans.n, 0);
  });

  test("asset_url and target_url with a space, a line break or a stray character are 400 and change nothing", async (service) => {
    const { apiKey } = await service.account();
    const bad = [
      "https://cdn.example/a b.mp4",
      "https://cdn.example/a\nb.mp4",
      "https://cdn.example/\tad.mp4",
      "https://cdn.example/ad.mp4\r\n",
      "https://cdn.example/<ad>.mp4",
      "https://cdn.example/ad%zz.mp4",
      "https://cdn.example/spot\u00a0ad.mp4",
    ];
    for (const url of bad) {
      const audit = await service.post("complianceAudit", {
        content: "Hello",
        jurisdiction: "CA",
        asset_url: url,
      }, { "x-api-key": apiKey });
      assert.equal(audit.status, 400, JSON.stringify(url));
      const { error } = AuditErrorEnvelope.parse(await audit.json());
      assert.equal(error.code, "invalid_request");
      assert.match(error.message, /^asset_url: asset_url must be a valid URI/);
      const scan = await service.post("runWebsiteAudit", { target_url: url });
      assert.equal(scan.status, 400, JSON.stringify(url));
      assert.match((await scan.json()).error, /target_url must be a valid URI/);
    }
    assert.equal(await auditRows(service), 0);
    // Escaped forms of the same are fine.
    const good = await service.post("complianceAudit", {
      content: "Hello",
      jurisdiction: "CA",
      asset_url: "https://cdn.example/a%20b.mp4?x=1&y=[2]#t=3",
    }, { "x-api-key": apiKey });
    assert.equal(good.status, 200);
  });

  test("agentSubscribe records a 400 made with a valid key, like every other outcome", async (service) => {
    const { apiKey, accountId } = await service.account();
    const other = await service.account();
    const calls: Array<[unknown, Record<string, string>]> = [
      [{ action: "verify", extra: 1 }, { "x-api-key": apiKey }],
      ["{not json", { "x-api-key": apiKey }],
      [{ action: "export_audit", month: "2026-13" }, { "x-api-key": apiKey }],
      [{ action: "get_logs", api_key: other.apiKey, month: "x" }, {}], // the body key
      [{ action: "verify" }, { "x-api-key": "cas_live_wrong" }], // 401: no account to record
    ];
    for (const [body, headers] of calls) await service.post("agentSubscribe", body, headers);
    const rows = await service.query<
      { account_id: string; endpoint_queried: string; status_code: number; is_agent: boolean }
    >(
      "select account_id, endpoint_queried, status_code, is_agent from public.activity order by created_at, endpoint_queried",
    );
    assert.deepEqual(
      rows.map((row) => [row.account_id, row.endpoint_queried, row.status_code, row.is_agent])
        .sort(),
      [
        [accountId, "agentSubscribe", 400, true],
        [accountId, "agentSubscribe.export_audit", 400, true],
        [accountId, "agentSubscribe.verify", 400, true],
        [other.accountId, "agentSubscribe.get_logs", 400, false],
      ].sort(),
    );
  });

  test(
    "a body that stops arriving is refused at its deadline in the endpoint's envelope",
    async (service) => {
      const { apiKey } = await service.account();
      const { hostname, port } = new URL(service.baseUrl);
      const conn = await Deno.connect({ hostname, port: Number(port) });
      try {
        const started = performance.now();
        await conn.write(new TextEncoder().encode(
          "POST /functions/complianceAudit HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n" +
            `X-API-Key: ${apiKey}\r\nContent-Length: 100\r\n\r\n{"content":`,
        ));
        const answer = await readAnswer(conn);
        const ms = performance.now() - started;
        assert.match(answer, /^HTTP\/1\.1 400 /);
        assert.match(answer, /"Request body was not received within 1 s"/);
        assert.ok(ms < 1000 + 5000, `answered after ${ms} ms; the deadline is 1 s`);
      } finally {
        conn.close();
      }
      assert.equal(await auditRows(service), 0);
    },
    { limits: { bodyDeadlineMs: 1000 } },
  );
}

/** Reads from `conn` until the peer has sent a whole small response (or closed). */
async function readAnswer(conn: Deno.Conn): Promise<string> {
  const decoder = new TextDecoder();
  let text = "";
  const buffer = new Uint8Array(4096);
  while (true) {
    const n = await conn.read(buffer);
    if (n === null) return text;
    text += decoder.decode(buffer.subarray(0, n), { stream: true });
    const head = text.indexOf("\r\n\r\n");
    const length = /content-length: (\d+)/i.exec(text);
    if (head !== -1 && length !== null && text.length >= head + 4 + Number(length[1])) return text;
  }
}
