-- website_scan_record: stores one completed website scan, without an account,
-- with the rulebook version it pinned; returns {scan_id, created_at}. One
-- insert, so a scan is stored whole or not at all. Raises 23503 when the
-- rulebook version does not exist, 23514 when a value is out of range.
-- p_triggered_rules is a JSON array of rule keys (every driver passes jsonb
-- the same way; a text[] parameter would need each one's array syntax).
-- Executable by service_role only.
create or replace function public.website_scan_record(
  p_target_origin text,
  p_status_code integer,
  p_score numeric,
  p_grade text,
  p_critical_count integer,
  p_warning_count integer,
  p_passed_count integer,
  p_advisory_count integer,
  p_pages_scanned integer,
  p_triggered_rules jsonb,
  p_rulebook_version integer,
  p_engine_version text,
  p_duration_ms numeric
)
returns jsonb
language sql
security definer
set search_path = ''
as $$
  insert into public.website_scans (
    target_origin, status_code, score, grade, critical_count, warning_count, passed_count,
    advisory_count, pages_scanned, triggered_rules, rulebook_version, engine_version, duration_ms
  ) values (
    p_target_origin, p_status_code, p_score, p_grade, p_critical_count, p_warning_count,
    p_passed_count, p_advisory_count, p_pages_scanned,
    array(select pg_catalog.jsonb_array_elements_text(p_triggered_rules)), p_rulebook_version,
    p_engine_version, p_duration_ms
  )
  returning pg_catalog.jsonb_build_object(
    'scan_id', id,
    'created_at', app_private.iso_utc(created_at)
  )
$$;

revoke execute on function public.website_scan_record(text, integer, numeric, text, integer, integer, integer, integer, integer, jsonb, integer, text, numeric) from public, anon, authenticated;
grant execute on function public.website_scan_record(text, integer, numeric, text, integer, integer, integer, integer, integer, jsonb, integer, text, numeric) to service_role;
