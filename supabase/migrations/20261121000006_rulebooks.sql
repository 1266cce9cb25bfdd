-- The rulebook is data. A version is imported as 'draft', activated (exactly
-- one version is active at any time, enforced by a partial unique index) and
-- retired when another version is activated. Rules of a version never change
-- after import: a change is a new version.
create table if not exists public.rulebooks (
  version integer primary key check (version > 0),
  status text not null default 'draft' check (status in ('draft', 'active', 'retired')),
  published_at timestamptz null,
  created_at timestamptz not null default now()
);

create unique index if not exists rulebooks_one_active_idx
  on public.rulebooks ((status)) where status = 'active';

alter table public.rulebooks enable row level security;
revoke all on table public.rulebooks from public, anon, authenticated;

create table if not exists public.rules (
  rulebook_version integer not null references public.rulebooks (version) on delete cascade,
  rule_key text not null check (rule_key ~ '^[A-Za-z0-9_.:-]{1,100}$'),
  applies_to text[] not null check (
    pg_catalog.cardinality(applies_to) > 0
    and applies_to <@ array['content', 'website', 'transcript']::text[]
  ),
  jurisdictions text[] not null check (pg_catalog.array_position(jurisdictions, null) is null),
  industries text[] not null check (pg_catalog.array_position(industries, null) is null),
  detector jsonb not null check (pg_catalog.jsonb_typeof(detector) = 'object'),
  severity text not null check (pg_catalog.length(severity) > 0),
  weight integer not null check (weight >= 0),
  tier_key text not null,
  citation text not null,
  penalty_usd numeric not null check (penalty_usd >= 0),
  statute_codes text[] null check (pg_catalog.array_position(statute_codes, null) is null),
  title text not null,
  plain_english text not null,
  category text not null,
  remediation_title text not null,
  remediation text not null,
  primary key (rulebook_version, rule_key)
);

alter table public.rules enable row level security;
revoke all on table public.rules from public, anon, authenticated;
