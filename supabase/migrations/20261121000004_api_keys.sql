-- API keys: only the hex SHA-256 digest of a key and a non-secret display
-- prefix are stored; the key itself is never recoverable.
create table if not exists public.api_keys (
  id uuid primary key default gen_random_uuid(),
  account_id uuid not null references public.accounts (id) on delete cascade,
  key_digest text not null unique check (key_digest ~ '^[0-9a-f]{64}$'),
  key_prefix text not null check (pg_catalog.length(key_prefix) between 1 and 32),
  created_at timestamptz not null default now(),
  revoked_at timestamptz null
);

create index if not exists api_keys_account_id_idx on public.api_keys (account_id);
create index if not exists api_keys_key_prefix_idx on public.api_keys (key_prefix);

alter table public.api_keys enable row level security;
revoke all on table public.api_keys from public, anon, authenticated;
