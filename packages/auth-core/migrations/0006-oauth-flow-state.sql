-- OAuth / OpenID Connect sign-in: a flow state also carries one provider round trip. The `state` sent to the
-- provider is stored as a hash and spent by the callback; the nonce and the PKCE verifier towards the provider
-- check its answer. The client's own challenge is optional here (implicit flow), so it becomes nullable.
alter table auth.flow_state
  alter column code_challenge drop not null,
  alter column code_challenge_method drop not null,
  add column oauth_state_hash text unique,
  add column nonce text,
  add column provider_code_verifier text,
  add column redirect_to text,
  add column link_user_id uuid references auth.users (id) on delete cascade;
