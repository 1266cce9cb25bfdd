-- RPCs of transcript scans: the request path's idempotent delivery (begin,
-- store, release) and the operators' list and retention purge.

-- transcript_delivery_begin: decides who processes a delivery
-- (integration, idempotency key). Answers one of
--   {state: 'stored', scan: {...}}   a scan of this delivery exists: answer it;
--   {state: 'claimed', claim: uuid}  the caller processes it, holding a lease
--                                    of p_lease_seconds (1 to 600);
--   {state: 'pending', retry_after_seconds} another request holds a live claim.
-- Concurrent duplicates: the primary key lets exactly one insert the claim;
-- the others see it and wait. A claim whose lease has passed (its holder died)
-- is taken over. After taking a claim the scan is looked up again, so a
-- holder that stored and released in between is answered, never redone.
create or replace function public.transcript_delivery_begin(
  p_integration_id uuid,
  p_idempotency_key text,
  p_lease_seconds integer default 30
)
returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_scan public.transcript_scans;
  v_claim uuid;
  v_lease interval := pg_catalog.make_interval(secs => greatest(1, least(coalesce(p_lease_seconds, 30), 600)));
  v_until timestamptz;
begin
  if p_idempotency_key is null or p_idempotency_key !~ '^[0-9a-f]{64}$' then
    raise exception 'idempotency key must be 64 lowercase hex characters' using errcode = '22023';
  end if;
  select * into v_scan from public.transcript_scans
  where integration_id = p_integration_id and idempotency_key = p_idempotency_key;
  if found then
    return pg_catalog.jsonb_build_object('state', 'stored', 'scan', app_private.transcript_scan_json(v_scan));
  end if;

  insert into public.transcript_deliveries (integration_id, idempotency_key, claim, lease_until)
  values (p_integration_id, p_idempotency_key, gen_random_uuid(), pg_catalog.now() + v_lease)
  on conflict (integration_id, idempotency_key) do nothing
  returning claim into v_claim;
  if not found then
    update public.transcript_deliveries
    set claim = gen_random_uuid(), lease_until = pg_catalog.now() + v_lease
    where integration_id = p_integration_id and idempotency_key = p_idempotency_key
      and lease_until < pg_catalog.now()
    returning claim into v_claim;
  end if;

  if v_claim is not null then
    select * into v_scan from public.transcript_scans
    where integration_id = p_integration_id and idempotency_key = p_idempotency_key;
    if found then
      delete from public.transcript_deliveries where claim = v_claim;
      return pg_catalog.jsonb_build_object('state', 'stored', 'scan', app_private.transcript_scan_json(v_scan));
    end if;
    return pg_catalog.jsonb_build_object('state', 'claimed', 'claim', v_claim);
  end if;

  select lease_until into v_until from public.transcript_deliveries
  where integration_id = p_integration_id and idempotency_key = p_idempotency_key;
  return pg_catalog.jsonb_build_object(
    'state', 'pending',
    'retry_after_seconds',
    greatest(1, ceil(extract(epoch from (coalesce(v_until, pg_catalog.now()) - pg_catalog.now())))::integer)
  );
end
$$;

-- transcript_scan_store: stores the scan of a claimed delivery and ends the
-- claim, in one transaction: the scan is written whole or not at all. The
-- integration must belong to the account (22023 otherwise). Answers
-- {state: 'stored', scan: {...}} with the stored scan (the first one, should
-- another request have stored this delivery already), or {state: 'lost'} when
-- the claim is no longer held and no scan exists (its lease passed and
-- another request took it over); nothing is written then.
create or replace function public.transcript_scan_store(
  p_claim uuid,
  p_account_id uuid,
  p_integration_id uuid,
  p_auth_path text,
  p_idempotency_key text,
  p_source text,
  p_channel text,
  p_channel_origin text,
  p_external_conversation_id text,
  p_jurisdictions jsonb,
  p_industry text,
  p_rulebook_version integer,
  p_grade text,
  p_score numeric,
  p_critical_violations integer,
  p_warnings integer,
  p_passed_checks integer,
  p_payload jsonb
)
returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_scan public.transcript_scans;
begin
  if not exists (
    select 1 from public.webhook_integrations where id = p_integration_id and account_id = p_account_id
  ) then
    raise exception 'integration does not belong to the account' using errcode = '22023';
  end if;
  delete from public.transcript_deliveries
  where claim = p_claim and integration_id = p_integration_id and idempotency_key = p_idempotency_key;
  if found then
    insert into public.transcript_scans (
      account_id, integration_id, auth_path, idempotency_key, source, channel, channel_origin,
      external_conversation_id, jurisdictions, industry, rulebook_version, grade, score,
      critical_violations, warnings, passed_checks, payload
    ) values (
      p_account_id, p_integration_id, p_auth_path, p_idempotency_key, p_source, p_channel,
      p_channel_origin, p_external_conversation_id, app_private.jsonb_text_array(p_jurisdictions),
      p_industry, p_rulebook_version, p_grade, p_score, p_critical_violations, p_warnings,
      p_passed_checks, p_payload
    )
    on conflict (integration_id, idempotency_key) do nothing
    returning * into v_scan;
    if found then
      return pg_catalog.jsonb_build_object('state', 'stored', 'scan', app_private.transcript_scan_json(v_scan));
    end if;
  end if;
  select * into v_scan from public.transcript_scans
  where integration_id = p_integration_id and idempotency_key = p_idempotency_key;
  if found then
    return pg_catalog.jsonb_build_object('state', 'stored', 'scan', app_private.transcript_scan_json(v_scan));
  end if;
  return pg_catalog.jsonb_build_object('state', 'lost');
end
$$;

-- transcript_delivery_release: gives up a claim (the delivery failed), so a
-- retry processes it afresh. Returns {released: true|false}.
create or replace function public.transcript_delivery_release(p_claim uuid)
returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
begin
  delete from public.transcript_deliveries where claim = p_claim;
  return pg_catalog.jsonb_build_object('released', found);
end
$$;

-- transcript_scan_list: the newest scans of an integration, newest first, at
-- most p_limit (clamped to 1..1000; null means 20), for operators checking
-- attribution: [{scan_result_id, account_id, integration_id, auth_path,
-- channel_origin, external_conversation_id, grade, score, critical_violations,
-- warnings, passed_checks, rulebook_version, created_at}]. Never the messages.
create or replace function public.transcript_scan_list(p_integration_id uuid, p_limit integer default 20)
returns jsonb
language sql
stable
security definer
set search_path = ''
as $$
  select coalesce(
    pg_catalog.jsonb_agg(
      app_private.transcript_scan_json(s) || pg_catalog.jsonb_build_object(
        'account_id', s.account_id,
        'integration_id', s.integration_id,
        'auth_path', s.auth_path,
        'rulebook_version', s.rulebook_version,
        'created_at', app_private.iso_utc(s.created_at)
      )
      order by s.created_at desc, s.id desc
    ),
    '[]'::jsonb
  )
  from (
    select * from public.transcript_scans t
    where t.integration_id = p_integration_id
    order by t.created_at desc, t.id desc
    limit greatest(1, least(coalesce(p_limit, 20), 1000))
  ) s
$$;

-- transcript_purge: deletes every stored scan (its messages, findings and
-- evidence) created more than p_retention_days days ago, and claims whose
-- lease passed over a day ago. Returns {purged, cutoff}. Raises 22023 unless
-- p_retention_days is 1 or more.
create or replace function public.transcript_purge(p_retention_days integer)
returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_cutoff timestamptz;
  v_count integer;
begin
  if p_retention_days is null or p_retention_days < 1 then
    raise exception 'retention must be at least 1 day' using errcode = '22023';
  end if;
  v_cutoff := pg_catalog.now() - pg_catalog.make_interval(days => p_retention_days);
  delete from public.transcript_scans where created_at < v_cutoff;
  get diagnostics v_count = row_count;
  delete from public.transcript_deliveries where lease_until < pg_catalog.now() - interval '1 day';
  return pg_catalog.jsonb_build_object('purged', v_count, 'cutoff', app_private.iso_utc(v_cutoff));
end
$$;

revoke execute on function public.transcript_delivery_begin(uuid, text, integer) from public, anon, authenticated;
revoke execute on function public.transcript_scan_store(uuid, uuid, uuid, text, text, text, text, text, text, jsonb, text, integer, text, numeric, integer, integer, integer, jsonb) from public, anon, authenticated;
revoke execute on function public.transcript_delivery_release(uuid) from public, anon, authenticated;
revoke execute on function public.transcript_scan_list(uuid, integer) from public, anon, authenticated;
revoke execute on function public.transcript_purge(integer) from public, anon, authenticated;

grant execute on function public.transcript_delivery_begin(uuid, text, integer) to service_role;
grant execute on function public.transcript_scan_store(uuid, uuid, uuid, text, text, text, text, text, text, jsonb, text, integer, text, numeric, integer, integer, integer, jsonb) to service_role;
grant execute on function public.transcript_delivery_release(uuid) to service_role;
grant execute on function public.transcript_scan_list(uuid, integer) to service_role;
grant execute on function public.transcript_purge(integer) to service_role;
