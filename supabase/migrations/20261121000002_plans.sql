-- Plans and their monthly quota of accepted audits (null means unlimited).
create table if not exists public.plans (
  plan text primary key check (plan in ('starter', 'pro', 'enterprise')),
  monthly_quota integer null check (monthly_quota is null or monthly_quota >= 0)
);

insert into public.plans (plan, monthly_quota) values
  ('starter', 1000),
  ('pro', 10000),
  ('enterprise', null)
on conflict (plan) do nothing;

alter table public.plans enable row level security;
revoke all on table public.plans from public, anon, authenticated;
