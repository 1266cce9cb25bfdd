-- The activity log shown to API-key holders (get_logs, export_audit): one row
-- per API-key request that reached an account, accepted or refused.
create table if not exists public.activity (
  id bigint generated always as identity primary key,
  account_id uuid not null references public.accounts (id) on delete cascade,
  created_at timestamptz not null default now(),
  endpoint_queried text not null check (pg_catalog.length(endpoint_queried) between 1 and 200),
  status_code integer not null check (status_code between 100 and 599),
  response_latency_ms numeric null check (response_latency_ms is null or response_latency_ms >= 0),
  plan text not null references public.plans (plan),
  is_agent boolean not null default false
);

create index if not exists activity_account_created_idx
  on public.activity (account_id, created_at desc);

alter table public.activity enable row level security;
revoke all on table public.activity from public, anon, authenticated;

-- The Activity object of the contract (section 2.8).
create or replace function app_private.activity_json(p_activity public.activity)
returns jsonb
language sql
stable
set search_path = ''
as $$
  select pg_catalog.jsonb_build_object(
    'timestamp', app_private.iso_utc(p_activity.created_at),
    'endpoint_queried', p_activity.endpoint_queried,
    'status_code', p_activity.status_code,
    'response_latency_ms', p_activity.response_latency_ms,
    'plan', p_activity.plan,
    'is_agent', p_activity.is_agent
  )
$$;
revoke execute on function app_private.activity_json(public.activity) from public;
