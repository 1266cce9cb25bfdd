-- activity_month_page: one keyset page of an account's activity in a UTC
-- calendar month ('YYYY-MM'), in activity_month's order (oldest first, ties by
-- insertion order), so that export_audit streams a month page by page instead
-- of holding every row.
--
-- The first call (no cursor) fixes the export's end: p_through_id, the
-- month's newest record at that moment, which it returns as through_id; each
-- next call passes it back with the cursor of the previous page (next), so
-- that a record written while the export streams (its own activity record,
-- say) is not in it, as activity_month's single statement would not see it.
--
-- The cursor's time is text with microseconds (a driver may round a
-- timestamptz parameter to milliseconds, which would repeat records).
--
-- Returns {rows: [Activity...], next: {after_created_at, after_id} | null,
-- through_id: bigint | null}; next is null on the last page. p_limit is
-- clamped to 1..5000 (null means 1000). Raises 22023 when p_month is not
-- 'YYYY-MM' with month 01..12, or when the cursor has one part only.
create or replace function public.activity_month_page(
  p_account_id uuid,
  p_month text,
  p_limit integer default 1000,
  p_after_created_at text default null,
  p_after_id bigint default null,
  p_through_id bigint default null
)
returns jsonb
language plpgsql
stable
security definer
set search_path = ''
as $$
declare
  v_start timestamp;
  v_from timestamptz;
  v_to timestamptz;
  v_limit integer;
  v_through bigint;
  v_rows jsonb;
  v_count integer;
  v_last_created_at timestamptz;
  v_last_id bigint;
begin
  if p_month is null or p_month !~ '^[0-9]{4}-(0[1-9]|1[0-2])$' then
    raise exception 'month must be YYYY-MM' using errcode = '22023';
  end if;
  if (p_after_created_at is null) <> (p_after_id is null) then
    raise exception 'the cursor needs both after_created_at and after_id' using errcode = '22023';
  end if;
  v_limit := greatest(1, least(coalesce(p_limit, 1000), 5000));
  v_start := pg_catalog.to_date(p_month || '-01', 'YYYY-MM-DD')::timestamp;
  v_from := v_start at time zone 'UTC';
  v_to := (v_start + interval '1 month') at time zone 'UTC';

  v_through := p_through_id;
  if v_through is null then
    select pg_catalog.max(a.id) into v_through
    from public.activity a
    where a.account_id = p_account_id and a.created_at >= v_from and a.created_at < v_to;
  end if;

  -- The Activity object is built inline, as app_private.activity_json and
  -- iso_utc build it: a call of those (functions with their own search_path,
  -- which PostgreSQL cannot inline) costs more per row than the row itself.
  with page as (
    select a.id, a.created_at, a.endpoint_queried, a.status_code, a.response_latency_ms,
           a.plan, a.is_agent
    from public.activity a
    where a.account_id = p_account_id
      and a.created_at >= v_from
      and a.created_at < v_to
      and a.id <= v_through
      and (p_after_id is null or (a.created_at, a.id) > (p_after_created_at::timestamptz, p_after_id))
    order by a.created_at, a.id
    limit v_limit
  )
  select
    coalesce(
      pg_catalog.jsonb_agg(
        pg_catalog.jsonb_build_object(
          'timestamp', pg_catalog.to_char(p.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
          'endpoint_queried', p.endpoint_queried,
          'status_code', p.status_code,
          'response_latency_ms', p.response_latency_ms,
          'plan', p.plan,
          'is_agent', p.is_agent
        )
        order by p.created_at, p.id
      ),
      '[]'::jsonb
    ),
    pg_catalog.count(*)::integer,
    (pg_catalog.array_agg(p.created_at order by p.created_at desc, p.id desc))[1],
    (pg_catalog.array_agg(p.id order by p.created_at desc, p.id desc))[1]
  into v_rows, v_count, v_last_created_at, v_last_id
  from page p;

  return pg_catalog.jsonb_build_object(
    'rows', v_rows,
    'next', case when v_count = v_limit then pg_catalog.jsonb_build_object(
      'after_created_at', pg_catalog.to_jsonb(v_last_created_at),
      'after_id', v_last_id
    ) end,
    'through_id', v_through
  );
end
$$;

revoke execute on function public.activity_month_page(uuid, text, integer, text, bigint, bigint) from public, anon, authenticated;
grant execute on function public.activity_month_page(uuid, text, integer, text, bigint, bigint) to service_role;
