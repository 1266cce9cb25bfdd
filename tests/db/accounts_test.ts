import assert from "node:assert/strict";
import { dbTargets } from "../support/db.ts";

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

interface Account {
  account_id: string;
  plan: string;
  status: string;
  billing_interval: string;
  price_per_month_usd: number | null;
  trial_end: string | null;
  created_at: string;
}

for (const target of dbTargets()) {
  Deno.test(`account_create(), account_get(), account_update() round-trip [${target.name}]`, async () => {
    const t = await target.open();
    try {
      const created = await t.db.rpc<Account>("account_create", {
        p_plan: "pro",
        p_status: "trialing",
        p_trial_end: new Date("2026-12-01T10:00:00Z"),
        p_price_per_month_usd: 99.5,
      });
      assert.match(created.account_id, /^[0-9a-f-]{36}$/);
      assert.match(created.created_at, ISO);
      assert.deepEqual({ ...created, account_id: "", created_at: "" }, {
        account_id: "",
        created_at: "",
        plan: "pro",
        status: "trialing",
        billing_interval: "month",
        price_per_month_usd: 99.5,
        trial_end: "2026-12-01T10:00:00.000Z",
      });
      assert.deepEqual(await t.db.rpc("account_get", { p_account_id: created.account_id }), {
        ...created,
        usage_count: 0,
        monthly_limit: 10000,
      });
      const updated = await t.db.rpc<Account>("account_update", {
        p_account_id: created.account_id,
        p_plan: "enterprise",
        p_status: null,
        p_trial_end: null,
        p_clear_trial_end: true,
      });
      assert.deepEqual(updated, { ...created, plan: "enterprise", trial_end: null });
      const active = await t.db.rpc<Account>("account_update", {
        p_account_id: created.account_id,
        p_plan: null,
        p_status: "active",
        p_trial_end: "2027-01-01T00:00:00Z",
        p_clear_trial_end: false,
      });
      assert.deepEqual(active, {
        ...updated,
        status: "active",
        trial_end: "2027-01-01T00:00:00.000Z",
      });
      const got = await t.db.rpc<{ monthly_limit: number | null }>("account_get", {
        p_account_id: created.account_id,
      });
      assert.equal(got.monthly_limit, null, "enterprise is unlimited");
      assert.equal(await t.db.rpc("account_get", { p_account_id: crypto.randomUUID() }), null);
      await assert.rejects(
        t.db.rpc("account_update", {
          p_account_id: crypto.randomUUID(),
          p_plan: null,
          p_status: "paused",
          p_trial_end: null,
          p_clear_trial_end: false,
        }),
        { name: "DbError", code: "P0002" },
      );
      for (const args of [{ p_plan: "gold" }, { p_plan: "starter", p_status: "deleted" }]) {
        await assert.rejects(
          t.db.rpc("account_create", {
            p_status: "active",
            p_trial_end: null,
            p_price_per_month_usd: null,
            ...args,
          }),
          { name: "DbError", code: "22023" },
        );
      }
    } finally {
      await t.close();
    }
  });

  Deno.test(`api_key_account() finds live keys only [${target.name}]`, async () => {
    const t = await target.open();
    try {
      const account = await t.db.rpc<Account>("account_create", {
        p_plan: "starter",
        p_status: "active",
        p_trial_end: null,
        p_price_per_month_usd: 19,
      });
      const digest = "d".repeat(64);
      const key = await t.db.rpc<Record<string, unknown>>("api_key_create", {
        p_account_id: account.account_id,
        p_key_digest: digest,
        p_key_prefix: "cas_live_dddd",
      });
      assert.deepEqual(Object.keys(key).sort(), [
        "account_id",
        "created_at",
        "key_id",
        "key_prefix",
      ]);
      assert.equal(key.account_id, account.account_id);
      assert.equal(key.key_prefix, "cas_live_dddd");
      await t.query(
        `insert into public.monthly_usage (account_id, period, count)
         values ($1, pg_catalog.date_trunc('month', now() at time zone 'UTC')::date, 7),
                ($1, date '2000-01-01', 999)`,
        [account.account_id],
      );
      assert.deepEqual(await t.db.rpc("api_key_account", { p_key_digest: digest }), {
        account_id: account.account_id,
        plan: "starter",
        status: "active",
        billing_interval: "month",
        price_per_month_usd: 19,
        trial_end: null,
        monthly_limit: 1000,
        usage_count: 7,
      });
      assert.equal(await t.db.rpc("api_key_account", { p_key_digest: "e".repeat(64) }), null);
      await assert.rejects(
        t.db.rpc("api_key_create", {
          p_account_id: account.account_id,
          p_key_digest: digest,
          p_key_prefix: "cas_live_dddd",
        }),
        { name: "DbError", code: "23505" },
      );
      await assert.rejects(
        t.db.rpc("api_key_create", {
          p_account_id: account.account_id,
          p_key_digest: "NOT-HEX",
          p_key_prefix: "cas_live_xxxx",
        }),
        { name: "DbError", code: "22023" },
      );
      assert.deepEqual(await t.db.rpc("api_key_revoke", { p_key_prefix: "cas_live_dddd" }), {
        revoked: 1,
      });
      assert.deepEqual(await t.db.rpc("api_key_revoke", { p_key_prefix: "cas_live_dddd" }), {
        revoked: 0,
      });
      assert.equal(await t.db.rpc("api_key_account", { p_key_digest: digest }), null);
      const keys = await t.db.rpc<Record<string, unknown>[]>("api_key_list", {
        p_account_id: account.account_id,
      });
      assert.equal(keys.length, 1);
      assert.deepEqual(Object.keys(keys[0]).sort(), [
        "created_at",
        "key_id",
        "key_prefix",
        "revoked_at",
      ]);
      assert.match(String(keys[0].revoked_at), ISO);
      assert.deepEqual(await t.db.rpc("api_key_list", { p_account_id: crypto.randomUUID() }), []);
    } finally {
      await t.close();
    }
  });
}
