-- The auth schema: users, identities, sessions, refresh tokens (hashes only), one-time tokens,
-- the claim helpers used by row-level security, and the public.users profile kept in step by trigger.
-- Extensions live outside the exposed schemas: in public their functions (crypt, gen_random_bytes, pgp_*, ...) would
-- be callable by anyone through /rest/v1/rpc. Where pgcrypto was already installed elsewhere it stays there.
create schema if not exists extensions;
revoke all on schema extensions from public;
create extension if not exists pgcrypto with schema extensions;
create schema if not exists auth;
grant usage on schema auth to anon, authenticated, service_role;

create table auth.users (
  id uuid primary key default gen_random_uuid(),
  aud text not null default 'authenticated',
  role text not null default 'authenticated',
  email text,
  encrypted_password text,
  email_confirmed_at timestamptz,
  phone text,
  phone_confirmed_at timestamptz,
  last_sign_in_at timestamptz,
  raw_app_meta_data jsonb not null default '{"provider": "email", "providers": ["email"]}',
  raw_user_meta_data jsonb not null default '{}',
  is_anonymous boolean not null default false,
  banned_until timestamptz,
  deleted_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create unique index users_email_key on auth.users (lower(email)) where email is not null and deleted_at is null;

create table auth.identities (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references auth.users (id) on delete cascade,
  provider text not null,
  provider_id text not null,
  identity_data jsonb not null default '{}',
  last_sign_in_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (provider, provider_id)
);
create index identities_user_id_idx on auth.identities (user_id);

create table auth.sessions (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references auth.users (id) on delete cascade,
  aal text not null default 'aal1',
  amr jsonb not null default '[]',
  user_agent text,
  ip inet,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  refreshed_at timestamptz,
  not_after timestamptz
);
create index sessions_user_id_idx on auth.sessions (user_id);

-- Only a hash of each refresh token is stored; rotation keeps the chain for reuse detection.
create table auth.refresh_tokens (
  id bigserial primary key,
  session_id uuid not null references auth.sessions (id) on delete cascade,
  token_hash text not null unique,
  revoked_at timestamptz,
  created_at timestamptz not null default now()
);
create index refresh_tokens_session_id_idx on auth.refresh_tokens (session_id);

create table auth.one_time_tokens (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references auth.users (id) on delete cascade,
  token_type text not null check (token_type in ('confirmation', 'recovery', 'invite', 'magiclink', 'email_change')),
  token_hash text not null unique,
  relates_to text not null default '',
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  used_at timestamptz
);
create index one_time_tokens_user_id_idx on auth.one_time_tokens (user_id);

-- Claim helpers. request.jwt.claims is set per transaction by the server (set_config(..., true)).
create function auth.jwt() returns jsonb language sql stable as $$
  select coalesce(nullif(current_setting('request.jwt.claims', true), ''), '{}')::jsonb
$$;
create function auth.uid() returns uuid language sql stable as $$
  select nullif(auth.jwt() ->> 'sub', '')::uuid
$$;
create function auth.role() returns text language sql stable as $$
  select nullif(auth.jwt() ->> 'role', '')
$$;
grant execute on function auth.jwt(), auth.uid(), auth.role() to anon, authenticated, service_role;

-- Public profile: one row per auth user, the FK target of every user_id column in the domain.
create table public.users (
  id uuid primary key references auth.users (id) on delete cascade,
  email text,
  full_name text,
  avatar_url text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
alter table public.users enable row level security;
grant select on public.users to authenticated, service_role;
grant update (full_name, avatar_url) on public.users to authenticated;
grant all on public.users to service_role;
create policy users_select_self on public.users for select to authenticated using (id = (select auth.uid()));
create policy users_update_self on public.users for update to authenticated
  using (id = (select auth.uid())) with check (id = (select auth.uid()));

create function auth.sync_public_user() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  insert into public.users (id, email, full_name, avatar_url, created_at)
  values (new.id, new.email, new.raw_user_meta_data ->> 'full_name', new.raw_user_meta_data ->> 'avatar_url', new.created_at)
  on conflict (id) do update
    set email = excluded.email,
        full_name = coalesce(excluded.full_name, public.users.full_name),
        avatar_url = coalesce(excluded.avatar_url, public.users.avatar_url),
        updated_at = now();
  return new;
end $$;
create trigger sync_public_user after insert or update of email, raw_user_meta_data on auth.users
  for each row execute function auth.sync_public_user();
