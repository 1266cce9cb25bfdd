-- audit_record no longer records the quota refusal.
--
-- Every refusal of complianceAudit (400, 402, 429 rate_limited, 503) is
-- recorded by the request path in one place, after the fact; the quota
-- refusal was the one exception, written inside this function, so the caller
-- had to know which outcomes the RPC had recorded. Now the function records
-- only what must be atomic with the usage increment: the accepted call (its
-- usage, its audit row and its 200 activity row, one transaction). A refusal
-- at the quota changes nothing and returns {accepted: false, ...}; the caller
-- records it like every other refusal.
--
-- Quota: the increment of this UTC month's monthly_usage row is conditional
-- (insert ... on conflict do update ... where count < limit). The row lock
-- taken by the upsert serialises concurrent calls for the same account, and
-- each re-checks the committed count, so N concurrent calls with k units of
-- quota left accept exactly k: the count never exceeds the plan's quota.
-- A quota of 0 accepts nothing (the first-insert path is never taken).
-- Raises P0002 when the account does not exist. Same signature and grants as
-- before (create or replace keeps them).
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
    insert into public.activity (
      account_id, endpoint_queried, status_code, response_latency_ms, plan, is_agent
    ) values (
      p_account_id, p_endpoint, 200, p_latency_ms, v_plan, coalesce(p_is_agent, false)
    );
  else
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
