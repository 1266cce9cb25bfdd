-- Roles and default privileges.
--
-- Supabase already has the API roles; plain PostgreSQL and PGlite do not. They
-- are created here only where missing, so the same migrations run unchanged on
-- Supabase, PostgreSQL 15+ and PGlite. Roles are cluster-wide: two databases
-- migrated at once may race to create them, hence the duplicate_object guard.
do $$
declare
  v_role text;
begin
  foreach v_role in array array['anon', 'authenticated', 'service_role'] loop
    if not exists (select 1 from pg_catalog.pg_roles where rolname = v_role) then
      begin
        execute pg_catalog.format('create role %I nologin noinherit', v_role);
      exception when duplicate_object then
        null;
      end;
    end if;
  end loop;
end
$$;

-- Functions are not executable by PUBLIC unless granted: every RPC grants
-- execute to service_role explicitly, nothing else is reachable by default.
alter default privileges revoke execute on functions from public;
alter default privileges in schema public revoke execute on functions from anon, authenticated;
alter default privileges in schema public revoke all on tables from anon, authenticated;
alter default privileges in schema public revoke all on sequences from anon, authenticated;

-- Private helpers (JSON shapes, timestamp format) live outside the exposed
-- schema: PostgREST never serves them and no API role may use them.
create schema if not exists app_private;
revoke all on schema app_private from public;

-- Timestamps leave the database as ISO 8601 UTC with milliseconds and a Z, so
-- that every driver (PGlite, postgres.js, PostgREST) returns the same string.
create or replace function app_private.iso_utc(p_ts timestamptz)
returns text
language sql
stable
set search_path = ''
as $$
  select pg_catalog.to_char(p_ts at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
$$;
revoke execute on function app_private.iso_utc(timestamptz) from public;
