-- complianceAudit's Idempotency-Key, in the same transaction as the charge.
--
-- A client that saw a timeout or a 503 cannot know whether its audit was
-- charged: the transaction may have committed before the answer was lost.
-- Retrying with the same Idempotency-Key returns the first answer instead of
-- charging again. The key is remembered per account for 24 hours, with a
-- digest of the request (never the content) and the answer (verdict, scores,
-- statutes and remediation: rulebook text, never the content), and only for
-- an accepted audit: a refusal charges nothing, so it is not remembered.
create table if not exists public.audit_idempotency (
  account_id uuid not null references public.accounts (id) on delete cascade,
  -- SHA-256 (hex) of the Idempotency-Key header value.
  key_sha256 text not null check (key_sha256 ~ '^[0-9a-f]{64}$'),
  -- SHA-256 (hex) of the request's canonical form: a retry must send the same.
  request_sha256 text not null check (request_sha256 ~ '^[0-9a-f]{64}$'),
  created_at timestamptz not null default now(),
  audit_id uuid null references public.audits (id) on delete cascade,
  -- The first answer, less `usage`, and the usage it answered.
  response jsonb null,
  usage_count integer null,
  monthly_limit integer null,
  primary key (account_id, key_sha256)
);

create index if not exists audit_idempotency_account_created_idx
  on public.audit_idempotency (account_id, created_at);

alter table public.audit_idempotency enable row level security;
revoke all on table public.audit_idempotency from public, anon, authenticated;

-- How long a key is remembered. One place, so the window is written once.
create or replace function app_private.audit_idempotency_window()
returns interval
language sql
immutable
set search_path = ''
as $$
  select interval '24 hours'
$$;
revoke execute on function app_private.audit_idempotency_window() from public;

-- audit_record, now with an optional idempotency key. Without a key
-- (p_idempotency_key_sha256 null) it behaves exactly as before: the
-- conditional usage increment, and when accepted the audit row and its 200
-- activity row, in one transaction.
--
-- With a key, the key is claimed FIRST, in the same transaction:
-- - insert ... on conflict: a concurrent call with the same key waits here
--   until the first commits or rolls back, so concurrent retries charge once;
--   a row older than the window is taken over as new.
-- - Claimed (new key): the usual path; an accepted audit stores its answer
--   (p_response, plus the usage) on the key's row; a refusal at the quota
--   deletes the claim, so nothing is remembered.
-- - Already held, same request digest: nothing is charged or stored but the
--   call's 200 activity row; returns {accepted: true, replayed: true,
--   usage_count, monthly_limit, response} with the FIRST answer's usage.
-- - Already held, another request digest: changes nothing; returns
--   {accepted: false, conflict: true, ...}; the caller answers 400 and
--   records that refusal like any other.
--
-- Expired keys of the account are deleted on its keyed calls.
drop function if exists public.audit_record(
  uuid, text, integer, text, text, text, text, numeric, numeric, integer, text, numeric, boolean
);

create or replace function public.audit_record(
  p_account_id uuid,
  p_content_sha256 text,
  p_content_length integer,
  p_jurisdiction text,
  p_industry text,
  p_asset_url text,
  p_verdict text,
  p_risk_score numeric,
  p_penalty_exposure_usd numeric,
  p_rulebook_version integer,
  p_endpoint text,
  p_latency_ms numeric,
  p_is_agent boolean,
  p_idempotency_key_sha256 text default null,
  p_request_sha256 text default null,
  p_response jsonb default null
)
returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_plan text;
  v_limit integer;
  v_period date := app_private.current_period();
  v_count integer;
  v_accepted boolean := false;
  v_audit_id uuid;
  v_claimed boolean := false;
  v_held public.audit_idempotency;
begin
  select a.plan, p.monthly_quota into v_plan, v_limit
  from public.accounts a
  join public.plans p on p.plan = a.plan
  where a.id = p_account_id;
  if not found then
    raise exception 'account not found' using errcode = 'P0002';
  end if;

  if p_idempotency_key_sha256 is not null then
    if p_request_sha256 is null or p_response is null then
      raise exception 'an idempotency key needs the request digest and the response'
        using errcode = '22004';
    end if;

    insert into public.audit_idempotency as i (account_id, key_sha256, request_sha256)
    values (p_account_id, p_idempotency_key_sha256, p_request_sha256)
    on conflict (account_id, key_sha256) do update
      set request_sha256 = excluded.request_sha256,
          created_at = pg_catalog.now(),
          audit_id = null,
          response = null,
          usage_count = null,
          monthly_limit = null
      where i.created_at < pg_catalog.now() - app_private.audit_idempotency_window()
    returning true into v_claimed;
    v_claimed := coalesce(v_claimed, false);

    if not v_claimed then
      select * into v_held
      from public.audit_idempotency i
      where i.account_id = p_account_id and i.key_sha256 = p_idempotency_key_sha256;
      if v_held.request_sha256 is distinct from p_request_sha256 then
        return pg_catalog.jsonb_build_object(
          'accepted', false,
          'conflict', true,
          'usage_count', coalesce((
            select u.count from public.monthly_usage u
            where u.account_id = p_account_id and u.period = v_period
          ), 0),
          'monthly_limit', v_limit
        );
      end if;
      insert into public.activity (
        account_id, endpoint_queried, status_code, response_latency_ms, plan, is_agent
      ) values (
        p_account_id, p_endpoint, 200, p_latency_ms, v_plan, coalesce(p_is_agent, false)
      );
      return pg_catalog.jsonb_build_object(
        'accepted', true,
        'replayed', true,
        'usage_count', v_held.usage_count,
        'monthly_limit', v_held.monthly_limit,
        'response', v_held.response
      );
    end if;

    delete from public.audit_idempotency i
    where i.account_id = p_account_id
      and i.created_at < pg_catalog.now() - app_private.audit_idempotency_window();
  end if;

  if v_limit is null or v_limit > 0 then
    insert into public.monthly_usage as u (account_id, period, count)
    values (p_account_id, v_period, 1)
    on conflict (account_id, period) do update
      set count = u.count + 1
      where v_limit is null or u.count < v_limit
    returning u.count into v_count;
    v_accepted := found;
  end if;

  if v_accepted then
    insert into public.audits (
      account_id, content_sha256, content_length, jurisdiction, industry, asset_url,
      verdict, risk_score, penalty_exposure_usd, rulebook_version
    ) values (
      p_account_id, p_content_sha256, p_content_length, p_jurisdiction, p_industry, p_asset_url,
      p_verdict, p_risk_score, p_penalty_exposure_usd, p_rulebook_version
    )
    returning id into v_audit_id;
    insert into public.activity (
      account_id, endpoint_queried, status_code, response_latency_ms, plan, is_agent
    ) values (
      p_account_id, p_endpoint, 200, p_latency_ms, v_plan, coalesce(p_is_agent, false)
    );
    if v_claimed then
      update public.audit_idempotency i
      set audit_id = v_audit_id, response = p_response, usage_count = v_count,
          monthly_limit = v_limit
      where i.account_id = p_account_id and i.key_sha256 = p_idempotency_key_sha256;
    end if;
  else
    if v_claimed then
      delete from public.audit_idempotency i
      where i.account_id = p_account_id and i.key_sha256 = p_idempotency_key_sha256;
    end if;
    select u.count into v_count
    from public.monthly_usage u
    where u.account_id = p_account_id and u.period = v_period;
  end if;

  return pg_catalog.jsonb_build_object(
    'accepted', v_accepted,
    'usage_count', coalesce(v_count, 0),
    'monthly_limit', v_limit
  );
end
$$;

revoke execute on function public.audit_record(
  uuid, text, integer, text, text, text, text, numeric, numeric, integer, text, numeric, boolean,
  text, text, jsonb
) from public, anon, authenticated;
grant execute on function public.audit_record(
  uuid, text, integer, text, text, text, text, numeric, numeric, integer, text, numeric, boolean,
  text, text, jsonb
) to service_role;

-- service_ping: a cheap call that proves the database answers, its migrations
-- are applied and the caller may execute the service's RPCs (the local
-- server's start check).
create or replace function public.service_ping()
returns jsonb
language sql
stable
security definer
set search_path = ''
as $$
  select pg_catalog.jsonb_build_object('ok', true)
$$;
revoke execute on function public.service_ping() from public, anon, authenticated;
grant execute on function public.service_ping() to service_role;
