import assert from "node:assert/strict";
import { PGlite } from "@electric-sql/pglite";
import { DbError } from "../../shared/db/db.ts";
import { migrate } from "../../shared/db/migrate.ts";
import { rpcStatement } from "../../shared/db/rpc_statement.ts";
import { createSupabaseDb, type RpcClient } from "../../shared/db/supabase_db.ts";
import { assertLoopbackUrl, dbTargets } from "../support/db.ts";

/** A supabase-js stand-in that records calls and answers with `reply`. */
function fakeClient(
  reply: () => { data: unknown; error: { message: string; code?: string } | null },
) {
  const calls: { name: string; args: Record<string, unknown> | undefined }[] = [];
  const client: RpcClient = {
    rpc(name, args) {
      calls.push({ name, args });
      return Promise.resolve(reply());
    },
  };
  return { client, calls };
}

Deno.test("createSupabaseDb() calls client.rpc with the same named arguments", async () => {
  const { client, calls } = fakeClient(() => ({ data: { version: 3 }, error: null }));
  const db = createSupabaseDb(client);
  const args = {
    p_version: 3,
    p_rules: [{ rule_key: "r" }],
    p_trial_end: new Date("2026-01-02T03:04:05.006Z"),
    p_missing: undefined,
    p_null: null,
  };
  assert.deepEqual(await db.rpc("rulebook_import", args), { version: 3 });
  assert.deepEqual(calls, [{
    name: "rulebook_import",
    args: {
      p_version: 3,
      p_rules: [{ rule_key: "r" }],
      p_trial_end: "2026-01-02T03:04:05.006Z",
      p_null: null,
    },
  }]);
  // The SQL adapters send the same arguments, by the same names.
  const statement = rpcStatement("rulebook_import", args);
  assert.equal(
    statement.text,
    "select public.rulebook_import(p_version => $1, p_rules => $2, p_trial_end => $3, p_null => $4) as result",
  );
  assert.deepEqual(statement.values, [3, '[{"rule_key":"r"}]', "2026-01-02T03:04:05.006Z", null]);
  await db.close();
});

Deno.test("createSupabaseDb() maps null data to null and {error} to DbError", async () => {
  let next: { data: unknown; error: { message: string; code?: string } | null } = {
    data: null,
    error: null,
  };
  const { client } = fakeClient(() => next);
  const db = createSupabaseDb(client);
  assert.equal(await db.rpc("rulebook_active"), null);
  next = { data: null, error: { message: "account not found", code: "P0002" } };
  await assert.rejects(db.rpc("account_get", { p_account_id: "x" }), (error: unknown) => {
    assert.ok(error instanceof DbError);
    assert.equal(error.message, "account not found");
    assert.equal(error.code, "P0002");
    return true;
  });
  next = {
    data: null,
    error: { message: 'invalid input syntax for type uuid: "SECRET-VALUE"', code: "22P02" },
  };
  await assert.rejects(
    db.rpc("account_get", { p_account_id: "SECRET-VALUE" }),
    (error: unknown) => {
      assert.ok(error instanceof DbError);
      assert.equal(error.code, "22P02");
      assert.ok(!error.message.includes("SECRET-VALUE"));
      return true;
    },
  );
  const throwing = createSupabaseDb({ rpc: () => Promise.reject(new TypeError("fetch failed")) });
  await assert.rejects(throwing.rpc("rulebook_active"), { name: "DbError" });
});

Deno.test("rpc() refuses names that are not lowercase SQL identifiers", async () => {
  const { client, calls } = fakeClient(() => ({ data: null, error: null }));
  const db = createSupabaseDb(client);
  for (
    const [name, args] of [
      ["drop table x; --", {}],
      ["Account_get", {}],
      ["account_get", { "p_a => 1); --": 1 }],
      ["", {}],
    ] as const
  ) {
    await assert.rejects(db.rpc(name, args), { name: "DbError", code: "42602" });
    assert.throws(() => rpcStatement(name, args), { name: "DbError", code: "42602" });
  }
  assert.equal(calls.length, 0);
});

Deno.test("assertLoopbackUrl() accepts loopback IPs only", () => {
  assertLoopbackUrl("postgres://postgres@127.0.0.1:5432/postgres");
  assertLoopbackUrl("postgresql://u@[::1]:5432/db");
  for (
    const url of [
      "postgres://postgres@localhost:5432/postgres",
      "postgres://postgres@10.0.0.1:5432/postgres",
      "postgres://postgres@db.example.com/postgres",
      "postgres://postgres@127.0.0.1/postgres?host=10.0.0.1",
      "http://127.0.0.1:5432/",
      "not a url",
    ]
  ) {
    assert.throws(() => assertLoopbackUrl(url), Error, url);
  }
});

for (const target of dbTargets()) {
  Deno.test(`driver errors become DbError without argument values [${target.name}]`, async () => {
    const t = await target.open();
    try {
      await assert.rejects(
        t.db.rpc("account_get", { p_account_id: "not-a-uuid-SECRET-VALUE" }),
        (error: unknown) => {
          assert.ok(error instanceof DbError);
          assert.equal(error.code, "22P02");
          assert.ok(!error.message.includes("SECRET-VALUE"), error.message);
          return true;
        },
      );
      await assert.rejects(t.db.rpc("no_such_function", { p_x: 1 }), (error: unknown) => {
        assert.ok(error instanceof DbError);
        assert.equal(error.code, "42883");
        return true;
      });
    } finally {
      await t.close();
    }
  });

  Deno.test(`migrate() records every migration file [${target.name}]`, async () => {
    const t = await target.open();
    try {
      const rows = await t.query<{ name: string }>(
        "select name from app_private.schema_migrations order by name",
      );
      const files = [...Deno.readDirSync(new URL("../../supabase/migrations/", import.meta.url))]
        .map((e) => e.name).filter((n) => n.endsWith(".sql")).sort();
      assert.deepEqual(rows.map((r) => r.name), files);
    } finally {
      await t.close();
    }
  });
}

Deno.test("migrate() on a migrated PGlite applies nothing; a changed file is refused", async () => {
  const pg = await PGlite.create();
  try {
    const first = await migrate(pg);
    assert.ok(first.length > 0);
    assert.deepEqual(await migrate(pg), []);
    await pg.query("update app_private.schema_migrations set sha256 = $1 where name = $2", [
      "0".repeat(64),
      first[0],
    ]);
    await assert.rejects(migrate(pg), /changed after it was applied/);
  } finally {
    await pg.close();
  }
});

for (const target of dbTargets({ poolSize: 1 })) {
  Deno.test(`db.rpc() answers from a function a migration replaced or re-created [${target.name}]`, async () => {
    // The postgres adapter prepares its statements; on its one connection the
    // statement below is prepared by the first calls and must follow the
    // function when it is replaced, then dropped and created again.
    const t = await target.open();
    try {
      const digest = "f".repeat(64);
      for (let n = 0; n < 6; n++) {
        assert.equal(await t.db.rpc("audit_key_account", { p_key_digest: digest }), null);
      }
      await t.query(`create or replace function public.audit_key_account(p_key_digest text)
        returns jsonb language sql security definer set search_path = ''
        as $$ select pg_catalog.jsonb_build_object('replaced', p_key_digest) $$`);
      assert.deepEqual(await t.db.rpc("audit_key_account", { p_key_digest: digest }), {
        replaced: digest,
      });
      await t.query("drop function public.audit_key_account(text)");
      await assert.rejects(t.db.rpc("audit_key_account", { p_key_digest: digest }), {
        name: "DbError",
      });
      await t.query(`create function public.audit_key_account(p_key_digest text)
        returns jsonb language sql security definer set search_path = ''
        as $$ select pg_catalog.jsonb_build_object('created', pg_catalog.length(p_key_digest)) $$`);
      assert.deepEqual(await t.db.rpc("audit_key_account", { p_key_digest: digest }), {
        created: 64,
      });
    } finally {
      await t.close();
    }
  });
}
