-- RPCs of the rulebook. Rule objects carry exactly these fields: rule_key,
-- applies_to, jurisdictions, industries, detector, severity, weight, tier_key,
-- citation, penalty_usd, statute_codes, title, plain_english, category,
-- remediation_title, remediation.

-- The rule object of a rules row.
create or replace function app_private.rule_json(p_rule public.rules)
returns jsonb
language sql
stable
set search_path = ''
as $$
  select pg_catalog.jsonb_build_object(
    'rule_key', p_rule.rule_key,
    'applies_to', pg_catalog.to_jsonb(p_rule.applies_to),
    'jurisdictions', pg_catalog.to_jsonb(p_rule.jurisdictions),
    'industries', pg_catalog.to_jsonb(p_rule.industries),
    'detector', p_rule.detector,
    'severity', p_rule.severity,
    'weight', p_rule.weight,
    'tier_key', p_rule.tier_key,
    'citation', p_rule.citation,
    'penalty_usd', p_rule.penalty_usd,
    'statute_codes', pg_catalog.to_jsonb(p_rule.statute_codes),
    'title', p_rule.title,
    'plain_english', p_rule.plain_english,
    'category', p_rule.category,
    'remediation_title', p_rule.remediation_title,
    'remediation', p_rule.remediation
  )
$$;
revoke execute on function app_private.rule_json(public.rules) from public;

-- rulebook_active: {version} of the active rulebook, or null when none is.
create or replace function public.rulebook_active()
returns jsonb
language sql
stable
security definer
set search_path = ''
as $$
  select pg_catalog.jsonb_build_object('version', r.version)
  from public.rulebooks r
  where r.status = 'active'
$$;

-- rulebook_get: {version, status, published_at, rules: [rule objects ordered
-- by rule_key]} of one version, or null when the version does not exist.
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
  )
  from public.rulebooks b
  where b.version = p_version
$$;

-- rulebook_import: stores a new version as 'draft' with its rules, all or
-- nothing. p_rules is a non-empty JSON array of rule objects with exactly the
-- rule fields (statute_codes may be omitted or null; unknown fields are
-- refused). Returns {version, rule_count, status: 'draft'}. Raises 23505 when
-- the version exists (versions are immutable), 22023 for a malformed array,
-- and the constraint's error for a bad field value.
create or replace function public.rulebook_import(p_version integer, p_rules jsonb)
returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_fields constant text[] := array[
    'rule_key', 'applies_to', 'jurisdictions', 'industries', 'detector', 'severity', 'weight',
    'tier_key', 'citation', 'penalty_usd', 'statute_codes', 'title', 'plain_english', 'category',
    'remediation_title', 'remediation'
  ];
  v_rule jsonb;
  v_index integer := 0;
  v_unknown text;
  v_count integer;
begin
  if p_version is null or p_version <= 0 then
    raise exception 'rulebook version must be a positive integer' using errcode = '22023';
  end if;
  if p_rules is null or pg_catalog.jsonb_typeof(p_rules) <> 'array'
    or pg_catalog.jsonb_array_length(p_rules) = 0 then
    raise exception 'rules must be a non-empty JSON array' using errcode = '22023';
  end if;
  for v_rule in select e.value from pg_catalog.jsonb_array_elements(p_rules) e loop
    if pg_catalog.jsonb_typeof(v_rule) <> 'object' then
      raise exception 'rule % is not a JSON object', v_index using errcode = '22023';
    end if;
    select pg_catalog.string_agg(k.key, ', ' order by k.key) into v_unknown
    from pg_catalog.jsonb_object_keys(v_rule) as k(key)
    where k.key <> all (v_fields);
    if v_unknown is not null then
      raise exception 'rule % has unknown field(s): %', v_index, v_unknown using errcode = '22023';
    end if;
    v_index := v_index + 1;
  end loop;

  insert into public.rulebooks (version, status) values (p_version, 'draft')
  on conflict (version) do nothing;
  if not found then
    raise exception 'rulebook version already exists' using errcode = '23505';
  end if;

  insert into public.rules (
    rulebook_version, rule_key, applies_to, jurisdictions, industries, detector, severity,
    weight, tier_key, citation, penalty_usd, statute_codes, title, plain_english, category,
    remediation_title, remediation
  )
  select
    p_version, r.rule_key, r.applies_to, r.jurisdictions, r.industries, r.detector, r.severity,
    r.weight, r.tier_key, r.citation, r.penalty_usd, r.statute_codes, r.title, r.plain_english,
    r.category, r.remediation_title, r.remediation
  from pg_catalog.jsonb_populate_recordset(null::public.rules, p_rules) r;
  get diagnostics v_count = row_count;

  return pg_catalog.jsonb_build_object('version', p_version, 'rule_count', v_count, 'status', 'draft');
end
$$;

-- rulebook_activate: makes one version the active rulebook and retires the
-- previously active one, in one transaction; exactly one version is active
-- afterwards (the partial unique index guarantees never two). Concurrent
-- activations are serialised by a table lock that still lets readers through.
-- published_at is set on first activation. Returns
-- {version, status: 'active', previous_version (null when none was active)}.
-- Activating the active version changes nothing. Raises P0002 when the version
-- does not exist.
create or replace function public.rulebook_activate(p_version integer)
returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_previous integer;
begin
  lock table public.rulebooks in exclusive mode;
  if not exists (select 1 from public.rulebooks where version = p_version) then
    raise exception 'rulebook version not found' using errcode = 'P0002';
  end if;
  select version into v_previous from public.rulebooks where status = 'active';
  if v_previous is distinct from p_version then
    update public.rulebooks set status = 'retired' where status = 'active';
    update public.rulebooks
    set status = 'active', published_at = coalesce(published_at, pg_catalog.now())
    where version = p_version;
  end if;
  return pg_catalog.jsonb_build_object(
    'version', p_version,
    'status', 'active',
    'previous_version', v_previous
  );
end
$$;

-- rulebook_list: every version, oldest first, as
-- [{version, status, published_at, rule_count}]; [] when none.
create or replace function public.rulebook_list()
returns jsonb
language sql
stable
security definer
set search_path = ''
as $$
  select coalesce(
    pg_catalog.jsonb_agg(
      pg_catalog.jsonb_build_object(
        'version', b.version,
        'status', b.status,
        'published_at', app_private.iso_utc(b.published_at),
        'rule_count', (
          select pg_catalog.count(*)::integer from public.rules r where r.rulebook_version = b.version
        )
      )
      order by b.version
    ),
    '[]'::jsonb
  )
  from public.rulebooks b
$$;

revoke execute on function public.rulebook_active() from public, anon, authenticated;
revoke execute on function public.rulebook_get(integer) from public, anon, authenticated;
revoke execute on function public.rulebook_import(integer, jsonb) from public, anon, authenticated;
revoke execute on function public.rulebook_activate(integer) from public, anon, authenticated;
revoke execute on function public.rulebook_list() from public, anon, authenticated;

grant execute on function public.rulebook_active() to service_role;
grant execute on function public.rulebook_get(integer) to service_role;
grant execute on function public.rulebook_import(integer, jsonb) to service_role;
grant execute on function public.rulebook_activate(integer) to service_role;
grant execute on function public.rulebook_list() to service_role;
