/**
 * The webhook RPCs on each database: credentials stored as digests, rotated
 * and revoked per integration, looked up alike whether they exist or not;
 * deliveries claimed once, stored whole, purged past retention.
 */
import assert from "node:assert/strict";
import { sha256Hex } from "../../shared/auth/api_key.ts";
import {
  createAccount,
  createIntegration,
  revokeIntegrationCredential,
  rotateIntegrationCredential,
} from "../../shared/admin/provisioning.ts";
import { type Db, DbError } from "../../shared/db/db.ts";
import {
  type ScanEntry,
  transcriptDeliveryBegin,
  transcriptDeliveryRelease,
  transcriptPurge,
  transcriptScanStore,
} from "../../shared/db/transcripts.ts";
import {
  webhookCredentialCaller,
  webhookIntegrationList,
  webhookIntegrationUpdate,
  webhookSharedCaller,
} from "../../shared/db/webhook_integrations.ts";
import { dbTargets, seedRulebook, type TestDatabase } from "../support/db.ts";

async function callerOf(db: Db, credential: string) {
  return await webhookCredentialCaller(db, await sha256Hex(credential));
}

async function newIntegration(t: TestDatabase, name = "intercom") {
  const account = await createAccount(t.db, { plan: "starter", status: "active" });
  const issued = await createIntegration(t.db, {
    accountId: account.account_id,
    name,
    provider: "intercom",
  });
  return { accountId: account.account_id, ...issued };
}

function scanEntry(
  claim: string,
  ids: { accountId: string; integrationId: string },
  key: string,
): ScanEntry {
  return {
    claim,
    accountId: ids.accountId,
    integrationId: ids.integrationId,
    authPath: "credential",
    idempotencyKey: key,
    source: "intercom",
    channel: null,
    channelOrigin: "intercom",
    externalConversationId: "c-1",
    jurisdictions: ["ALL"],
    industry: null,
    rulebookVersion: 1,
    grade: "A",
    score: 100,
    criticalViolations: 0,
    warnings: 0,
    passedChecks: 3,
    payload: {
      messages: [{ sender: "user", text: "hi" }],
      findings: [],
      passed: [],
      scan_meta: { rulebook_source: "database", rulebook_version: 1 },
    },
  };
}

for (const target of dbTargets({ poolSize: 20 })) {
  const test = (name: string, fn: (t: TestDatabase) => Promise<void>) =>
    Deno.test(`webhook RPCs [${target.name}] ${name}`, async () => {
      const t = await target.open();
      try {
        await fn(t);
      } finally {
        await t.close();
      }
    });

  test("an integration keeps only its credential's digest and display prefix; ALL and no industry by default", async (t) => {
    const { accountId, integration, credential } = await newIntegration(t);
    assert.match(credential, /^cas_whk_[A-Za-z0-9_-]{43}$/);
    assert.deepEqual(integration.jurisdictions, ["ALL"]);
    assert.equal(integration.industry, null);
    assert.equal(integration.credential?.prefix, credential.slice(0, 12));
    const rows = await t.query(
      "select row_to_json(c)::text as r from public.webhook_credentials c",
    );
    assert.equal(JSON.stringify(rows).includes(credential), false);
    assert.equal(JSON.stringify(rows).includes(await sha256Hex(credential)), true);
    assert.equal(
      JSON.stringify(await webhookIntegrationList(t.db, accountId)).includes(credential),
      false,
    );
    assert.equal((await callerOf(t.db, credential))?.account_id, accountId);

    await assert.rejects(
      createIntegration(t.db, { accountId, name: "intercom", provider: "zendesk" }),
      (error: unknown) => error instanceof DbError && error.code === "23505",
    );
    await assert.rejects(
      createIntegration(t.db, { accountId: crypto.randomUUID(), name: "x", provider: "zapier" }),
      (error: unknown) => error instanceof DbError && error.code === "P0002",
    );
    for (const jurisdictions of [[], ["ALL", "CA"], ["WA"]]) {
      await assert.rejects(
        createIntegration(t.db, {
          accountId,
          name: `bad ${jurisdictions}`,
          provider: "zapier",
          jurisdictions: jurisdictions as never,
        }),
        (error: unknown) => error instanceof DbError && error.code === "22023",
      );
    }
    const updated = await webhookIntegrationUpdate(t.db, {
      integrationId: integration.integration_id,
      jurisdictions: ["CA", "NY"],
      industry: "healthcare",
    });
    assert.deepEqual([updated.jurisdictions, updated.industry], [["CA", "NY"], "healthcare"]);
    const cleared = await webhookIntegrationUpdate(t.db, {
      integrationId: integration.integration_id,
      industry: null,
    });
    assert.deepEqual([cleared.jurisdictions, cleared.industry], [["CA", "NY"], null]);
  });

  test("rotation stops the old credential at once; revocation is per integration", async (t) => {
    const first = await newIntegration(t, "intercom");
    const second = await createIntegration(t.db, {
      accountId: first.accountId,
      name: "zendesk",
      provider: "zendesk",
    });
    const rotated = await rotateIntegrationCredential(t.db, first.integration.integration_id);
    assert.equal(rotated.previous_prefix, first.credential.slice(0, 12));
    assert.equal(await callerOf(t.db, first.credential), null);
    assert.equal(
      (await callerOf(t.db, rotated.credential))?.integration_id,
      first.integration.integration_id,
    );
    assert.equal(
      (await callerOf(t.db, second.credential))?.integration_id,
      second.integration.integration_id,
    );

    assert.equal(await revokeIntegrationCredential(t.db, second.integration.integration_id), 1);
    assert.equal(await revokeIntegrationCredential(t.db, second.integration.integration_id), 0);
    assert.equal(await callerOf(t.db, second.credential), null);
    assert.notEqual(
      await callerOf(t.db, rotated.credential),
      null,
      "the other integration still works",
    );
    const [listed] = (await webhookIntegrationList(t.db, first.accountId)).filter((i) =>
      i.integration_id === second.integration.integration_id
    );
    assert.equal(listed.credential, null);
  });

  test("the shared-secret caller is created once for its account and name, and is null without the account", async (t) => {
    const account = await createAccount(t.db, { plan: "pro", status: "active" });
    const input = { accountId: account.account_id, integrationName: "legacy" };
    const [a, b] = await Promise.all([
      webhookSharedCaller(t.db, input),
      webhookSharedCaller(t.db, input),
    ]);
    assert.equal(a?.integration_id, b?.integration_id);
    const listed = await webhookIntegrationList(t.db, account.account_id);
    assert.deepEqual(listed.map((i) => [i.name, i.provider, i.credential]), [[
      "legacy",
      "shared-secret",
      null,
    ]]);
    assert.equal(
      await webhookSharedCaller(t.db, {
        accountId: crypto.randomUUID(),
        integrationName: "legacy",
      }),
      null,
    );
  });

  test("a delivery is claimed by one of many concurrent requests, stored once, then answered", async (t) => {
    await seedRulebook(t.db);
    const { accountId, integration } = await newIntegration(t);
    const ids = { accountId, integrationId: integration.integration_id };
    const key = "a".repeat(64);
    const states = await Promise.all(
      Array.from(
        { length: 20 },
        () => transcriptDeliveryBegin(t.db, { ...ids, idempotencyKey: key, leaseSeconds: 30 }),
      ),
    );
    const claimed = states.filter((s) => s.state === "claimed");
    assert.equal(claimed.length, 1);
    assert.equal(states.filter((s) => s.state === "pending").length, 19);
    const claim = claimed[0].state === "claimed" ? claimed[0].claim : "";

    const stored = await transcriptScanStore(t.db, scanEntry(claim, ids, key));
    assert.equal(stored.state, "stored");
    const again = await transcriptDeliveryBegin(t.db, {
      ...ids,
      idempotencyKey: key,
      leaseSeconds: 30,
    });
    assert.deepEqual(again, stored);
    // The claim is spent: storing again with it writes nothing and answers the first scan.
    assert.deepEqual(await transcriptScanStore(t.db, scanEntry(claim, ids, key)), stored);
    const [{ n }] = await t.query<{ n: number }>(
      "select count(*)::int as n from public.transcript_scans",
    );
    assert.equal(n, 1);
    const [{ d }] = await t.query<{ d: number }>(
      "select count(*)::int as d from public.transcript_deliveries",
    );
    assert.equal(d, 0);
  });

  test("a released claim is processed afresh; an expired one is taken over and the old holder writes nothing", async (t) => {
    await seedRulebook(t.db);
    const { accountId, integration } = await newIntegration(t);
    const ids = { accountId, integrationId: integration.integration_id };
    const key = "b".repeat(64);
    const first = await transcriptDeliveryBegin(t.db, {
      ...ids,
      idempotencyKey: key,
      leaseSeconds: 30,
    });
    assert.equal(first.state, "claimed");
    assert.deepEqual(
      await transcriptDeliveryRelease(t.db, first.state === "claimed" ? first.claim : ""),
      { released: true },
    );
    const second = await transcriptDeliveryBegin(t.db, {
      ...ids,
      idempotencyKey: key,
      leaseSeconds: 30,
    });
    assert.equal(second.state, "claimed");

    await t.query(
      "update public.transcript_deliveries set lease_until = now() - interval '1 second'",
    );
    const third = await transcriptDeliveryBegin(t.db, {
      ...ids,
      idempotencyKey: key,
      leaseSeconds: 30,
    });
    assert.equal(third.state, "claimed");
    const stale = second.state === "claimed" ? second.claim : "";
    assert.deepEqual(await transcriptScanStore(t.db, scanEntry(stale, ids, key)), {
      state: "lost",
    });
    const [{ n }] = await t.query<{ n: number }>(
      "select count(*)::int as n from public.transcript_scans",
    );
    assert.equal(n, 0, "a holder whose lease passed stores nothing");
    const won = await transcriptScanStore(
      t.db,
      scanEntry(third.state === "claimed" ? third.claim : "", ids, key),
    );
    assert.equal(won.state, "stored");
  });

  test("a scan is refused whole when its integration is not the account's, or its payload lacks the database marker", async (t) => {
    await seedRulebook(t.db);
    const mine = await newIntegration(t, "mine");
    const other = await newIntegration(t, "other");
    const key = "c".repeat(64);
    const begin = await transcriptDeliveryBegin(t.db, {
      integrationId: mine.integration.integration_id,
      idempotencyKey: key,
      leaseSeconds: 30,
    });
    const claim = begin.state === "claimed" ? begin.claim : "";
    await assert.rejects(
      transcriptScanStore(
        t.db,
        scanEntry(claim, {
          accountId: other.accountId,
          integrationId: mine.integration.integration_id,
        }, key),
      ),
      (error: unknown) => error instanceof DbError && error.code === "22023",
    );
    const entry = scanEntry(
      claim,
      { accountId: mine.accountId, integrationId: mine.integration.integration_id },
      key,
    );
    await assert.rejects(
      transcriptScanStore(t.db, { ...entry, payload: { ...entry.payload, scan_meta: {} } }),
      (error: unknown) => error instanceof DbError && error.code === "23514",
    );
    const [{ n }] = await t.query<{ n: number }>(
      "select count(*)::int as n from public.transcript_scans",
    );
    assert.equal(n, 0);
    const [{ d }] = await t.query<{ d: number }>(
      "select count(*)::int as d from public.transcript_deliveries",
    );
    assert.equal(d, 1, "a failed store keeps the claim for its holder to release");
  });

  test("transcript_purge() deletes scans past the retention period and keeps the rest", async (t) => {
    await seedRulebook(t.db);
    const { accountId, integration } = await newIntegration(t);
    const ids = { accountId, integrationId: integration.integration_id };
    for (const key of ["d".repeat(64), "e".repeat(64)]) {
      const begin = await transcriptDeliveryBegin(t.db, {
        ...ids,
        idempotencyKey: key,
        leaseSeconds: 30,
      });
      await transcriptScanStore(
        t.db,
        scanEntry(begin.state === "claimed" ? begin.claim : "", ids, key),
      );
    }
    await t.query(
      "update public.transcript_scans set created_at = now() - interval '31 days' where idempotency_key = $1",
      ["d".repeat(64)],
    );
    assert.equal((await transcriptPurge(t.db, 30)).purged, 1);
    assert.equal((await transcriptPurge(t.db, 30)).purged, 0);
    const left = await t.query<{ k: string }>(
      "select idempotency_key as k from public.transcript_scans",
    );
    assert.deepEqual(left.map((row) => row.k), ["e".repeat(64)]);
    await assert.rejects(
      transcriptPurge(t.db, 0),
      (error: unknown) => error instanceof DbError && error.code === "22023",
    );
  });
}
