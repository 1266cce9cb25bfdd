-- Admin RPCs for accounts and API keys (the admin CLI and tests).
--
-- Every RPC here and in the later migrations: security definer (runs as the
-- table owner, so tables need no grant), search_path = '' (every name is
-- schema-qualified, nothing can be shadowed), returns jsonb, and is executable
-- by service_role only.

-- account_create: inserts an account and returns the account object
-- {account_id, plan, status, billing_interval, price_per_month_usd, trial_end, created_at}.
-- Raises 22023 for an unknown plan or status.
create or replace function public.account_create(
  p_plan text,
  p_status text default 'active',
  p_trial_end timestamptz default null,
  p_price_per_month_usd numeric default null
)
returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_account public.accounts;
begin
  if p_plan is null or not exists (select 1 from public.plans where plan = p_plan) then
    raise exception 'unknown plan' using errcode = '22023';
  end if;
  if p_status is null or p_status not in ('active', 'trialing', 'past_due', 'canceled', 'paused') then
    raise exception 'unknown account status' using errcode = '22023';
  end if;
  insert into public.accounts (plan, status, trial_end, price_per_month_usd)
  values (p_plan, p_status, p_trial_end, p_price_per_month_usd)
  returning * into v_account;
  return app_private.account_json(v_account);
end
$$;

-- account_get: the account object plus usage_count (accepted audits this UTC
-- month, 0 when none) and monthly_limit (null = unlimited); null when unknown.
create or replace function public.account_get(p_account_id uuid)
returns jsonb
language plpgsql
stable
security definer
set search_path = ''
as $$
declare
  v_account public.accounts;
  v_limit integer;
  v_count integer;
begin
  select * into v_account from public.accounts where id = p_account_id;
  if not found then
    return null;
  end if;
  select monthly_quota into v_limit from public.plans where plan = v_account.plan;
  select u.count into v_count
  from public.monthly_usage u
  where u.account_id = p_account_id and u.period = app_private.current_period();
  return app_private.account_json(v_account)
    || pg_catalog.jsonb_build_object('usage_count', coalesce(v_count, 0), 'monthly_limit', v_limit);
end
$$;

-- account_update: changes the given fields (null arguments leave a field
-- unchanged; p_clear_trial_end = true sets trial_end to null) and returns the
-- account object. Raises P0002 when the account does not exist, 22023 for an
-- unknown plan or status.
create or replace function public.account_update(
  p_account_id uuid,
  p_plan text default null,
  p_status text default null,
  p_trial_end timestamptz default null,
  p_clear_trial_end boolean default false
)
returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_account public.accounts;
begin
  if p_plan is not null and not exists (select 1 from public.plans where plan = p_plan) then
    raise exception 'unknown plan' using errcode = '22023';
  end if;
  if p_status is not null
    and p_status not in ('active', 'trialing', 'past_due', 'canceled', 'paused') then
    raise exception 'unknown account status' using errcode = '22023';
  end if;
  update public.accounts
  set plan = coalesce(p_plan, plan),
      status = coalesce(p_status, status),
      trial_end = case
        when coalesce(p_clear_trial_end, false) then null
        else coalesce(p_trial_end, trial_end)
      end
  where id = p_account_id
  returning * into v_account;
  if not found then
    raise exception 'account not found' using errcode = 'P0002';
  end if;
  return app_private.account_json(v_account);
end
$$;

-- api_key_create: stores a key as its hex SHA-256 digest and display prefix;
-- returns {key_id, key_prefix, account_id, created_at}. Raises P0002 for an
-- unknown account, 23505 when the digest exists, 22023 for a malformed digest.
create or replace function public.api_key_create(
  p_account_id uuid,
  p_key_digest text,
  p_key_prefix text
)
returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_key public.api_keys;
begin
  if p_key_digest is null or p_key_digest !~ '^[0-9a-f]{64}$' then
    raise exception 'key digest must be 64 lowercase hex characters' using errcode = '22023';
  end if;
  if p_key_prefix is null or pg_catalog.length(p_key_prefix) not between 1 and 32 then
    raise exception 'key prefix must be 1 to 32 characters' using errcode = '22023';
  end if;
  if not exists (select 1 from public.accounts where id = p_account_id) then
    raise exception 'account not found' using errcode = 'P0002';
  end if;
  insert into public.api_keys (account_id, key_digest, key_prefix)
  values (p_account_id, p_key_digest, p_key_prefix)
  on conflict (key_digest) do nothing
  returning * into v_key;
  if not found then
    raise exception 'api key already exists' using errcode = '23505';
  end if;
  return pg_catalog.jsonb_build_object(
    'key_id', v_key.id,
    'key_prefix', v_key.key_prefix,
    'account_id', v_key.account_id,
    'created_at', app_private.iso_utc(v_key.created_at)
  );
end
$$;

-- api_key_revoke: revokes every unrevoked key with this display prefix;
-- returns {revoked: <number of keys revoked now>}. Revocation is permanent.
create or replace function public.api_key_revoke(p_key_prefix text)
returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_count integer;
begin
  update public.api_keys
  set revoked_at = pg_catalog.now()
  where key_prefix = p_key_prefix and revoked_at is null;
  get diagnostics v_count = row_count;
  return pg_catalog.jsonb_build_object('revoked', v_count);
end
$$;

-- api_key_list: the keys of an account, oldest first, as
-- [{key_id, key_prefix, created_at, revoked_at}]; never a digest; [] when none.
create or replace function public.api_key_list(p_account_id uuid)
returns jsonb
language sql
stable
security definer
set search_path = ''
as $$
  select coalesce(
    pg_catalog.jsonb_agg(
      pg_catalog.jsonb_build_object(
        'key_id', k.id,
        'key_prefix', k.key_prefix,
        'created_at', app_private.iso_utc(k.created_at),
        'revoked_at', app_private.iso_utc(k.revoked_at)
      )
      order by k.created_at, k.id
    ),
    '[]'::jsonb
  )
  from public.api_keys k
  where k.account_id = p_account_id
$$;

revoke execute on function public.account_create(text, text, timestamptz, numeric) from public, anon, authenticated;
revoke execute on function public.account_get(uuid) from public, anon, authenticated;
revoke execute on function public.account_update(uuid, text, text, timestamptz, boolean) from public, anon, authenticated;
revoke execute on function public.api_key_create(uuid, text, text) from public, anon, authenticated;
revoke execute on function public.api_key_revoke(text) from public, anon, authenticated;
revoke execute on function public.api_key_list(uuid) from public, anon, authenticated;

grant execute on function public.account_create(text, text, timestamptz, numeric) to service_role;
grant execute on function public.account_get(uuid) to service_role;
grant execute on function public.account_update(uuid, text, text, timestamptz, boolean) to service_role;
grant execute on function public.api_key_create(uuid, text, text) to service_role;
grant execute on function public.api_key_revoke(text) to service_role;
grant execute on function public.api_key_list(uuid) to service_role;
