-- Rulebook seal (issue 12 item 5, cold start): the engine validates a
-- rulebook at import, then records here the SHA-256 of the document exactly
-- as rulebook_get returns it (app code: shared/engine/rulebook_seal.ts), so
-- that a cold function compiles a sealed version without validating it again
-- (hundreds of milliseconds of zod and term expansion). The engine recomputes
-- the digest on every load: a document changed after sealing, or sealed under
-- other checks, no longer matches and is validated in full, so a corrupt
-- rulebook is still refused. A version imported before this migration has no
-- seal and is validated on load as before.
alter table public.rulebooks
  add column if not exists checked_sha256 text null
    check (checked_sha256 is null or checked_sha256 ~ '^[0-9a-f]{64}$');

-- rulebook_get (as in 20261122000001_rulebook_format_2.sql) plus {seal} when
-- the version has been sealed.
create or replace function public.rulebook_get(p_version integer)
returns jsonb
language sql
stable
security definer
set search_path = ''
as $$
  select pg_catalog.jsonb_build_object(
    'version', b.version,
    'status', b.status,
    'published_at', app_private.iso_utc(b.published_at),
    'rules', coalesce(
      (
        select pg_catalog.jsonb_agg(app_private.rule_json(r) order by r.rule_key)
        from public.rules r
        where r.rulebook_version = b.version
      ),
      '[]'::jsonb
    )
  ) || case
    when b.format = 1 then '{}'::jsonb
    else pg_catalog.jsonb_build_object(
      'format', b.format,
      'statutes', b.statutes,
      'concepts', b.concepts,
      'definitions', coalesce(b.definitions, '{}'::jsonb)
    )
  end || case
    when b.checked_sha256 is null then '{}'::jsonb
    else pg_catalog.jsonb_build_object('seal', b.checked_sha256)
  end
  from public.rulebooks b
  where b.version = p_version
$$;

-- rulebook_seal: records the digest the engine computed of a version it has
-- validated; {version, sealed: true}. Raises P0002 when the version does not
-- exist and 22023 for a malformed digest. The caller (the admin path, after
-- validateRulebook) vouches for the digest; a wrong one only costs a full
-- validation on load.
create or replace function public.rulebook_seal(p_version integer, p_sha256 text)
returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
begin
  if p_sha256 is null or p_sha256 !~ '^[0-9a-f]{64}$' then
    raise exception 'a seal is a lowercase hex SHA-256' using errcode = '22023';
  end if;
  update public.rulebooks set checked_sha256 = p_sha256 where version = p_version;
  if not found then
    raise exception 'rulebook version not found' using errcode = 'P0002';
  end if;
  return pg_catalog.jsonb_build_object('version', p_version, 'sealed', true);
end
$$;

revoke execute on function public.rulebook_get(integer) from public, anon, authenticated;
revoke execute on function public.rulebook_seal(integer, text) from public, anon, authenticated;
grant execute on function public.rulebook_get(integer) to service_role;
grant execute on function public.rulebook_seal(integer, text) to service_role;
