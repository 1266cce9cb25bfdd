-- Webhook integrations and their credentials (webhookIngest, contract 5.4-5.6).
--
-- An integration belongs to one account and names its provider (intercom,
-- zendesk, zapier, ...). It also records what its transcripts are evaluated
-- under, because a transcript request carries neither: a set of
-- jurisdictions (default {ALL}: every state's rules) and an optional industry
-- (default none: rules of every industry).
create table if not exists public.webhook_integrations (
  id uuid primary key default gen_random_uuid(),
  account_id uuid not null references public.accounts (id) on delete cascade,
  name text not null check (
    pg_catalog.length(name) between 1 and 100 and name = pg_catalog.btrim(name)
  ),
  provider text not null check (provider ~ '^[a-z0-9][a-z0-9._-]{0,39}$'),
  jurisdictions text[] not null default array['ALL']::text[] check (
    pg_catalog.cardinality(jurisdictions) between 1 and 11
    and jurisdictions <@ array['TN', 'CA', 'TX', 'CO', 'NY', 'FL', 'MA', 'AZ', 'UT', 'OR', 'ALL']::text[]
    and (pg_catalog.cardinality(jurisdictions) = 1 or not ('ALL' = any (jurisdictions)))
  ),
  industry text null check (
    industry is null or industry in ('healthcare', 'fintech', 'media', 'hr', 'retail', 'legaltech')
  ),
  created_at timestamptz not null default now(),
  unique (account_id, name)
);

alter table public.webhook_integrations enable row level security;
revoke all on table public.webhook_integrations from public, anon, authenticated;

-- Credentials: only the hex SHA-256 digest and a non-secret display prefix
-- are stored; the credential itself is shown once and never recoverable. An
-- integration has at most one active (unrevoked) credential: rotating revokes
-- the active one and stores the new one in one transaction, so the old
-- credential stops at once (no grace period). Revoked rows stay as history.
create table if not exists public.webhook_credentials (
  id uuid primary key default gen_random_uuid(),
  integration_id uuid not null references public.webhook_integrations (id) on delete cascade,
  credential_digest text not null unique check (credential_digest ~ '^[0-9a-f]{64}$'),
  credential_prefix text not null check (pg_catalog.length(credential_prefix) between 1 and 32),
  created_at timestamptz not null default now(),
  revoked_at timestamptz null
);

create unique index if not exists webhook_credentials_one_active_idx
  on public.webhook_credentials (integration_id) where revoked_at is null;

alter table public.webhook_credentials enable row level security;
revoke all on table public.webhook_credentials from public, anon, authenticated;

-- The integration object of the admin RPCs; the active credential appears as
-- its display prefix only, never its digest.
create or replace function app_private.webhook_integration_json(p_integration public.webhook_integrations)
returns jsonb
language sql
stable
set search_path = ''
as $$
  select pg_catalog.jsonb_build_object(
    'integration_id', p_integration.id,
    'account_id', p_integration.account_id,
    'name', p_integration.name,
    'provider', p_integration.provider,
    'jurisdictions', pg_catalog.to_jsonb(p_integration.jurisdictions),
    'industry', p_integration.industry,
    'created_at', app_private.iso_utc(p_integration.created_at),
    'credential', (
      select pg_catalog.jsonb_build_object(
        'prefix', c.credential_prefix,
        'created_at', app_private.iso_utc(c.created_at)
      )
      from public.webhook_credentials c
      where c.integration_id = p_integration.id and c.revoked_at is null
    )
  )
$$;
revoke execute on function app_private.webhook_integration_json(public.webhook_integrations) from public;

-- The caller of a webhook request: the integration, its account and what the
-- request path needs to decide (account standing, evaluation settings).
create or replace function app_private.webhook_caller_json(
  p_integration public.webhook_integrations,
  p_account public.accounts
)
returns jsonb
language sql
stable
set search_path = ''
as $$
  select pg_catalog.jsonb_build_object(
    'integration_id', p_integration.id,
    'account_id', p_account.id,
    'name', p_integration.name,
    'jurisdictions', pg_catalog.to_jsonb(p_integration.jurisdictions),
    'industry', p_integration.industry,
    'status', p_account.status,
    'trial_end', app_private.iso_utc(p_account.trial_end)
  )
$$;
revoke execute on function app_private.webhook_caller_json(public.webhook_integrations, public.accounts) from public;

-- Jurisdictions given as a jsonb array of strings (how every driver passes a
-- list) as text[]; null stays null. The table's check refuses bad values.
create or replace function app_private.jsonb_text_array(p_value jsonb)
returns text[]
language sql
immutable
set search_path = ''
as $$
  select case
    when p_value is null then null
    when pg_catalog.jsonb_typeof(p_value) <> 'array' then array[]::text[]
    else (select coalesce(pg_catalog.array_agg(e order by i), array[]::text[])
          from pg_catalog.jsonb_array_elements_text(p_value) with ordinality as t(e, i))
  end
$$;
revoke execute on function app_private.jsonb_text_array(jsonb) from public;
