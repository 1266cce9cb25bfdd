-- account_list: every account, oldest first, as account objects
-- {account_id, plan, status, billing_interval, price_per_month_usd, trial_end,
-- created_at}; [] when none. For operators (the admin CLI's `account list`,
-- e.g. to find the demo account again and issue it a new key).
create or replace function public.account_list()
returns jsonb
language sql
stable
security definer
set search_path = ''
as $$
  select coalesce(
    pg_catalog.jsonb_agg(app_private.account_json(a) order by a.created_at, a.id),
    '[]'::jsonb
  )
  from public.accounts a
$$;

revoke execute on function public.account_list() from public, anon, authenticated;
grant execute on function public.account_list() to service_role;
