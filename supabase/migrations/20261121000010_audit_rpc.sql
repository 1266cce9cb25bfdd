-- RPCs of the API-key request path: key lookup and the atomic audit record.

-- api_key_account: the account behind an API key, by the key's hex SHA-256
-- digest. Null when no key has this digest or the key is revoked (callers
-- answer both with the same 401). Otherwise
-- {account_id, plan, status, billing_interval, price_per_month_usd, trial_end,
--  monthly_limit (null = unlimited), usage_count (accepted audits this UTC month)}.
-- The status is returned as stored: refusing inactive accounts is the caller's.
create or replace function public.api_key_account(p_key_digest text)
returns jsonb
language sql
stable
security definer
set search_path = ''
as $$
  select pg_catalog.jsonb_build_object(
    'account_id', a.id,
    'plan', a.plan,
    'status', a.status,
    'billing_interval', a.billing_interval,
    'price_per_month_usd', a.price_per_month_usd,
    'trial_end', app_private.iso_utc(a.trial_end),
    'monthly_limit', p.monthly_quota,
    'usage_count', coalesce(u.count, 0)
  )
  from public.api_keys k
  join public.accounts a on a.id = k.account_id
  join public.plans p on p.plan = a.plan
  left join public.monthly_usage u
    on u.account_id = a.id and u.period = app_private.current_period()
  where k.key_digest = p_key_digest and k.revoked_at is null
$$;

-- audit_record: the usage increment, the audit row and the activity row of
-- one audit, in ONE transaction (one function call).
--
-- Quota: the increment of this UTC month's monthly_usage row is conditional
-- (insert ... on conflict do update ... where count < limit). The row lock
-- taken by the upsert serialises concurrent calls for the same account, and
-- each re-checks the committed count, so N concurrent calls with k units of
-- quota left accept exactly k: the count never exceeds the plan's quota.
-- A quota of 0 accepts nothing (the first-insert path is never taken).
--
-- Accepted: inserts the audit (digest and length only, never the content) and
-- an activity row with status 200; returns
-- {accepted: true, usage_count, monthly_limit}.
-- Quota reached: inserts only an activity row with status 429; returns
-- {accepted: false, usage_count, monthly_limit}.
-- Raises P0002 when the account does not exist.
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
  p_is_agent boolean
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
begin
  select a.plan, p.monthly_quota into v_plan, v_limit
  from public.accounts a
  join public.plans p on p.plan = a.plan
  where a.id = p_account_id;
  if not found then
    raise exception 'account not found' using errcode = 'P0002';
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
    );
  else
    select u.count into v_count
    from public.monthly_usage u
    where u.account_id = p_account_id and u.period = v_period;
  end if;

  insert into public.activity (
    account_id, endpoint_queried, status_code, response_latency_ms, plan, is_agent
  ) values (
    p_account_id, p_endpoint, case when v_accepted then 200 else 429 end, p_latency_ms, v_plan,
    coalesce(p_is_agent, false)
  );

  return pg_catalog.jsonb_build_object(
    'accepted', v_accepted,
    'usage_count', coalesce(v_count, 0),
    'monthly_limit', v_limit
  );
end
$$;

revoke execute on function public.api_key_account(text) from public, anon, authenticated;
revoke execute on function public.audit_record(uuid, text, integer, text, text, text, text, numeric, numeric, integer, text, numeric, boolean) from public, anon, authenticated;

grant execute on function public.api_key_account(text) to service_role;
grant execute on function public.audit_record(uuid, text, integer, text, text, text, text, numeric, numeric, integer, text, numeric, boolean) to service_role;
