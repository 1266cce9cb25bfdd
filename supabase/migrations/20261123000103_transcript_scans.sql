-- Stored transcript scans (webhookIngest): audit evidence of an account and
-- one of its integrations. Never the credential that sent it.
--
-- A scan row is written whole or not at all (transcript_scan_store), so no
-- failure leaves a partial scan. A delivery is identified by its
-- idempotency_key (SHA-256 of the conversation and its content, computed by
-- the caller): one stored scan per integration and key, so a retried delivery
-- returns the first result instead of storing a second one.
create table if not exists public.transcript_scans (
  id uuid primary key default gen_random_uuid(),
  account_id uuid not null references public.accounts (id) on delete cascade,
  integration_id uuid not null references public.webhook_integrations (id) on delete cascade,
  -- How the caller authenticated: its integration's credential, or the
  -- deployment's shared secret (the rollout's check of attribution reads it).
  auth_path text not null check (auth_path in ('credential', 'shared_secret')),
  idempotency_key text not null check (idempotency_key ~ '^[0-9a-f]{64}$'),
  source text not null check (pg_catalog.length(source) > 0),
  channel text null,
  -- The channel when the request named one, else the source.
  channel_origin text not null check (pg_catalog.length(channel_origin) > 0),
  external_conversation_id text null,
  -- What the transcript was evaluated under: the integration's settings then.
  jurisdictions text[] not null check (pg_catalog.cardinality(jurisdictions) > 0),
  industry text null,
  rulebook_version integer not null references public.rulebooks (version),
  grade text not null check (grade in ('A', 'B', 'C', 'D', 'F')),
  score numeric not null check (score between 0 and 100),
  critical_violations integer not null check (critical_violations >= 0),
  warnings integer not null check (warnings >= 0),
  passed_checks integer not null check (passed_checks >= 0),
  -- {messages, findings (with their evidence), passed, scan_meta: {rulebook_source, rulebook_version}}
  -- (coalesce: a check that is null passes, and a missing key yields null.)
  payload jsonb not null check (coalesce(
    pg_catalog.jsonb_typeof(payload -> 'messages') = 'array'
    and pg_catalog.jsonb_typeof(payload -> 'findings') = 'array'
    and payload -> 'scan_meta' ->> 'rulebook_source' = 'database',
    false
  )),
  created_at timestamptz not null default now(),
  unique (integration_id, idempotency_key)
);

create index if not exists transcript_scans_account_created_idx
  on public.transcript_scans (account_id, created_at desc);
create index if not exists transcript_scans_integration_created_idx
  on public.transcript_scans (integration_id, created_at desc);
create index if not exists transcript_scans_created_idx on public.transcript_scans (created_at);

alter table public.transcript_scans enable row level security;
revoke all on table public.transcript_scans from public, anon, authenticated;

-- Deliveries in flight: the claim of the one request that processes a
-- delivery while its duplicates wait for its result. A claim holds a lease;
-- a claim whose holder died is taken over once the lease has passed. The row
-- is removed when the scan is stored (in the same transaction) or when the
-- holder gives up, so the table holds only work in progress, never a scan.
create table if not exists public.transcript_deliveries (
  integration_id uuid not null references public.webhook_integrations (id) on delete cascade,
  idempotency_key text not null check (idempotency_key ~ '^[0-9a-f]{64}$'),
  claim uuid not null unique,
  lease_until timestamptz not null,
  primary key (integration_id, idempotency_key)
);

alter table public.transcript_deliveries enable row level security;
revoke all on table public.transcript_deliveries from public, anon, authenticated;

-- What a stored scan answers (contract 2.6, less success, processing_ms and scan_meta).
create or replace function app_private.transcript_scan_json(p_scan public.transcript_scans)
returns jsonb
language sql
stable
set search_path = ''
as $$
  select pg_catalog.jsonb_strip_nulls(pg_catalog.jsonb_build_object(
    'scan_result_id', p_scan.id,
    'channel_origin', p_scan.channel_origin,
    'external_conversation_id', p_scan.external_conversation_id
  )) || pg_catalog.jsonb_build_object(
    'grade', p_scan.grade,
    'score', p_scan.score,
    'critical_violations', p_scan.critical_violations,
    'warnings', p_scan.warnings,
    'passed_checks', p_scan.passed_checks
  )
$$;
revoke execute on function app_private.transcript_scan_json(public.transcript_scans) from public;
