-- Multi-factor authentication: TOTP factors (secrets encrypted by the server, see mfa-secret-box.ts), their
-- challenges, and auth.aal() so row-level security can ask for a second factor.
create table auth.mfa_factors (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references auth.users (id) on delete cascade,
  friendly_name text,
  factor_type text not null check (factor_type in ('totp')),
  status text not null default 'unverified' check (status in ('unverified', 'verified')),
  -- AES-256-GCM ciphertext of the base32 secret; never the secret itself.
  secret text not null,
  -- The newest TOTP time step accepted: a code is good once, so a seen code cannot be replayed.
  last_step bigint not null default 0,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index mfa_factors_user_id_idx on auth.mfa_factors (user_id);
create unique index mfa_factors_user_friendly_name_key on auth.mfa_factors (user_id, friendly_name)
  where friendly_name is not null and friendly_name <> '';

create table auth.mfa_challenges (
  id uuid primary key default gen_random_uuid(),
  factor_id uuid not null references auth.mfa_factors (id) on delete cascade,
  ip inet,
  created_at timestamptz not null default now(),
  verified_at timestamptz
);
create index mfa_challenges_factor_id_idx on auth.mfa_challenges (factor_id);

-- The caller's authenticator assurance level: 'aal2' after a second factor in this session, else 'aal1'
-- (also for tokens without the claim, such as the API keys).
create function auth.aal() returns text language sql stable as $$
  select coalesce(nullif(auth.jwt() ->> 'aal', ''), 'aal1')
$$;
grant execute on function auth.aal() to anon, authenticated, service_role;
