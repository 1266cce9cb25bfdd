-- One row per accepted audit. The audited content is NEVER stored: only its
-- SHA-256 digest and length, next to the outcome and the rulebook version used.
create table if not exists public.audits (
  id uuid primary key default gen_random_uuid(),
  account_id uuid not null references public.accounts (id) on delete cascade,
  created_at timestamptz not null default now(),
  content_sha256 text not null check (content_sha256 ~ '^[0-9a-f]{64}$'),
  content_length integer not null check (content_length >= 0),
  jurisdiction text not null,
  industry text null,
  asset_url text null,
  verdict text not null check (verdict in ('GREEN', 'YELLOW', 'RED')),
  risk_score numeric not null check (risk_score between 0 and 100),
  penalty_exposure_usd numeric not null check (penalty_exposure_usd >= 0),
  rulebook_version integer not null references public.rulebooks (version)
);

create index if not exists audits_account_created_idx on public.audits (account_id, created_at desc);

alter table public.audits enable row level security;
revoke all on table public.audits from public, anon, authenticated;
