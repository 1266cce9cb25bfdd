-- A sealed version keeps its document (issue 12 item 5, cold start).
--
-- rulebook_get built a version's document on every call: its rules
-- aggregated from their rows and every part concatenated, about 25 ms of a
-- 1 MB document in PostgreSQL, on the path of every cold function's first
-- request. rulebook_seal (the admin path, right after import) now keeps that
-- document as it was built when sealed, and rulebook_get answers a sealed
-- version from it: the same jsonb, so the same text, keys in jsonb's order,
-- and the same seal.
--
-- A version's rules and parts never change after import (no RPC writes them).
-- Should anything change them all the same, a trigger drops the kept document
-- and the seal with it: rulebook_get builds the document again and the engine
-- validates it in full until the version is sealed again.
alter table public.rulebooks
  add column if not exists sealed_document jsonb null;

-- A version's document as rulebook_get returns it, less status, published_at
-- and seal (the part a seal covers), built from its rows.
create or replace function app_private.rulebook_document(p_book public.rulebooks)
returns jsonb
language sql
stable
set search_path = ''
as $$
  select pg_catalog.jsonb_build_object(
    'version', p_book.version,
    'rules', coalesce(
      (
        select pg_catalog.jsonb_agg(app_private.rule_json(r) order by r.rule_key)
        from public.rules r
        where r.rulebook_version = p_book.version
      ),
      '[]'::jsonb
    )
  ) || case
    when p_book.format = 1 then '{}'::jsonb
    else pg_catalog.jsonb_build_object(
      'format', p_book.format,
      'statutes', p_book.statutes,
      'concepts', p_book.concepts,
      'definitions', coalesce(p_book.definitions, '{}'::jsonb)
    )
  end
$$;
revoke execute on function app_private.rulebook_document(public.rulebooks) from public;

-- rulebook_get (as in 20261125000701_rulebook_seal.sql): a sealed version's
-- kept document, else the document built from its rows; then its status,
-- publication date and seal.
create or replace function public.rulebook_get(p_version integer)
returns jsonb
language sql
stable
security definer
set search_path = ''
as $$
  select coalesce(b.sealed_document, app_private.rulebook_document(b))
    || pg_catalog.jsonb_build_object(
      'status', b.status,
      'published_at', app_private.iso_utc(b.published_at)
    )
    || case
      when b.checked_sha256 is null then '{}'::jsonb
      else pg_catalog.jsonb_build_object('seal', b.checked_sha256)
    end
  from public.rulebooks b
  where b.version = p_version
$$;

-- rulebook_seal (as in 20261125000701_rulebook_seal.sql), keeping the
-- document as it stands when sealed.
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
  update public.rulebooks b
  set checked_sha256 = p_sha256,
    sealed_document = app_private.rulebook_document(b)
  where b.version = p_version;
  if not found then
    raise exception 'rulebook version not found' using errcode = 'P0002';
  end if;
  return pg_catalog.jsonb_build_object('version', p_version, 'sealed', true);
end
$$;

-- A change to a version's rules or parts drops its kept document and seal.
create or replace function app_private.rulebook_rules_changed()
returns trigger
language plpgsql
set search_path = ''
as $$
begin
  if tg_op <> 'INSERT' then
    update public.rulebooks
    set sealed_document = null, checked_sha256 = null
    where version = old.rulebook_version
      and (sealed_document is not null or checked_sha256 is not null);
  end if;
  if tg_op <> 'DELETE' then
    update public.rulebooks
    set sealed_document = null, checked_sha256 = null
    where version = new.rulebook_version
      and (sealed_document is not null or checked_sha256 is not null);
  end if;
  return null;
end
$$;
revoke execute on function app_private.rulebook_rules_changed() from public;

drop trigger if exists rules_unseal on public.rules;
create trigger rules_unseal
  after insert or update or delete on public.rules
  for each row execute function app_private.rulebook_rules_changed();

create or replace function app_private.rulebook_parts_changed()
returns trigger
language plpgsql
set search_path = ''
as $$
begin
  if (new.version, new.format, new.statutes, new.concepts, new.definitions)
    is distinct from (old.version, old.format, old.statutes, old.concepts, old.definitions)
  then
    new.sealed_document := null;
    new.checked_sha256 := null;
  end if;
  return new;
end
$$;
revoke execute on function app_private.rulebook_parts_changed() from public;

drop trigger if exists rulebooks_unseal on public.rulebooks;
create trigger rulebooks_unseal
  before update on public.rulebooks
  for each row execute function app_private.rulebook_parts_changed();

-- Versions sealed before this migration keep their document now.
update public.rulebooks b
set sealed_document = app_private.rulebook_document(b)
where b.checked_sha256 is not null and b.sealed_document is null;

revoke execute on function public.rulebook_get(integer) from public, anon, authenticated;
revoke execute on function public.rulebook_seal(integer, text) from public, anon, authenticated;
grant execute on function public.rulebook_get(integer) to service_role;
grant execute on function public.rulebook_seal(integer, text) to service_role;
