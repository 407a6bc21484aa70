-- PKCE (flowType 'pkce'): a flow state holds the client's code challenge while the user follows an e-mail link
-- (or, later, an OAuth provider's redirect). The redirect carries an auth code instead of tokens; the client trades
-- it with the code verifier at POST /token?grant_type=pkce. Codes are stored only as hashes and spent once.
create table auth.flow_state (
  id uuid primary key default gen_random_uuid(),
  user_id uuid references auth.users (id) on delete cascade,
  auth_code_hash text unique,
  code_challenge_method text not null check (code_challenge_method in ('s256', 'plain')),
  code_challenge text not null,
  -- The one-time token type (magiclink, recovery, ...) the session's amr is named after.
  authentication_method text not null,
  provider_type text not null default 'email',
  created_at timestamptz not null default now(),
  auth_code_issued_at timestamptz
);
create index flow_state_created_at_idx on auth.flow_state (created_at);
alter table auth.flow_state enable row level security;

-- An e-mail link issued in a PKCE flow names its flow state: following the link issues the auth code.
alter table auth.one_time_tokens
  add column flow_state_id uuid references auth.flow_state (id) on delete set null;
