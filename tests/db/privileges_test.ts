import assert from "node:assert/strict";
import { dbTargets, type TestDatabase } from "../support/db.ts";

const SCHEMAS = ["public", "app_private"];

/** Every RPC of the schema: a new one must be added here, and pass these tests. */
const RPCS = [
  "account_create",
  "account_get",
  "account_list",
  "account_update",
  "activity_month",
  "activity_month_page",
  "activity_recent",
  "activity_record",
  "api_key_account",
  "api_key_create",
  "api_key_list",
  "api_key_revoke",
  "audit_key_account",
  "audit_key_account_batch",
  "audit_record",
  "audit_record_batch",
  "rulebook_activate",
  "rulebook_active",
  "rulebook_get",
  "rulebook_import",
  "rulebook_list",
  "rulebook_seal",
  "service_ping",
  "transcript_delivery_begin",
  "transcript_delivery_release",
  "transcript_purge",
  "transcript_scan_list",
  "transcript_scan_store",
  "webhook_credential_caller",
  "webhook_credential_revoke",
  "webhook_credential_rotate",
  "webhook_integration_create",
  "webhook_integration_list",
  "webhook_integration_update",
  "webhook_shared_caller",
  "website_scan_record",
];

/** Puts at least one row in every table, through the RPCs, as service code would. */
async function fillEveryTable(t: TestDatabase): Promise<void> {
  const account = await t.db.rpc<{ account_id: string }>("account_create", {
    p_plan: "starter",
    p_status: "active",
    p_trial_end: null,
    p_price_per_month_usd: 49,
  });
  await t.db.rpc("api_key_create", {
    p_account_id: account.account_id,
    p_key_digest: "a".repeat(64),
    p_key_prefix: "cas_live_aaaa",
  });
  await t.db.rpc("rulebook_import", {
    p_version: 1,
    p_rules: [{
      rule_key: "r1",
      applies_to: ["content"],
      jurisdictions: ["CA"],
      industries: [],
      detector: {},
      severity: "critical",
      weight: 1,
      tier_key: "t",
      citation: "c",
      penalty_usd: 1,
      title: "t",
      plain_english: "p",
      category: "c",
      remediation_title: "r",
      remediation: "r",
    }],
  });
  await t.db.rpc("audit_record", {
    p_account_id: account.account_id,
    p_content_sha256: "b".repeat(64),
    p_content_length: 5,
    p_jurisdiction: "CA",
    p_industry: null,
    p_asset_url: null,
    p_verdict: "GREEN",
    p_risk_score: 0,
    p_penalty_exposure_usd: 0,
    p_rulebook_version: 1,
    p_endpoint: "complianceAudit",
    p_latency_ms: 3.5,
    p_is_agent: false,
    // With an Idempotency-Key, so audit_idempotency has its row.
    p_idempotency_key_sha256: "f".repeat(64),
    p_request_sha256: "0".repeat(64),
    p_response: { verdict: "GREEN" },
  });
  await t.db.rpc("website_scan_record", {
    p_target_origin: "https://shop.example.test",
    p_status_code: 200,
    p_score: 60,
    p_grade: "D",
    p_critical_count: 1,
    p_warning_count: 0,
    p_passed_count: 2,
    p_advisory_count: 0,
    p_pages_scanned: 3,
    p_triggered_rules: ["r1"],
    p_rulebook_version: 1,
    p_engine_version: "2.0.0",
    p_duration_ms: 812.5,
  });
  const integration = await t.db.rpc<{ integration_id: string }>("webhook_integration_create", {
    p_account_id: account.account_id,
    p_name: "intercom",
    p_provider: "intercom",
    p_credential_digest: "c".repeat(64),
    p_credential_prefix: "cas_whk_cccc",
  });
  // One delivery left in flight, one stored as a scan.
  await t.db.rpc("transcript_delivery_begin", {
    p_integration_id: integration.integration_id,
    p_idempotency_key: "d".repeat(64),
  });
  const { claim } = await t.db.rpc<{ claim: string }>("transcript_delivery_begin", {
    p_integration_id: integration.integration_id,
    p_idempotency_key: "e".repeat(64),
  });
  await t.db.rpc("transcript_scan_store", {
    p_claim: claim,
    p_account_id: account.account_id,
    p_integration_id: integration.integration_id,
    p_auth_path: "credential",
    p_idempotency_key: "e".repeat(64),
    p_source: "intercom",
    p_channel: null,
    p_channel_origin: "intercom",
    p_external_conversation_id: null,
    p_jurisdictions: ["ALL"],
    p_industry: null,
    p_rulebook_version: 1,
    p_grade: "A",
    p_score: 100,
    p_critical_violations: 0,
    p_warnings: 0,
    p_passed_checks: 1,
    p_payload: { messages: [], findings: [], scan_meta: { rulebook_source: "database" } },
  });
}

async function tables(t: TestDatabase): Promise<{ schema: string; name: string }[]> {
  return await t.query<{ schema: string; name: string }>(
    `select schemaname as schema, tablename as name from pg_catalog.pg_tables
     where schemaname = any($1::text[]) order by 1, 2`,
    [`{${SCHEMAS.join(",")}}`],
  );
}

async function functions(
  t: TestDatabase,
  schema: string,
): Promise<{ name: string; nargs: number }[]> {
  return await t.query<{ name: string; nargs: number }>(
    `select p.proname as name, p.pronargs::int as nargs
     from pg_catalog.pg_proc p join pg_catalog.pg_namespace n on n.oid = p.pronamespace
     where n.nspname = $1 and p.prokind = 'f' order by 1`,
    [schema],
  );
}

async function assertPermissionDenied(t: TestDatabase, sql: string): Promise<void> {
  await assert.rejects(
    t.query(sql),
    (error: unknown) => {
      assert.equal((error as { code?: string }).code, "42501", `${sql}: ${error}`);
      return true;
    },
    `${sql} must be refused`,
  );
}

for (const target of dbTargets()) {
  Deno.test(`anon and authenticated read no row of any table [${target.name}]`, async () => {
    const t = await target.open();
    try {
      await fillEveryTable(t);
      const all = await tables(t);
      assert.ok(all.length >= 9, "expected the schema's tables");
      for (const { schema, name } of all) {
        const [{ n }] = await t.query<{ n: number }>(
          `select count(*)::int as n from ${schema}.${name}`,
        );
        assert.ok(n > 0, `${schema}.${name} has a row as owner`);
      }
      for (const role of ["anon", "authenticated"]) {
        await t.query(`set role ${role}`);
        try {
          for (const { schema, name } of all) {
            await assertPermissionDenied(t, `select * from ${schema}.${name}`);
          }
        } finally {
          await t.query("reset role");
        }
      }
    } finally {
      await t.close();
    }
  });

  Deno.test(`anon and authenticated execute no function [${target.name}]`, async () => {
    const t = await target.open();
    try {
      await fillEveryTable(t);
      for (const schema of SCHEMAS) {
        const fns = await functions(t, schema);
        assert.ok(fns.length > 0);
        for (const role of ["anon", "authenticated"]) {
          await t.query(`set role ${role}`);
          try {
            for (const { name, nargs } of fns) {
              const args = Array.from({ length: nargs }, () => "null").join(", ");
              await assertPermissionDenied(t, `select ${schema}.${name}(${args})`);
            }
          } finally {
            await t.query("reset role");
          }
        }
      }
    } finally {
      await t.close();
    }
  });

  Deno.test(`only service_role may execute the public RPCs [${target.name}]`, async () => {
    const t = await target.open();
    try {
      const rows = await t.query<
        { name: string; anon: boolean; authenticated: boolean; service: boolean; pub: boolean }
      >(
        `select p.proname as name,
           pg_catalog.has_function_privilege('anon', p.oid, 'execute') as anon,
           pg_catalog.has_function_privilege('authenticated', p.oid, 'execute') as authenticated,
           pg_catalog.has_function_privilege('service_role', p.oid, 'execute') as service,
           exists (
             select 1 from pg_catalog.aclexplode(
               coalesce(p.proacl, pg_catalog.acldefault('f', p.proowner))
             ) a where a.grantee = 0 and a.privilege_type = 'EXECUTE'
           ) as pub
         from pg_catalog.pg_proc p join pg_catalog.pg_namespace n on n.oid = p.pronamespace
         where n.nspname = 'public' order by 1`,
      );
      assert.deepEqual(rows.map((row) => row.name), RPCS);
      for (const row of rows) {
        assert.deepEqual(
          { name: row.name, anon: row.anon, authenticated: row.authenticated, pub: row.pub },
          { name: row.name, anon: false, authenticated: false, pub: false },
        );
        assert.equal(row.service, true, `${row.name} executable by service_role`);
      }
    } finally {
      await t.close();
    }
  });

  Deno.test(`every table has row level security enabled [${target.name}]`, async () => {
    const t = await target.open();
    try {
      const rows = await t.query<{ name: string; rls: boolean }>(
        `select n.nspname || '.' || c.relname as name, c.relrowsecurity as rls
         from pg_catalog.pg_class c join pg_catalog.pg_namespace n on n.oid = c.relnamespace
         where c.relkind in ('r', 'p') and n.nspname = any($1::text[]) order by 1`,
        [`{${SCHEMAS.join(",")}}`],
      );
      assert.ok(rows.length >= 9);
      for (const row of rows) assert.equal(row.rls, true, `${row.name} has RLS`);
      const policies = await t.query<{ n: number }>(
        `select count(*)::int as n from pg_catalog.pg_policies where schemaname = any($1::text[])`,
        [`{${SCHEMAS.join(",")}}`],
      );
      assert.equal(policies[0].n, 0, "no policy opens a table to an API role");
    } finally {
      await t.close();
    }
  });

  Deno.test(
    `every public function is security definer, search_path '', returns jsonb [${target.name}]`,
    async () => {
      const t = await target.open();
      try {
        const rows = await t.query<
          { name: string; definer: boolean; config: string[] | null; returns: string }
        >(
          `select p.proname as name, p.prosecdef as definer, p.proconfig as config,
             pg_catalog.format_type(p.prorettype, null) as returns
           from pg_catalog.pg_proc p join pg_catalog.pg_namespace n on n.oid = p.pronamespace
           where n.nspname = 'public' order by 1`,
        );
        assert.deepEqual(rows.map((row) => row.name), RPCS);
        for (const row of rows) {
          assert.equal(row.definer, true, `${row.name} is security definer`);
          assert.ok(
            (row.config ?? []).includes('search_path=""'),
            `${row.name} sets search_path = '' (${row.config})`,
          );
          assert.equal(row.returns, "jsonb", `${row.name} returns jsonb`);
        }
      } finally {
        await t.close();
      }
    },
  );
  Deno.test(
    `complianceAudit's warm path keeps its plans between calls [${target.name}]`,
    async () => {
      const t = await target.open();
      try {
        // The two RPCs of a warm audit are plpgsql: their statements' plans are
        // cached per session.
        const rpcs = await t.query<{ name: string; language: string }>(
          `select p.proname as name, l.lanname as language
           from pg_catalog.pg_proc p
           join pg_catalog.pg_namespace n on n.oid = p.pronamespace
           join pg_catalog.pg_language l on l.oid = p.prolang
           where n.nspname = 'public' and p.proname in (
             'audit_key_account', 'audit_key_account_batch', 'audit_record', 'audit_record_batch'
           )
           order by 1`,
        );
        assert.deepEqual(rpcs.map((row) => ({ name: row.name, language: row.language })), [
          { name: "audit_key_account", language: "plpgsql" },
          { name: "audit_key_account_batch", language: "plpgsql" },
          { name: "audit_record", language: "plpgsql" },
          { name: "audit_record_batch", language: "plpgsql" },
        ]);
        // The SQL helpers their statements call are inlined into those plans,
        // not called (and planned again) on every execution: a plan that
        // still names the function would show it here.
        const plan = await t.query<{ "QUERY PLAN": string }>(
          `explain verbose select app_private.current_period(),
             app_private.iso_utc(pg_catalog.now()), app_private.audit_idempotency_window()`,
        );
        const text = plan.map((row) => row["QUERY PLAN"]).join("\n");
        for (const helper of ["current_period", "iso_utc", "audit_idempotency_window"]) {
          assert.ok(!text.includes(helper), `${helper} is inlined: ${text}`);
        }
        assert.match(text, /date_trunc/);
        assert.match(text, /to_char/);
      } finally {
        await t.close();
      }
    },
  );
}
