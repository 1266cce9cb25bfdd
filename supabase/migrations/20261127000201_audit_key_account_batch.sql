-- audit_key_account_batch: several audits' key lookups in one statement.
--
-- Like audit_record_batch (migration 20261127000101), for complianceAudit's
-- first round trip: the postgres adapter sends the audit_key_account calls
-- that arrive while earlier ones are in flight as one call of this function
-- (shared/db/call_batcher.ts); a call alone is still sent as
-- audit_key_account. Each element's answer is audit_key_account's own, so
-- nothing about a key's lookup changes but the round trip it shares.
--
-- p_calls: a JSON array of {n, p_key_digest}, n being the call's place in the
-- array (1-based). Returns a JSON array, in that order, of audit_key_account's
-- answers (null for an unknown or revoked key).
create or replace function public.audit_key_account_batch(p_calls jsonb)
returns jsonb
language plpgsql
stable
security definer
set search_path = ''
as $$
begin
  return coalesce((
    select pg_catalog.jsonb_agg(public.audit_key_account(x.p_key_digest) order by x.n)
    from pg_catalog.jsonb_to_recordset(p_calls) as x(n integer, p_key_digest text)
  ), '[]'::jsonb);
end
$$;

revoke execute on function public.audit_key_account_batch(jsonb) from public, anon, authenticated;
grant execute on function public.audit_key_account_batch(jsonb) to service_role;
