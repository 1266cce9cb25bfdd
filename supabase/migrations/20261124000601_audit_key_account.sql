-- audit_key_account: api_key_account's answer plus the active rulebook's
-- version, so that complianceAudit authenticates and learns which rulebook to
-- apply in ONE round trip (issue 12 item 2). The rulebook's body is read
-- (rulebook_get) only when the per-isolate cache, keyed by version, misses.
--
-- Null when no key has this digest or the key is revoked. Otherwise
-- {account_id, plan, status, billing_interval, price_per_month_usd, trial_end,
--  monthly_limit (null = unlimited), usage_count (accepted audits this UTC
--  month), active_rulebook_version (null when no rulebook is active)}.
--
-- plpgsql rather than sql: a `security definer` SQL function with a `set`
-- clause is never inlined and is planned again on every call, while plpgsql
-- keeps its statement's plan for the session (connection).
create or replace function public.audit_key_account(p_key_digest text)
returns jsonb
language plpgsql
stable
security definer
set search_path = ''
as $$
begin
  return (
    select pg_catalog.jsonb_build_object(
      'account_id', a.id,
      'plan', a.plan,
      'status', a.status,
      'billing_interval', a.billing_interval,
      'price_per_month_usd', a.price_per_month_usd,
      'trial_end', app_private.iso_utc(a.trial_end),
      'monthly_limit', p.monthly_quota,
      'usage_count', coalesce(u.count, 0),
      'active_rulebook_version', (
        select r.version from public.rulebooks r where r.status = 'active'
      )
    )
    from public.api_keys k
    join public.accounts a on a.id = k.account_id
    join public.plans p on p.plan = a.plan
    left join public.monthly_usage u
      on u.account_id = a.id and u.period = app_private.current_period()
    where k.key_digest = p_key_digest and k.revoked_at is null
  );
end
$$;

revoke execute on function public.audit_key_account(text) from public, anon, authenticated;
grant execute on function public.audit_key_account(text) to service_role;
