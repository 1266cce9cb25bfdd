-- audit_record_batch: several audits' audit_record calls in one statement,
-- one transaction and one commit (group commit at the application level).
--
-- At concurrency, most of an audit's cost in PostgreSQL was not
-- audit_record's three inserts (about 65 us a call inside one transaction) but
-- what each call paid around them: its own round trip, its own transaction
-- and its own durable commit (a WAL flush the client waits for), and the
-- wake-ups of both processes. The postgres adapter sends the calls that
-- arrive while earlier ones are in flight as one call of this function
-- (shared/db/call_batcher.ts); a call alone is still sent as audit_record.
--
-- p_calls: a JSON array of audit_record's named arguments, each with `n`, its
-- place in the array (1-based). Returns a JSON array, in the same order, of
-- audit_record's answers; an element whose account does not exist is
-- {"failed": "P0002"} (audit_record would raise; raised here it would undo the
-- whole batch, the other callers' audits included).
--
-- Each audit is exactly what audit_record makes it: the same function is
-- called for each, in this transaction, so its usage increment, audit row,
-- activity row and Idempotency-Key claim are committed together with the
-- others' or not at all; the quota is checked call by call against the count
-- the previous calls left (exact at the boundary), and a key used twice in one
-- batch is claimed by the first and replayed to the second, as in sequence.
--
-- The calls run in order of account, so that two batches running at once
-- (two isolates, two processes) take their row locks (monthly_usage, the key's
-- row) in the same order and cannot deadlock.
create or replace function public.audit_record_batch(p_calls jsonb)
returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_count integer := pg_catalog.jsonb_array_length(p_calls);
  v_results jsonb[] := pg_catalog.array_fill(null::jsonb, array[v_count]);
  c record;
begin
  for c in
    select *
    from pg_catalog.jsonb_to_recordset(p_calls) as x(
      n integer,
      p_account_id uuid,
      p_content_sha256 text,
      p_content_length integer,
      p_jurisdiction text,
      p_industry text,
      p_asset_url text,
      p_verdict text,
      p_risk_score numeric,
      p_penalty_exposure_usd numeric,
      p_rulebook_version integer,
      p_endpoint text,
      p_latency_ms numeric,
      p_is_agent boolean,
      p_idempotency_key_sha256 text,
      p_request_sha256 text,
      p_response jsonb
    )
    order by x.p_account_id, x.n
  loop
    if c.n is null or c.n < 1 or c.n > v_count or v_results[c.n] is not null then
      raise exception 'audit_record_batch: each call needs its own n from 1 to %', v_count
        using errcode = '22023';
    end if;
    if exists (select from public.accounts a where a.id = c.p_account_id) then
      v_results[c.n] := public.audit_record(
        c.p_account_id, c.p_content_sha256, c.p_content_length, c.p_jurisdiction,
        c.p_industry, c.p_asset_url, c.p_verdict, c.p_risk_score, c.p_penalty_exposure_usd,
        c.p_rulebook_version, c.p_endpoint, c.p_latency_ms, c.p_is_agent,
        c.p_idempotency_key_sha256, c.p_request_sha256, c.p_response
      );
    else
      v_results[c.n] := pg_catalog.jsonb_build_object('failed', 'P0002');
    end if;
  end loop;
  return pg_catalog.to_jsonb(v_results);
end
$$;

revoke execute on function public.audit_record_batch(jsonb) from public, anon, authenticated;
grant execute on function public.audit_record_batch(jsonb) to service_role;
