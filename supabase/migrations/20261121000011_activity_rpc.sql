-- RPCs of the activity log. Activity objects are
-- {timestamp, endpoint_queried, status_code, response_latency_ms, plan, is_agent}
-- with timestamp as ISO 8601 UTC (milliseconds, Z).

-- activity_record: appends one activity row; the plan is the account's plan
-- at this moment. Returns {recorded: true}; raises P0002 for an unknown account.
create or replace function public.activity_record(
  p_account_id uuid,
  p_endpoint text,
  p_status_code integer,
  p_latency_ms numeric default null,
  p_is_agent boolean default false
)
returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_plan text;
begin
  select plan into v_plan from public.accounts where id = p_account_id;
  if not found then
    raise exception 'account not found' using errcode = 'P0002';
  end if;
  insert into public.activity (
    account_id, endpoint_queried, status_code, response_latency_ms, plan, is_agent
  ) values (
    p_account_id, p_endpoint, p_status_code, p_latency_ms, v_plan, coalesce(p_is_agent, false)
  );
  return pg_catalog.jsonb_build_object('recorded', true);
end
$$;

-- activity_recent: the newest activity of an account, newest first (ties by
-- insertion order, newest first), at most p_limit rows (clamped to 1..1000;
-- null means 100). Always an array; [] when there is none.
create or replace function public.activity_recent(p_account_id uuid, p_limit integer default 100)
returns jsonb
language sql
stable
security definer
set search_path = ''
as $$
  select coalesce(
    pg_catalog.jsonb_agg(app_private.activity_json(r) order by r.created_at desc, r.id desc),
    '[]'::jsonb
  )
  from (
    select *
    from public.activity a
    where a.account_id = p_account_id
    order by a.created_at desc, a.id desc
    limit greatest(1, least(coalesce(p_limit, 100), 1000))
  ) r
$$;

-- activity_month: every activity of an account in one UTC calendar month
-- ('YYYY-MM'), oldest first (ties by insertion order). The month is the
-- half-open UTC range [first day 00:00, first day of next month 00:00),
-- computed without the session time zone. Always an array; raises 22023 when
-- p_month is not 'YYYY-MM' with month 01..12.
create or replace function public.activity_month(p_account_id uuid, p_month text)
returns jsonb
language plpgsql
stable
security definer
set search_path = ''
as $$
declare
  v_start timestamp;
  v_result jsonb;
begin
  if p_month is null or p_month !~ '^[0-9]{4}-(0[1-9]|1[0-2])$' then
    raise exception 'month must be YYYY-MM' using errcode = '22023';
  end if;
  v_start := pg_catalog.to_date(p_month || '-01', 'YYYY-MM-DD')::timestamp;
  select coalesce(
    pg_catalog.jsonb_agg(app_private.activity_json(a) order by a.created_at, a.id),
    '[]'::jsonb
  ) into v_result
  from public.activity a
  where a.account_id = p_account_id
    and a.created_at >= (v_start at time zone 'UTC')
    and a.created_at < ((v_start + interval '1 month') at time zone 'UTC');
  return v_result;
end
$$;

revoke execute on function public.activity_record(uuid, text, integer, numeric, boolean) from public, anon, authenticated;
revoke execute on function public.activity_recent(uuid, integer) from public, anon, authenticated;
revoke execute on function public.activity_month(uuid, text) from public, anon, authenticated;

grant execute on function public.activity_record(uuid, text, integer, numeric, boolean) to service_role;
grant execute on function public.activity_recent(uuid, integer) to service_role;
grant execute on function public.activity_month(uuid, text) to service_role;
