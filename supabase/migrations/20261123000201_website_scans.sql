-- One row per completed website scan (runWebsiteAudit). A scan belongs to no
-- account: the caller is anonymous and is not recorded (no IP address). What
-- is kept is the outcome and what decided it: the origin scanned (scheme,
-- host and port; never a path or query, which may carry a visitor's data),
-- the score and grade, the counts, the keys of the rules that triggered, and
-- the rulebook version the scan pinned. Page content, excerpts and advisory
-- text are never stored.
create table if not exists public.website_scans (
  id uuid primary key default gen_random_uuid(),
  created_at timestamptz not null default now(),
  target_origin text not null check (
    target_origin ~ '^https?://[^/?#[:space:]]+$' and pg_catalog.length(target_origin) <= 300
  ),
  status_code integer not null check (status_code between 100 and 599),
  score numeric not null check (score between 0 and 100),
  grade text not null check (grade in ('A', 'B', 'C', 'D', 'F')),
  critical_count integer not null check (critical_count >= 0),
  warning_count integer not null check (warning_count >= 0),
  passed_count integer not null check (passed_count >= 0),
  advisory_count integer not null check (advisory_count >= 0),
  pages_scanned integer not null check (pages_scanned >= 1),
  triggered_rules text[] not null check (pg_catalog.array_position(triggered_rules, null) is null),
  rulebook_version integer not null references public.rulebooks (version),
  engine_version text not null check (pg_catalog.length(engine_version) between 1 and 40),
  duration_ms numeric not null check (duration_ms >= 0)
);

create index if not exists website_scans_created_idx on public.website_scans (created_at desc);

alter table public.website_scans enable row level security;
revoke all on table public.website_scans from public, anon, authenticated;
