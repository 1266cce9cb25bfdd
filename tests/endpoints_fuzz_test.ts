/**
 * Hostile input, in the suite: fast-check sends thousands of generated
 * bodies (tests/support/hostile_bodies.ts: valid, mutated, wrong types, huge
 * strings, deep nesting, lone surrogates, `__proto__` and `constructor` keys,
 * wrong content types, truncated JSON, garbage) to each of the four
 * operations over real HTTP to the local server, on a fresh database (PGlite
 * always, PostgreSQL when TEST_DATABASE_URL is set). For every request:
 *
 * - the answer is below 500 (no fault is injected here);
 * - it is in the operation's own envelope (contract section 7; the success
 *   form of section 2 for a 200), with a status the contract lists for it;
 * - nothing is stored for a refused request beyond its activity record: the
 *   rows of every table are counted before and after it;
 * - a valid body with a valid credential is accepted.
 *
 * runWebsiteAudit never touches the network: its fetcher resolves names
 * with a made-up resolver (only `site.test` has an address) and connects
 * through a recording connector that serves that address from a loopback
 * fixture site and refuses everything else without opening a connection.
 *
 * A failure prints fast-check's seed and path; replay with FUZZ_SEED=<seed>.
 * FUZZ_RUNS changes the number of runs per operation: default 2,000 on
 * PGlite, and a quarter of that on PostgreSQL.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import ipaddr from "ipaddr.js";
import { createIntegration } from "../shared/admin/provisioning.ts";
import { AccountErrorEnvelope, LogsResponse, VerifyResponse } from "../shared/contract/account.ts";
import { AuditErrorEnvelope, AuditResponse } from "../shared/contract/audit.ts";
import { INDUSTRIES, JURISDICTIONS } from "../shared/contract/vocabulary.ts";
import { TranscriptResponse, WebhookErrorEnvelope } from "../shared/contract/webhook_ingest.ts";
import {
  WebsiteAuditErrorEnvelope,
  WebsiteAuditResponse,
} from "../shared/contract/website_audit.ts";
import type { ServiceLimits } from "../shared/handlers/deps.ts";
import { clearRulebookCache } from "../shared/engine/rulebook_cache.ts";
import { type DbTarget, dbTargets } from "./support/db.ts";
import { PUBLIC_V4 } from "./support/fake_network.ts";
import {
  fuzzSeed,
  type HostileRequest,
  hostileRequests,
  type JsonObject,
  nastyString,
} from "./support/hostile_bodies.ts";
import { startScanHarness } from "./support/scan_harness.ts";
import { startService, type StartServiceOptions, type TestService } from "./support/service.ts";
import { COMPLIANCE_PAGES, HOME } from "./support/website_pages.ts";

/** Shaped like an API key and a webhook credential, and neither. */
const WRONG_KEY = "cas_live_wrongwrongwrongwrongwrongwrongwrongwro";
const WRONG_CREDENTIAL = "cas_whk_wrongwrongwrongwrongwrongwrongwrongwron";

const RUNS = Number(Deno.env.get("FUZZ_RUNS") || 2000);
const SEED = fuzzSeed();

/**
 * Runs per operation: RUNS on PGlite; a quarter of them on PostgreSQL, where
 * the same bodies check the other driver (postgres.js) and the real server
 * at a cost the suite can afford.
 */
function runs(target: DbTarget): number {
  return target.name === "pglite" ? RUNS : Math.ceil(RUNS / 4);
}

/** Per-minute limits out of the way: the fuzz is about bodies, not about limits. */
const NO_LIMITS: Partial<ServiceLimits> = {
  auditPerMinute: 1_000_000,
  verifyPerMinute: 1_000_000,
  scanPerMinute: 1_000_000,
  webhookPerMinute: 1_000_000,
};

/** Every table the service writes or reads, counted in one round trip. */
const TABLES = [
  "accounts",
  "api_keys",
  "monthly_usage",
  "rulebooks",
  "rules",
  "audits",
  "activity",
  "webhook_integrations",
  "webhook_credentials",
  "transcript_scans",
  "transcript_deliveries",
  "website_scans",
] as const;
type Table = typeof TABLES[number];
type Counts = Record<Table | "usage", number>;

async function counts(service: TestService): Promise<Counts> {
  const columns = TABLES.map((table) => `(select count(*)::int from public.${table}) as ${table}`);
  const [row] = await service.query<Counts>(
    `select ${
      columns.join(", ")
    }, (select coalesce(sum(count), 0)::int from public.monthly_usage) as usage`,
  );
  return Object.fromEntries(Object.entries(row).map(([k, v]) => [k, Number(v)])) as Counts;
}

/** The tables whose counts changed, with their change. */
function changes(before: Counts, after: Counts): Partial<Counts> {
  const changed: Partial<Counts> = {};
  for (const key of Object.keys(before) as (keyof Counts)[]) {
    if (after[key] !== before[key]) changed[key] = after[key] - before[key];
  }
  return changed;
}

/** What one fuzz case sent and got, for the assertions and their messages. */
interface Exchange {
  sent: HostileRequest;
  /** Whether the request carried a valid credential. */
  credentialed: boolean;
  status: number;
  headers: Headers;
  text: string;
  stored: Partial<Counts>;
}

function label(exchange: Exchange): string {
  return `${exchange.sent.describe()} -> ${exchange.status} ${exchange.text.slice(0, 300)}`;
}

/** The body as JSON; fails the case when it is not. */
function jsonOf(exchange: Exchange): unknown {
  assert.match(
    exchange.headers.get("content-type") ?? "",
    /^application\/json/,
    `not JSON: ${label(exchange)}`,
  );
  try {
    return JSON.parse(exchange.text);
  } catch {
    assert.fail(`unparsable JSON: ${label(exchange)}`);
  }
}

/** Asserts a parse with a zod schema, naming the case when it fails. */
function conforms(
  schema: { safeParse(value: unknown): { success: boolean; error?: unknown } },
  value: unknown,
  exchange: Exchange,
): void {
  const result = schema.safeParse(value);
  assert.ok(result.success, `wrong envelope: ${label(exchange)}\n${String(result.error)}`);
}

/**
 * The common part of every case: below 500 (runWebsiteAudit's 502 says that
 * the target, not the service, failed), no stack trace, nothing stored beyond
 * `allowedOnRefusal`.
 */
function commonChecks(
  exchange: Exchange,
  allowedOnRefusal: Partial<Counts>,
  { targetFailed = false } = {},
): void {
  assert.ok(
    exchange.status < 500 || (targetFailed && exchange.status === 502),
    `5xx: ${label(exchange)}`,
  );
  assert.doesNotMatch(exchange.text, /\n\s+at |Error: |Traceback/, `trace: ${label(exchange)}`);
  if (exchange.status !== 200) {
    assert.deepEqual(exchange.stored, allowedOnRefusal, `stored on refusal: ${label(exchange)}`);
  }
}

/** What an operation's fuzz sends: valid bodies, headers, and what counts as its credential. */
interface Fixture {
  valid: fc.Arbitrary<JsonObject>;
  headers: fc.Arbitrary<Record<string, string>>;
  /** The valid credential, wherever the operation accepts it; none for runWebsiteAudit. */
  credential?: string;
  /** The body field that may carry the credential (agentSubscribe's `api_key`). */
  bodyField?: string;
}

interface FuzzOptions {
  target: DbTarget;
  name: string;
  service?: StartServiceOptions;
  /** Sets up accounts and credentials on the fresh service. */
  prepare(service: TestService): Promise<Fixture>;
  check(exchange: Exchange): void;
}

/** Whether a request carried the valid credential, in a header or in the body field. */
function carries(fixture: Fixture, headers: Record<string, string>, body: Uint8Array): boolean {
  if (fixture.credential === undefined) return false;
  if (Object.values(headers).includes(fixture.credential)) return true;
  if (fixture.bodyField === undefined || Object.keys(headers).length > 0) return false;
  try {
    const parsed = JSON.parse(new TextDecoder().decode(body));
    return parsed?.[fixture.bodyField] === fixture.credential;
  } catch {
    return false;
  }
}

/** Runs RUNS hostile requests against one operation of a fresh service. */
async function fuzz(options: FuzzOptions): Promise<void> {
  clearRulebookCache();
  const service = await startService(options.target, {
    ...options.service,
    limits: { ...NO_LIMITS, ...options.service?.limits },
  });
  try {
    const fixture = await options.prepare(service);
    const kinds = new Map<string, number>();
    const statuses = new Map<number, number>();
    // Runs are sequential: one case's counts after are the next one's before.
    let last = await counts(service);
    await fc.assert(
      fc.asyncProperty(
        hostileRequests(fixture.valid),
        fixture.headers,
        async (sent, extraHeaders) => {
          const before = last;
          const response = await fetch(`${service.baseUrl}/${options.name}`, {
            method: "POST",
            headers: {
              ...(sent.contentType === null ? {} : { "content-type": sent.contentType }),
              ...extraHeaders,
            },
            body: sent.body,
          });
          const text = await response.text();
          last = await counts(service);
          const exchange: Exchange = {
            sent,
            credentialed: carries(fixture, extraHeaders, sent.body),
            status: response.status,
            headers: response.headers,
            text,
            stored: changes(before, last),
          };
          kinds.set(sent.kind, (kinds.get(sent.kind) ?? 0) + 1);
          statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
          if (fixture.credential !== undefined && !exchange.credentialed) {
            assert.notEqual(
              exchange.status,
              200,
              `accepted without its credential: ${label(exchange)}`,
            );
          }
          options.check(exchange);
        },
      ),
      { numRuns: runs(options.target), seed: SEED, endOnFailure: true },
    );
    // The generator really produced every kind, and the runs reached the handler's success path.
    for (
      const kind of [
        "valid",
        "mutated",
        "wrong-type",
        "huge",
        "deep",
        "surrogate",
        "proto",
        "content-type",
        "truncated",
        "garbage",
      ]
    ) {
      assert.ok((kinds.get(kind) ?? 0) > 0, `no ${kind} case was generated`);
    }
    assert.ok((statuses.get(200) ?? 0) > 0, `no request was accepted: ${[...statuses]}`);
    assert.ok((statuses.get(400) ?? 0) > 0, `no request was refused: ${[...statuses]}`);
  } finally {
    await service.close();
  }
}

const content = fc.oneof(
  fc.string({ minLength: 1, maxLength: 300 }),
  fc.string({ minLength: 1, maxLength: 100, unit: "grapheme" }),
  fc.constantFrom(
    "Hi! I'm Ava, the clinic's AI assistant. As a licensed therapist, I can help you.",
    "Are you a real person? Yes, I'm a real person, not a bot.",
    "<p>Our store opens at nine.</p><script>chat()</script>",
  ),
).filter((s) => s.length > 0 && s.length <= 30_000);

const validAudit = fc.record(
  {
    content,
    jurisdiction: fc.constantFrom(...JURISDICTIONS),
    industry: fc.constantFrom(...INDUSTRIES),
    asset_url: fc.webUrl({ withQueryParameters: true, withFragments: true }),
  },
  { requiredKeys: ["content", "jurisdiction"] },
) as fc.Arbitrary<JsonObject>;

const validTranscript = fc.record({
  source: fc.constantFrom("intercom", "zapier", "  hubspot  "),
  channel: fc.constantFrom("web", "sms", ""),
  conversation_id: fc.string({ maxLength: 20 }),
  messages: fc.array(
    fc.record({
      sender: fc.constantFrom("bot", "user", " Bot ", "USER"),
      text: fc.string({ minLength: 1, maxLength: 120 }).filter((s) => s.trim() !== ""),
      timestamp: fc.date({
        min: new Date("2000-01-01T00:00:00Z"),
        max: new Date("2100-01-01T00:00:00Z"),
        noInvalidDate: true,
      }).map((d) => d.toISOString()),
    }, { requiredKeys: ["sender", "text"] }),
    { minLength: 1, maxLength: 4 },
  ),
}, { requiredKeys: ["source", "messages"] }) as fc.Arbitrary<JsonObject>;

/** A valid audit body: the request was well-formed and should have been accepted. */
function isValid(exchange: Exchange): boolean {
  return exchange.sent.kind === "valid";
}

for (const target of dbTargets()) {
  Deno.test(`fuzz complianceAudit [${target.name}]: ${runs(target)} hostile bodies, no 5xx, its envelope, nothing stored on refusal`, async () => {
    await fuzz({
      target,
      name: "complianceAudit",
      async prepare(service) {
        const { apiKey } = await service.account({ plan: "enterprise" });
        return {
          valid: validAudit,
          credential: apiKey,
          headers: fc.oneof(
            { arbitrary: fc.constant({ "x-api-key": apiKey }), weight: 9 },
            { arbitrary: fc.constant({ "x-api-key": WRONG_KEY }), weight: 1 },
            { arbitrary: fc.constant({}), weight: 1 },
          ),
        };
      },
      check(exchange) {
        // With a valid key, every outcome is one activity record, the success's included.
        const activity = exchange.credentialed ? { activity: 1 } : {};
        commonChecks(exchange, activity);
        const body = jsonOf(exchange);
        if (exchange.status === 200) {
          conforms(AuditResponse, body, exchange);
          // The month's usage row is created by the first audit and counted up by the others.
          const { monthly_usage = 0, ...stored } = exchange.stored;
          assert.deepEqual(stored, { activity: 1, audits: 1, usage: 1 }, label(exchange));
          assert.ok(monthly_usage <= 1, label(exchange));
          return;
        }
        conforms(AuditErrorEnvelope, body, exchange);
        const { code } = (body as { error: { code: string } }).error;
        const expected: Record<number, string[]> = {
          400: ["invalid_request"],
          401: ["invalid_api_key"],
          402: ["account_inactive"],
          415: ["invalid_request"],
          429: ["rate_limited", "quota_exceeded"],
        };
        assert.ok(expected[exchange.status]?.includes(code), `status/code: ${label(exchange)}`);
        // Without a key: refused (401, or 400/415 for a body refused by its headers alone).
        if (!exchange.credentialed) {
          assert.ok([400, 401, 415].includes(exchange.status), label(exchange));
        }
        if (exchange.credentialed && isValid(exchange)) {
          assert.fail(`a valid audit was refused: ${label(exchange)}`);
        }
      },
    });
  });

  Deno.test(`fuzz agentSubscribe [${target.name}]: ${runs(target)} hostile bodies, no 5xx, its envelope, nothing stored on refusal`, async () => {
    await fuzz({
      target,
      name: "agentSubscribe",
      async prepare(service) {
        const { apiKey } = await service.account({ plan: "pro" });
        const action = fc.oneof(
          fc.constant({ action: "verify" }),
          fc.constant({ action: "get_logs" }),
          fc.record({
            action: fc.constant("export_audit"),
            month: fc.tuple(fc.integer({ min: 2000, max: 2100 }), fc.integer({ min: 1, max: 12 }))
              .map(([y, m]) => `${y}-${String(m).padStart(2, "0")}`),
          }, { requiredKeys: ["action"] }),
        );
        return {
          // The dashboard's compatibility path: the key in the body, read before it is known.
          valid: fc.tuple(action, fc.boolean()).map(([body, inBody]) =>
            inBody ? { ...body, api_key: apiKey } : body
          ),
          credential: apiKey,
          bodyField: "api_key",
          headers: fc.oneof(
            { arbitrary: fc.constant({ "x-api-key": apiKey }), weight: 6 },
            { arbitrary: fc.constant({ "x-api-key": WRONG_KEY }), weight: 1 },
            { arbitrary: fc.constant({}), weight: 4 },
          ),
        };
      },
      check(exchange) {
        assert.ok(exchange.status < 500, `5xx: ${label(exchange)}`);
        // Refused: at most its activity record (a refusal before the key is known has none).
        if (exchange.status !== 200) {
          const { activity = 0, ...rest } = exchange.stored;
          assert.deepEqual(rest, {}, `stored on refusal: ${label(exchange)}`);
          assert.ok(activity === 0 || (activity === 1 && exchange.credentialed), label(exchange));
        }
        commonChecks(exchange, exchange.stored.activity ? { activity: 1 } : {});
        if (exchange.status === 200) {
          assert.deepEqual(exchange.stored, { activity: 1 }, label(exchange));
          const type = exchange.headers.get("content-type") ?? "";
          if (type.startsWith("text/csv")) {
            assert.ok(
              exchange.text.startsWith(
                "timestamp,endpoint_queried,status_code,response_latency_ms,plan,is_agent\r\n",
              ),
              label(exchange),
            );
            return;
          }
          const body = jsonOf(exchange);
          const verify = VerifyResponse.safeParse(body);
          const logs = LogsResponse.safeParse(body);
          assert.ok(verify.success || logs.success, `wrong success form: ${label(exchange)}`);
          return;
        }
        const body = jsonOf(exchange);
        conforms(AccountErrorEnvelope, body, exchange);
        assert.ok([400, 401, 402, 415, 429].includes(exchange.status), label(exchange));
        if (exchange.credentialed && isValid(exchange)) {
          assert.fail(`a valid account operation was refused: ${label(exchange)}`);
        }
      },
    });
  });

  Deno.test(`fuzz webhookIngest [${target.name}]: ${runs(target)} hostile bodies, no 5xx, its envelope, nothing stored on refusal`, async () => {
    const seen = new Set<string>();
    await fuzz({
      target,
      name: "webhookIngest",
      async prepare(service) {
        const { accountId } = await service.account({ plan: "pro" });
        const issued = await createIntegration(service.db, {
          accountId,
          name: "fuzz chat",
          provider: "intercom",
        });
        return {
          credential: issued.credential,
          headers: fc.oneof(
            { arbitrary: fc.constant({ "x-webhook-secret": issued.credential }), weight: 9 },
            { arbitrary: fc.constant({ "x-webhook-secret": WRONG_CREDENTIAL }), weight: 1 },
            { arbitrary: fc.constant({}), weight: 1 },
          ),
          valid: validTranscript,
        };
      },
      check(exchange) {
        commonChecks(exchange, {});
        const body = jsonOf(exchange);
        if (exchange.status === 200) {
          // No fault is injected: a 200 is a stored success, never `success: false`.
          conforms(TranscriptResponse, body, exchange);
          const id = (body as { scan_result_id: string }).scan_result_id;
          // A new delivery stores one scan (and its delivery record); a repeated one nothing.
          const { transcript_deliveries = 0, ...stored } = exchange.stored;
          assert.deepEqual(stored, seen.has(id) ? {} : { transcript_scans: 1 }, label(exchange));
          assert.ok(transcript_deliveries <= (seen.has(id) ? 0 : 1), label(exchange));
          seen.add(id);
          return;
        }
        conforms(WebhookErrorEnvelope, body, exchange);
        assert.ok([400, 401, 415, 429].includes(exchange.status), label(exchange));
        if (!exchange.credentialed) {
          assert.ok([400, 401, 415].includes(exchange.status), label(exchange));
        }
        if (exchange.credentialed && isValid(exchange)) {
          assert.fail(`a valid transcript was refused: ${label(exchange)}`);
        }
      },
    });
  });

  Deno.test(`fuzz runWebsiteAudit [${target.name}]: ${runs(target)} hostile bodies, no 5xx, its envelope, no network but the fixture`, async () => {
    await using harness = await startScanHarness({
      site: { pages: { "/home.html": HOME, ...COMPLIANCE_PAGES } },
    });
    const octet = fc.integer({ min: 0, max: 255 });
    const ipv4 = fc.tuple(octet, octet, octet, octet).map((parts) => parts.join("."));
    const host = fc.oneof(
      { arbitrary: fc.domain(), weight: 4 },
      { arbitrary: ipv4, weight: 3 },
      { arbitrary: fc.ipV6().map((ip) => `[${ip}]`), weight: 1 },
      {
        arbitrary: fc.constantFrom(
          "site.test",
          "localhost",
          "127.0.0.1",
          "[::1]",
          "0x7f000001",
          "2130706433",
          "169.254.169.254",
          "[::ffff:10.0.0.1]",
          PUBLIC_V4,
        ),
        weight: 2,
      },
    );
    const url = fc.oneof(
      {
        arbitrary: fc.tuple(
          fc.constantFrom("http", "https", "HTTP", "ftp", "javascript", "file"),
          host,
          fc.option(fc.integer({ min: 0, max: 70000 }), { nil: undefined }),
          fc.webPath(),
        ).map(([scheme, name, port, path]) =>
          `${scheme}://${name}${port === undefined ? "" : `:${port}`}${path}`
        ),
        weight: 6,
      },
      { arbitrary: fc.webUrl({ withQueryParameters: true }), weight: 2 },
      { arbitrary: fc.constant("http://site.test/home.html"), weight: 1 },
      { arbitrary: nastyString.map((s) => `https://${s}`), weight: 1 },
    );
    await fuzz({
      target,
      name: "runWebsiteAudit",
      service: { scanFetcher: harness.fetcher },
      prepare() {
        return Promise.resolve({
          valid: fc.record({ target_url: url }) as fc.Arbitrary<JsonObject>,
          headers: fc.constant({}),
        });
      },
      check(exchange) {
        // The made-up network has no site but site.test: every other name or
        // public address "could not be scanned" (502), as the contract says.
        commonChecks(exchange, {}, { targetFailed: true });
        const body = jsonOf(exchange);
        if (exchange.status === 200) {
          conforms(WebsiteAuditResponse, body, exchange);
          assert.deepEqual(exchange.stored, { website_scans: 1 }, label(exchange));
          return;
        }
        conforms(WebsiteAuditErrorEnvelope, body, exchange);
        assert.deepEqual(Object.keys(body as object), ["error"], label(exchange));
        assert.ok([400, 403, 415, 429, 502].includes(exchange.status), label(exchange));
      },
    });
    // The scanner asked to connect only to public unicast addresses; the
    // connector served the fixture's and refused the rest without a socket.
    assert.ok(harness.connect.calls.length > 0, "no scan reached the connector");
    for (const { address } of harness.connect.calls) {
      assert.equal(ipaddr.process(address).range(), "unicast", address);
    }
    assert.ok(
      harness.site.requests.every((r) => r.host === "site.test"),
      "the fixture was reached under another name",
    );
  });
}
