-- Accepted audits per account and UTC calendar month. `period` is the first
-- day of the month in UTC. The count only moves through audit_record, which
-- increments it conditionally so that it never exceeds the plan's quota.
create table if not exists public.monthly_usage (
  account_id uuid not null references public.accounts (id) on delete cascade,
  period date not null check (pg_catalog.date_part('day', period) = 1),
  count integer not null default 0 check (count >= 0),
  primary key (account_id, period)
);

alter table public.monthly_usage enable row level security;
revoke all on table public.monthly_usage from public, anon, authenticated;

-- The first day of the current month in UTC, whatever the session time zone.
create or replace function app_private.current_period()
returns date
language sql
stable
set search_path = ''
as $$
  select pg_catalog.date_trunc('month', pg_catalog.now() at time zone 'UTC')::date
$$;
revoke execute on function app_private.current_period() from public;
