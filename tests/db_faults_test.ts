/**
 * Database faults over real HTTP: the local server's handlers on the postgres
 * adapter, connected to the real PostgreSQL (TEST_DATABASE_URL) through a
 * loopback proxy this test controls (tests/support/tcp_proxy.ts). Refused,
 * black-holed and stalled databases answer every request with the endpoint's
 * 5xx within the call deadline plus a margin, whatever the concurrency; a
 * pool waiting to reconnect fails new requests at once; after recovery
 * everything works without a restart; and keyed audits driven through resets
 * and stalls reconcile: every charge has its audit row and its key, and a
 * retry with the key is never charged twice.
 */
import assert from "node:assert/strict";
import { sha256Hex } from "../shared/auth/api_key.ts";
import { AuditErrorEnvelope, AuditResponse } from "../shared/contract/audit.ts";
import type { Db } from "../shared/db/db.ts";
import { callDeadlineMs } from "../shared/db/deadlines.ts";
import { createPostgresDb } from "../shared/db/postgres_db.ts";
import { createIntegration } from "../shared/admin/provisioning.ts";
import { clearRulebookCache } from "../shared/engine/rulebook_cache.ts";
import { dbTargets } from "./support/db.ts";
import { startService, type TestService } from "./support/service.ts";
import { startTcpProxy, type TcpProxy } from "./support/tcp_proxy.ts";

/** Content that breaks several seed rules (a bot denying it is AI, with a licensed persona). */
const VIOLATING_CONTENT =
  "Hi! I'm Ava, the clinic's AI assistant. As a licensed therapist, I can help you. Are you a real person? Yes, I'm a real person, not a bot.";

const target = dbTargets().find((t) => t.name === "postgres");
const DEADLINES = { connectTimeoutMs: 1000, statementTimeoutMs: 1500 };
/** The client-side deadline of one database call: 3.5 s here. */
const CALL_DEADLINE_MS = callDeadlineMs(DEADLINES);
/** Generous: the machine running the suite is shared and loaded. */
const MARGIN_MS = 4000;
const CONCURRENCY = 60;

interface Faulty {
  service: TestService;
  proxy: TcpProxy;
  apiKey: string;
  accountId: string;
}

/**
 * A service whose handlers reach PostgreSQL only through a proxy, with short
 * deadlines; `fn` gets it with a starter account and a warm pool.
 */
function faultTest(name: string, fn: (t: Faulty) => Promise<void>) {
  Deno.test({
    name: `database faults [postgres] ${name}`,
    ignore: target === undefined,
    // postgres.js may close a socket of a replaced pool just after the test.
    sanitizeOps: false,
    sanitizeResources: false,
    async fn() {
      clearRulebookCache();
      let proxy: TcpProxy | undefined;
      let proxied: Db | undefined;
      const service = await startService(target!, {
        limits: { auditPerMinute: 100_000 },
        wrapDb: (_db, database) => {
          const real = new URL(database.url!);
          proxy = startTcpProxy({ hostname: real.hostname, port: Number(real.port) });
          proxied = createPostgresDb(proxy.via(database.url!), {
            ...DEADLINES,
            retryIntervalMs: 200,
          });
          return proxied;
        },
      });
      try {
        const { apiKey, accountId } = await service.account({ plan: "pro" });
        const warm = await audit(service, apiKey);
        assert.equal(warm.status, 200);
        await fn({ service, proxy: proxy!, apiKey, accountId });
      } finally {
        await proxy?.close();
        await proxied?.close();
        await service.close();
      }
    },
  });
}

interface Answer {
  status: number;
  body: unknown;
  text: string;
  ms: number;
}

async function audit(
  service: TestService,
  apiKey: string,
  content = VIOLATING_CONTENT,
  headers: Record<string, string> = {},
): Promise<Answer> {
  const started = performance.now();
  const response = await service.post("complianceAudit", { content, jurisdiction: "CA" }, {
    "x-api-key": apiKey,
    ...headers,
  });
  const text = await response.text();
  return { status: response.status, body: JSON.parse(text), text, ms: performance.now() - started };
}

async function getLogs(service: TestService, apiKey: string): Promise<Answer> {
  const started = performance.now();
  const response = await service.post("agentSubscribe", { action: "get_logs" }, {
    "x-api-key": apiKey,
  });
  const text = await response.text();
  return { status: response.status, body: JSON.parse(text), text, ms: performance.now() - started };
}

/** Every answer is complianceAudit's 503 envelope, within the deadline plus the margin. */
function assertAll503(answers: Answer[], within = CALL_DEADLINE_MS + MARGIN_MS) {
  if (Deno.env.get("FAULT_DEBUG")) {
    console.log(answers.map((a) => `${a.status}:${Math.round(a.ms)}`).join(" "));
  }
  for (const answer of answers) {
    assert.equal(answer.status, 503, answer.text);
    assert.equal(AuditErrorEnvelope.parse(answer.body).error.code, "service_unavailable");
    assert.ok(answer.ms <= within, `answered after ${Math.round(answer.ms)} ms (bound ${within})`);
  }
}

/** Waits (bounded) until an audit is accepted again; returns that answer. */
async function recovered(service: TestService, apiKey: string): Promise<Answer> {
  const until = Date.now() + 20_000;
  while (true) {
    const answer = await audit(service, apiKey);
    if (answer.status === 200 || Date.now() > until) return answer;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

async function deliver(service: TestService, credential: string): Promise<Answer> {
  const started = performance.now();
  const response = await service.post("webhookIngest", {
    source: "intercom",
    conversation_id: crypto.randomUUID(),
    messages: [{ sender: "bot", text: "Hi! I am the support bot. How can I help?" }],
  }, { "x-webhook-secret": credential });
  const text = await response.text();
  return { status: response.status, body: JSON.parse(text), text, ms: performance.now() - started };
}

const wave = <T>(fn: () => Promise<T>) => Promise.all(Array.from({ length: CONCURRENCY }, fn));

faultTest(
  "refused: 60 concurrent requests fail fast in their envelopes; recovery needs no restart",
  async ({ service, proxy, apiKey, accountId }) => {
    proxy.refuse();
    // Before any deadline could fire: nothing waits for a reconnect.
    assertAll503(await wave(() => audit(service, apiKey)), CALL_DEADLINE_MS - 1);
    const logs = await wave(() => getLogs(service, apiKey));
    for (const answer of logs) {
      assert.equal(answer.status, 500, answer.text);
      assert.deepEqual(Object.keys(answer.body as object), ["error"]);
      assert.ok(answer.ms <= CALL_DEADLINE_MS + MARGIN_MS);
    }

    proxy.accept();
    const back = await recovered(service, apiKey);
    assert.equal(back.status, 200, back.text);
    // The refused calls charged nothing: the warm-up and this one.
    assert.equal(AuditResponse.parse(back.body).usage.count, 2);
    const [usage] = await service.query<{ count: number }>(
      "select count::int as count from public.monthly_usage where account_id = $1",
      [accountId],
    );
    assert.equal(usage.count, 2);
  },
);

for (const open of [false, true]) {
  const how = open
    ? "with every pooled connection open (the call deadline)"
    : "while connecting (the connect deadline)";
  faultTest(
    `black-holed ${how}: answers within the deadline, then at once while the pool reconnects; recovery after resume`,
    async ({ service, proxy, apiKey, accountId }) => {
      const { credential } = await createIntegration(service.db, {
        accountId,
        name: "support chat",
        provider: "intercom",
      });
      if (open) {
        // A burst opens all 10 pooled connections, which the black hole then holds.
        for (const answer of await wave(() => audit(service, apiKey))) {
          assert.equal(answer.status, 200, answer.text);
        }
      }
      proxy.pause();
      if (open) {
        // Three operations at once, 20 each: each answers its own 5xx envelope.
        const [audits, logs, deliveries] = await Promise.all([
          Promise.all(Array.from({ length: 20 }, () => audit(service, apiKey))),
          Promise.all(Array.from({ length: 20 }, () => getLogs(service, apiKey))),
          Promise.all(Array.from({ length: 20 }, () => deliver(service, credential))),
        ]);
        assertAll503(audits);
        for (const answer of [...logs, ...deliveries]) {
          assert.equal(answer.status, 500, answer.text);
          assert.ok(answer.ms <= CALL_DEADLINE_MS + MARGIN_MS, `${Math.round(answer.ms)} ms`);
        }
        for (const answer of logs) assert.deepEqual(Object.keys(answer.body as object), ["error"]);
        for (const answer of deliveries) {
          assert.equal((answer.body as { success: unknown }).success, false);
        }
      } else {
        assertAll503(await wave(() => audit(service, apiKey)));
      }
      // Unreachable now: a new wave fails at once instead of queueing for a
      // connection or waiting out another deadline.
      assertAll503(await wave(() => audit(service, apiKey)), CALL_DEADLINE_MS);

      proxy.resume();
      const back = await recovered(service, apiKey);
      assert.equal(back.status, 200, back.text);
      const logs = await getLogs(service, apiKey);
      assert.equal(logs.status, 200, logs.text);
      const delivered = await deliver(service, credential);
      assert.equal(delivered.status, 200, delivered.text);
    },
  );
}

faultTest(
  "reset mid-flight: the calls on the dropped connections fail in their envelopes, and the next work",
  async ({ service, proxy, apiKey }) => {
    proxy.pause();
    const pending = wave(() => audit(service, apiKey));
    await new Promise((resolve) => setTimeout(resolve, 300));
    proxy.reset();
    proxy.resume();
    for (const answer of await pending) {
      assert.ok([200, 503].includes(answer.status), answer.text);
      assert.ok(answer.ms <= CALL_DEADLINE_MS + MARGIN_MS);
    }
    const back = await recovered(service, apiKey);
    assert.equal(back.status, 200, back.text);
  },
);

faultTest(
  "stalled (a lock held by another session): statement timeouts and the call deadline bound every answer",
  async ({ service, apiKey }) => {
    await service.query("begin");
    try {
      await service.query("lock table public.api_keys in access exclusive mode");
      assertAll503(await wave(() => audit(service, apiKey)));
    } finally {
      await service.query("rollback");
    }
    const back = await recovered(service, apiKey);
    assert.equal(back.status, 200, back.text);
  },
);

/** A small deterministic PRNG (mulberry32), so a failing run can be replayed. */
function prng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

faultTest(
  "Idempotency-Key under resets and stalls: every 200 and 503 reconciles with usage, audits and keys; retries charge once",
  async ({ service, proxy, apiKey, accountId }) => {
    const KEYS = 32;
    const seed = Number(Deno.env.get("FAULT_SEED") ?? "20261124");
    const random = prng(seed);
    const requests = Array.from({ length: KEYS }, (_, i) => ({
      key: `retry-${seed}-${i}-${crypto.randomUUID()}`,
      content: `${VIOLATING_CONTENT} Request ${i}.`,
    }));
    const counts = async () => {
      const [row] = await service.query<
        { usage: number; audits: number; keys: number; ok: number }
      >(
        `select
         coalesce((select sum(count)::int from public.monthly_usage where account_id = $1), 0)
           as usage,
         (select count(*)::int from public.audits where account_id = $1) as audits,
         (select count(*)::int from public.audit_idempotency
           where account_id = $1 and response is not null and audit_id is not null) as keys,
         (select count(*)::int from public.activity
           where account_id = $1 and status_code = 200) as ok`,
        [accountId],
      );
      return row;
    };
    const before = await counts(); // the warm-up audit, unkeyed

    // Chaos while the requests run: resets, and stalls of 0.2 to 4.2 s.
    let chaos = true;
    const chaosLoop = (async () => {
      while (chaos) {
        const roll = random();
        if (roll < 0.5) proxy.reset();
        else {
          // Some stalls outlast the call deadline: the answer is lost, and
          // the charge may or may not have committed.
          proxy.pause();
          await new Promise((resolve) => setTimeout(resolve, 200 + random() * 4000));
          proxy.resume();
        }
        await new Promise((resolve) => setTimeout(resolve, 300 + random() * 700));
      }
    })();
    const first: Answer[] = [];
    try {
      // Paced, so that the requests span the faults.
      for (let i = 0; i < KEYS; i += 2) {
        first.push(
          ...await Promise.all(
            requests.slice(i, i + 2).map((r) =>
              audit(service, apiKey, r.content, { "idempotency-key": r.key })
            ),
          ),
        );
        await new Promise((resolve) => setTimeout(resolve, 150));
      }
    } finally {
      chaos = false;
      await chaosLoop;
      proxy.resume();
    }
    for (const answer of first) assert.ok([200, 503].includes(answer.status), answer.text);
    assert.ok(first.some((answer) => answer.status === 503), "the faults reached some requests");
    assert.equal((await recovered(service, apiKey)).status, 200); // one more, unkeyed

    // Reconcile: usage, audit rows and remembered keys move together.
    const mid = await counts();
    const charged = mid.usage - before.usage - 1;
    assert.equal(mid.audits - before.audits - 1, charged);
    assert.equal(mid.keys, charged);
    const held = new Set(
      (await service.query<{ key_sha256: string }>(
        "select key_sha256 from public.audit_idempotency where account_id = $1",
        [accountId],
      )).map((row) => row.key_sha256),
    );
    const digests = await Promise.all(requests.map((r) => sha256Hex(r.key)));
    first.forEach((answer, i) => {
      if (answer.status === 200) assert.ok(held.has(digests[i]), "a 200 has its key");
    });

    // Every key retried without faults: one charge each, first answers replayed.
    const retried = await Promise.all(
      requests.map((r) => audit(service, apiKey, r.content, { "idempotency-key": r.key })),
    );
    retried.forEach((answer, i) => {
      assert.equal(answer.status, 200, answer.text);
      if (first[i].status === 200) assert.equal(answer.text, first[i].text, "the first answer");
    });
    const after = await counts();
    assert.equal(after.usage - before.usage - 1, KEYS, "each key charged exactly once");
    assert.equal(after.audits - before.audits - 1, KEYS);
    assert.equal(after.keys, KEYS);
    // One 200 activity row per charge, and one per replayed retry.
    assert.equal(after.ok - before.ok - 1, KEYS + charged);
    // Each charge answered its own count.
    const keyedCounts = retried.map((a) => AuditResponse.parse(a.body).usage.count);
    assert.equal(new Set(keyedCounts).size, KEYS);
    console.log(
      `seed ${seed}: ${first.filter((a) => a.status === 200).length} of ${KEYS} answered 200 ` +
        `and ${first.filter((a) => a.status === 503).length} 503 ` +
        `under faults, ${charged} charged before the retries`,
    );
  },
);
