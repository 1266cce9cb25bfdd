-- Accounts. Only 'active' and 'trialing' are served by the API-key operations;
-- every other status is refused (402) by the handlers.
create table if not exists public.accounts (
  id uuid primary key default gen_random_uuid(),
  plan text not null references public.plans (plan),
  status text not null check (status in ('active', 'trialing', 'past_due', 'canceled', 'paused')),
  billing_interval text not null default 'month' check (billing_interval = 'month'),
  price_per_month_usd numeric(10, 2) null check (price_per_month_usd is null or price_per_month_usd >= 0),
  trial_end timestamptz null,
  created_at timestamptz not null default now()
);

alter table public.accounts enable row level security;
revoke all on table public.accounts from public, anon, authenticated;

-- The account object every account RPC returns.
create or replace function app_private.account_json(p_account public.accounts)
returns jsonb
language sql
stable
set search_path = ''
as $$
  select pg_catalog.jsonb_build_object(
    'account_id', p_account.id,
    'plan', p_account.plan,
    'status', p_account.status,
    'billing_interval', p_account.billing_interval,
    'price_per_month_usd', p_account.price_per_month_usd,
    'trial_end', app_private.iso_utc(p_account.trial_end),
    'created_at', app_private.iso_utc(p_account.created_at)
  )
$$;
revoke execute on function app_private.account_json(public.accounts) from public;
