-- The OAuth 2.1 authorization server (docs/auth.md, "OAuth 2.1 server"): the registered clients of other tools,
-- the authorization requests from /oauth/authorize through consent to a single-use code, the consents users gave,
-- and the sessions those codes open (their access tokens carry the client's id).
create table auth.oauth_clients (
  id uuid primary key default gen_random_uuid(),
  client_name text not null default '' check (length(client_name) <= 1024),
  client_uri text,
  logo_uri text,
  redirect_uris text[] not null check (cardinality(redirect_uris) between 1 and 10),
  grant_types text[] not null,
  scope text,
  client_type text not null check (client_type in ('public', 'confidential')),
  token_endpoint_auth_method text not null
    check (token_endpoint_auth_method in ('none', 'client_secret_basic', 'client_secret_post')),
  registration_type text not null default 'manual' check (registration_type in ('manual', 'dynamic')),
  -- SHA-256 of the secret (256 random bits, shown once); null for public clients.
  client_secret_hash text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  check ((client_type = 'public') = (client_secret_hash is null))
);
create index oauth_clients_created_at_idx on auth.oauth_clients (created_at desc, id);

create table auth.oauth_authorizations (
  id uuid primary key default gen_random_uuid(),
  -- The handle the consent page passes back (random, not the row id).
  authorization_id text not null unique,
  client_id uuid not null references auth.oauth_clients (id) on delete cascade,
  user_id uuid references auth.users (id) on delete cascade,
  redirect_uri text not null,
  scope text not null,
  state text,
  code_challenge text not null,
  code_challenge_method text not null check (code_challenge_method in ('s256', 'plain')),
  status text not null default 'pending' check (status in ('pending', 'approved', 'denied', 'used')),
  -- Only the hash of the code is kept; the session it opened is ended if the code is presented again.
  code_hash text unique,
  code_expires_at timestamptz,
  session_id uuid,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null
);
create index oauth_authorizations_client_id_idx on auth.oauth_authorizations (client_id);
create index oauth_authorizations_created_at_idx on auth.oauth_authorizations (created_at);

create table auth.oauth_consents (
  user_id uuid not null references auth.users (id) on delete cascade,
  client_id uuid not null references auth.oauth_clients (id) on delete cascade,
  scopes text not null,
  granted_at timestamptz not null default now(),
  primary key (user_id, client_id)
);
create index oauth_consents_client_id_idx on auth.oauth_consents (client_id);

-- A session an OAuth client opened: refreshed only by that client, ended with it.
alter table auth.sessions
  add column oauth_client_id uuid references auth.oauth_clients (id) on delete cascade,
  add column scopes text;
create index sessions_oauth_client_id_idx on auth.sessions (oauth_client_id) where oauth_client_id is not null;
