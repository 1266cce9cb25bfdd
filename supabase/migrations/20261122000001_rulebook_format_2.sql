-- Rulebook format 2: a version also holds its statutes (citation, effective
-- date, penalty and where the penalty comes from), its named concepts (the
-- lexicons its detectors share) and definitions (named expressions its
-- detectors share), and each rule names the statute ids it
-- enforces and the concern it guards against. Format-1 versions stay as they
-- were imported: their new columns are null and their rule objects unchanged.
alter table public.rulebooks
  add column if not exists format integer not null default 1 check (format in (1, 2)),
  add column if not exists statutes jsonb null
    check (statutes is null or pg_catalog.jsonb_typeof(statutes) = 'array'),
  add column if not exists concepts jsonb null
    check (concepts is null or pg_catalog.jsonb_typeof(concepts) = 'object'),
  add column if not exists definitions jsonb null
    check (definitions is null or pg_catalog.jsonb_typeof(definitions) = 'object');

alter table public.rules
  add column if not exists statute_ids text[] null
    check (statute_ids is null or pg_catalog.array_position(statute_ids, null) is null),
  add column if not exists concern text null;

-- The rule object of a rules row; format-2 rules also carry statute_ids and concern.
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
  ) || case
    when p_rule.statute_ids is null then '{}'::jsonb
    else pg_catalog.jsonb_build_object(
      'statute_ids', pg_catalog.to_jsonb(p_rule.statute_ids),
      'concern', p_rule.concern
    )
  end
$$;
revoke execute on function app_private.rule_json(public.rules) from public;

-- rulebook_get: {version, status, published_at, rules} of one version, plus
-- {format: 2, statutes, concepts, definitions} for a format-2 version; null when the
-- version does not exist.
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
  end
  from public.rulebooks b
  where b.version = p_version
$$;

-- rulebook_import: stores a new version as 'draft' with its rules, all or
-- nothing. p_rules is a non-empty JSON array of rule objects with exactly the
-- rule fields (statute_codes may be null; statute_ids and concern only in
-- format 2). A format-2 version also stores p_statutes (array), p_concepts
-- (object) and p_definitions (object, optional). Returns {version, rule_count, status: 'draft'}. Raises 23505 when
-- the version exists (versions are immutable), 22023 for a malformed
-- argument, and the constraint's error for a bad field value. The caller
-- (the admin CLI) has validated the document with the engine's own checks.
drop function if exists public.rulebook_import(integer, jsonb);
create or replace function public.rulebook_import(
  p_version integer,
  p_rules jsonb,
  p_format integer default 1,
  p_statutes jsonb default null,
  p_concepts jsonb default null,
  p_definitions jsonb default null
)
returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_fields text[] := array[
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
  if p_format is null or p_format not in (1, 2) then
    raise exception 'rulebook format must be 1 or 2' using errcode = '22023';
  end if;
  if p_format = 2 then
    if p_statutes is null or pg_catalog.jsonb_typeof(p_statutes) <> 'array'
      or p_concepts is null or pg_catalog.jsonb_typeof(p_concepts) <> 'object' then
      raise exception 'a format-2 rulebook needs a statutes array and a concepts object'
        using errcode = '22023';
    end if;
    if p_definitions is not null and pg_catalog.jsonb_typeof(p_definitions) <> 'object' then
      raise exception 'definitions must be a JSON object' using errcode = '22023';
    end if;
    v_fields := v_fields || array['statute_ids', 'concern'];
  elsif p_statutes is not null or p_concepts is not null or p_definitions is not null then
    raise exception 'a format-1 rulebook has no statutes or concepts' using errcode = '22023';
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
    if p_format = 2 and (v_rule -> 'statute_ids' is null or v_rule -> 'concern' is null) then
      raise exception 'rule % of a format-2 rulebook needs statute_ids and concern', v_index
        using errcode = '22023';
    end if;
    v_index := v_index + 1;
  end loop;

  insert into public.rulebooks (version, status, format, statutes, concepts, definitions)
  values (p_version, 'draft', p_format, p_statutes, p_concepts, p_definitions)
  on conflict (version) do nothing;
  if not found then
    raise exception 'rulebook version already exists' using errcode = '23505';
  end if;

  insert into public.rules (
    rulebook_version, rule_key, applies_to, jurisdictions, industries, detector, severity,
    weight, tier_key, citation, penalty_usd, statute_codes, title, plain_english, category,
    remediation_title, remediation, statute_ids, concern
  )
  select
    p_version, r.rule_key, r.applies_to, r.jurisdictions, r.industries, r.detector, r.severity,
    r.weight, r.tier_key, r.citation, r.penalty_usd, r.statute_codes, r.title, r.plain_english,
    r.category, r.remediation_title, r.remediation, r.statute_ids, r.concern
  from pg_catalog.jsonb_populate_recordset(null::public.rules, p_rules) r;
  get diagnostics v_count = row_count;

  return pg_catalog.jsonb_build_object('version', p_version, 'rule_count', v_count, 'status', 'draft');
end
$$;

-- rulebook_list: every version, oldest first, as
-- [{version, status, published_at, rule_count, format}]; [] when none.
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
        ),
        'format', b.format
      )
      order by b.version
    ),
    '[]'::jsonb
  )
  from public.rulebooks b
$$;

revoke execute on function public.rulebook_get(integer) from public, anon, authenticated;
revoke execute on function public.rulebook_import(integer, jsonb, integer, jsonb, jsonb, jsonb)
  from public, anon, authenticated;
revoke execute on function public.rulebook_list() from public, anon, authenticated;
grant execute on function public.rulebook_get(integer) to service_role;
grant execute on function public.rulebook_import(integer, jsonb, integer, jsonb, jsonb, jsonb) to service_role;
grant execute on function public.rulebook_list() to service_role;
