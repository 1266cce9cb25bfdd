-- RPCs of webhook integrations and credentials: the operators' lifecycle
-- (admin CLI) and the two lookups of the request path. Every RPC: security
-- definer, search_path '', returns jsonb, executable by service_role only.

-- Refuses (22023) jurisdictions that are not a non-empty set of the
-- contract's values with ALL alone, and an industry outside the contract's.
create or replace function app_private.webhook_settings_check(p_jurisdictions text[], p_industry text)
returns void
language plpgsql
immutable
set search_path = ''
as $$
begin
  if p_jurisdictions is not null and (
    pg_catalog.cardinality(p_jurisdictions) not between 1 and 11
    or not (p_jurisdictions <@ array['TN', 'CA', 'TX', 'CO', 'NY', 'FL', 'MA', 'AZ', 'UT', 'OR', 'ALL']::text[])
    or (pg_catalog.cardinality(p_jurisdictions) > 1 and 'ALL' = any (p_jurisdictions))
  ) then
    raise exception 'jurisdictions must be ALL or a list of the contract''s states' using errcode = '22023';
  end if;
  if p_industry is not null
    and p_industry not in ('healthcare', 'fintech', 'media', 'hr', 'retail', 'legaltech') then
    raise exception 'unknown industry' using errcode = '22023';
  end if;
end
$$;
revoke execute on function app_private.webhook_settings_check(text[], text) from public;

-- Refuses (22023) a digest that is not 64 lowercase hex characters or a
-- display prefix outside 1 to 32 characters.
create or replace function app_private.webhook_credential_check(p_digest text, p_prefix text)
returns void
language plpgsql
immutable
set search_path = ''
as $$
begin
  if p_digest is null or p_digest !~ '^[0-9a-f]{64}$' then
    raise exception 'credential digest must be 64 lowercase hex characters' using errcode = '22023';
  end if;
  if p_prefix is null or pg_catalog.length(p_prefix) not between 1 and 32 then
    raise exception 'credential prefix must be 1 to 32 characters' using errcode = '22023';
  end if;
end
$$;
revoke execute on function app_private.webhook_credential_check(text, text) from public;

-- webhook_integration_create: an integration of an account with its first
-- credential (digest and display prefix), in one transaction. Returns the
-- integration object {integration_id, account_id, name, provider,
-- jurisdictions, industry, created_at, credential: {prefix, created_at}}.
-- Jurisdictions default to ["ALL"], industry to none. Raises P0002 for an
-- unknown account, 23505 when the account has an integration of this name or
-- the digest exists, 22023 for a malformed value.
create or replace function public.webhook_integration_create(
  p_account_id uuid,
  p_name text,
  p_provider text,
  p_credential_digest text,
  p_credential_prefix text,
  p_jurisdictions jsonb default null,
  p_industry text default null
)
returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_jurisdictions text[] := coalesce(app_private.jsonb_text_array(p_jurisdictions), array['ALL']::text[]);
  v_integration public.webhook_integrations;
begin
  perform app_private.webhook_settings_check(v_jurisdictions, p_industry);
  perform app_private.webhook_credential_check(p_credential_digest, p_credential_prefix);
  if p_name is null or pg_catalog.length(p_name) not between 1 and 100 or p_name <> pg_catalog.btrim(p_name) then
    raise exception 'integration name must be 1 to 100 characters without surrounding spaces' using errcode = '22023';
  end if;
  if p_provider is null or p_provider !~ '^[a-z0-9][a-z0-9._-]{0,39}$' then
    raise exception 'provider must be a lowercase name such as intercom or zapier' using errcode = '22023';
  end if;
  if not exists (select 1 from public.accounts where id = p_account_id) then
    raise exception 'account not found' using errcode = 'P0002';
  end if;
  insert into public.webhook_integrations (account_id, name, provider, jurisdictions, industry)
  values (p_account_id, p_name, p_provider, v_jurisdictions, p_industry)
  on conflict (account_id, name) do nothing
  returning * into v_integration;
  if not found then
    raise exception 'the account already has an integration of this name' using errcode = '23505';
  end if;
  insert into public.webhook_credentials (integration_id, credential_digest, credential_prefix)
  values (v_integration.id, p_credential_digest, p_credential_prefix);
  return app_private.webhook_integration_json(v_integration);
end
$$;

-- webhook_integration_update: changes the provider, the jurisdictions (a
-- jsonb array) or the industry (p_clear_industry = true removes it); null
-- arguments leave a field unchanged. Returns the integration object. Raises
-- P0002 for an unknown integration, 22023 for a malformed value.
create or replace function public.webhook_integration_update(
  p_integration_id uuid,
  p_provider text default null,
  p_jurisdictions jsonb default null,
  p_industry text default null,
  p_clear_industry boolean default false
)
returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_jurisdictions text[] := app_private.jsonb_text_array(p_jurisdictions);
  v_integration public.webhook_integrations;
begin
  perform app_private.webhook_settings_check(v_jurisdictions, p_industry);
  if p_provider is not null and p_provider !~ '^[a-z0-9][a-z0-9._-]{0,39}$' then
    raise exception 'provider must be a lowercase name such as intercom or zapier' using errcode = '22023';
  end if;
  update public.webhook_integrations
  set provider = coalesce(p_provider, provider),
      jurisdictions = coalesce(v_jurisdictions, jurisdictions),
      industry = case when coalesce(p_clear_industry, false) then null else coalesce(p_industry, industry) end
  where id = p_integration_id
  returning * into v_integration;
  if not found then
    raise exception 'integration not found' using errcode = 'P0002';
  end if;
  return app_private.webhook_integration_json(v_integration);
end
$$;

-- webhook_integration_list: the integrations of one account, or of every
-- account when p_account_id is null, oldest first, as integration objects
-- (display prefixes only). [] when none.
create or replace function public.webhook_integration_list(p_account_id uuid default null)
returns jsonb
language sql
stable
security definer
set search_path = ''
as $$
  select coalesce(
    pg_catalog.jsonb_agg(app_private.webhook_integration_json(i) order by i.created_at, i.id),
    '[]'::jsonb
  )
  from public.webhook_integrations i
  where p_account_id is null or i.account_id = p_account_id
$$;

-- webhook_credential_rotate: revokes the integration's active credential (if
-- any) and stores a new one, in one transaction: the old credential stops at
-- once. Returns {integration_id, credential_prefix, previous_prefix (null when
-- there was no active credential)}. Raises P0002 for an unknown integration,
-- 23505 when the digest exists, 22023 for a malformed digest or prefix.
create or replace function public.webhook_credential_rotate(
  p_integration_id uuid,
  p_credential_digest text,
  p_credential_prefix text
)
returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_previous text;
begin
  perform app_private.webhook_credential_check(p_credential_digest, p_credential_prefix);
  -- The row lock serialises concurrent rotations of one integration.
  perform 1 from public.webhook_integrations where id = p_integration_id for update;
  if not found then
    raise exception 'integration not found' using errcode = 'P0002';
  end if;
  update public.webhook_credentials
  set revoked_at = pg_catalog.now()
  where integration_id = p_integration_id and revoked_at is null
  returning credential_prefix into v_previous;
  insert into public.webhook_credentials (integration_id, credential_digest, credential_prefix)
  values (p_integration_id, p_credential_digest, p_credential_prefix);
  return pg_catalog.jsonb_build_object(
    'integration_id', p_integration_id,
    'credential_prefix', p_credential_prefix,
    'previous_prefix', v_previous
  );
end
$$;

-- webhook_credential_revoke: revokes the integration's active credential;
-- the integration stays (rotate issues a new credential). Returns
-- {integration_id, revoked: 0 or 1}. Raises P0002 for an unknown integration.
create or replace function public.webhook_credential_revoke(p_integration_id uuid)
returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_count integer;
begin
  if not exists (select 1 from public.webhook_integrations where id = p_integration_id) then
    raise exception 'integration not found' using errcode = 'P0002';
  end if;
  update public.webhook_credentials
  set revoked_at = pg_catalog.now()
  where integration_id = p_integration_id and revoked_at is null;
  get diagnostics v_count = row_count;
  return pg_catalog.jsonb_build_object('integration_id', p_integration_id, 'revoked', v_count);
end
$$;

-- webhook_credential_caller: the request path's credential lookup, by the
-- hex SHA-256 digest of whatever the caller sent. One indexed read whether or
-- not the credential exists; null when no unrevoked credential has this
-- digest (revoked and unknown look the same). Otherwise
-- {integration_id, account_id, name, jurisdictions, industry, status,
-- trial_end}: the account's standing is the caller's to judge.
create or replace function public.webhook_credential_caller(p_credential_digest text)
returns jsonb
language sql
stable
security definer
set search_path = ''
as $$
  select app_private.webhook_caller_json(i, a)
  from public.webhook_credentials c
  join public.webhook_integrations i on i.id = c.integration_id
  join public.accounts a on a.id = i.account_id
  where c.credential_digest = p_credential_digest and c.revoked_at is null
$$;

-- webhook_shared_caller: the caller of the deployment's shared-secret path,
-- bound by configuration to one account and one integration name. The
-- integration is created on first use (provider 'shared-secret', ALL, no
-- industry, no credential), so that its transcripts are attributed to a real
-- integration from the start and the owner can later provision it a
-- credential (webhook_credential_rotate) without changing attribution.
-- Same object as webhook_credential_caller; null when the account does not
-- exist.
create or replace function public.webhook_shared_caller(p_account_id uuid, p_name text)
returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_account public.accounts;
  v_integration public.webhook_integrations;
begin
  select * into v_account from public.accounts where id = p_account_id;
  if not found then
    return null;
  end if;
  select * into v_integration
  from public.webhook_integrations
  where account_id = p_account_id and name = p_name;
  if not found then
    insert into public.webhook_integrations (account_id, name, provider)
    values (p_account_id, p_name, 'shared-secret')
    on conflict (account_id, name) do nothing;
    select * into v_integration
    from public.webhook_integrations
    where account_id = p_account_id and name = p_name;
  end if;
  return app_private.webhook_caller_json(v_integration, v_account);
end
$$;

revoke execute on function public.webhook_integration_create(uuid, text, text, text, text, jsonb, text) from public, anon, authenticated;
revoke execute on function public.webhook_integration_update(uuid, text, jsonb, text, boolean) from public, anon, authenticated;
revoke execute on function public.webhook_integration_list(uuid) from public, anon, authenticated;
revoke execute on function public.webhook_credential_rotate(uuid, text, text) from public, anon, authenticated;
revoke execute on function public.webhook_credential_revoke(uuid) from public, anon, authenticated;
revoke execute on function public.webhook_credential_caller(text) from public, anon, authenticated;
revoke execute on function public.webhook_shared_caller(uuid, text) from public, anon, authenticated;

grant execute on function public.webhook_integration_create(uuid, text, text, text, text, jsonb, text) to service_role;
grant execute on function public.webhook_integration_update(uuid, text, jsonb, text, boolean) to service_role;
grant execute on function public.webhook_integration_list(uuid) to service_role;
grant execute on function public.webhook_credential_rotate(uuid, text, text) to service_role;
grant execute on function public.webhook_credential_revoke(uuid) to service_role;
grant execute on function public.webhook_credential_caller(text) to service_role;
grant execute on function public.webhook_shared_caller(uuid, text) to service_role;
