-- Generated from the migrations by apps/server/test/schema-snapshot.test.ts (`pnpm schema:snapshot`): do not
-- edit. Read the schema in force here; change it in a new migration (packages/*/migrations*).

-- object: schema auth
create schema auth;
grant usage on schema auth to anon;
grant usage on schema auth to authenticated;
grant usage on schema auth to service_role;

-- object: function auth.aal()
CREATE OR REPLACE FUNCTION auth.aal()
 RETURNS text
 LANGUAGE sql
 STABLE PARALLEL SAFE
AS $function$
  select coalesce(nullif(auth.jwt() ->> 'aal', ''), 'aal1')
$function$;
grant execute on function auth.aal() to anon;
grant execute on function auth.aal() to authenticated;
grant execute on function auth.aal() to public;
grant execute on function auth.aal() to service_role;

-- object: function auth.forget_deleted_account()
CREATE OR REPLACE FUNCTION auth.forget_deleted_account()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  delete from auth.sessions where user_id = new.id;
  delete from auth.identities where user_id = new.id;
  delete from auth.one_time_tokens where user_id = new.id;
  -- Factors take their challenges and WebAuthn keys with them.
  delete from auth.mfa_factors where user_id = new.id;
  delete from auth.webauthn_credentials where user_id = new.id;
  delete from auth.webauthn_challenges where user_id = new.id;
  delete from auth.phone_codes where user_id = new.id;
  delete from auth.flow_state where user_id = new.id or link_user_id = new.id;
  delete from auth.oauth_consents where user_id = new.id;
  delete from auth.oauth_authorizations where user_id = new.id;
  new.encrypted_password := null;
  new.reauthentication_token := null;
  new.reauthentication_sent_at := null;
  new.email := auth.obfuscated(new.id, new.email);
  new.phone := left(auth.obfuscated(new.id, new.phone), 15);
  new.raw_user_meta_data := '{}';
  new.raw_app_meta_data := '{}';
  -- The profile copy too: its sync trigger runs only when an update names email or raw_user_meta_data itself.
  update public.users set email = new.email, full_name = null, avatar_url = null, updated_at = now()
  where id = new.id;
  return new;
end $function$;

-- object: function auth.jwt()
CREATE OR REPLACE FUNCTION auth.jwt()
 RETURNS jsonb
 LANGUAGE sql
 STABLE PARALLEL SAFE
AS $function$
  select coalesce(nullif(current_setting('request.jwt.claims', true), ''), '{}')::jsonb
$function$;
grant execute on function auth.jwt() to anon;
grant execute on function auth.jwt() to authenticated;
grant execute on function auth.jwt() to public;
grant execute on function auth.jwt() to service_role;

-- object: function auth.obfuscated(uuid,text)
CREATE OR REPLACE FUNCTION auth.obfuscated(account uuid, value text)
 RETURNS text
 LANGUAGE sql
 IMMUTABLE
 SET search_path TO ''
AS $function$
  select rtrim(translate(encode(sha256(convert_to(account::text || value, 'UTF8')), 'base64'), '+/', '-_'), '=')
$function$;

-- object: function auth.role()
CREATE OR REPLACE FUNCTION auth.role()
 RETURNS text
 LANGUAGE sql
 STABLE PARALLEL SAFE
AS $function$
  select nullif(auth.jwt() ->> 'role', '')
$function$;
grant execute on function auth.role() to anon;
grant execute on function auth.role() to authenticated;
grant execute on function auth.role() to public;
grant execute on function auth.role() to service_role;

-- object: function auth.sync_public_user()
CREATE OR REPLACE FUNCTION auth.sync_public_user()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  insert into public.users (id, email, full_name, avatar_url, created_at)
  values (new.id, new.email, new.raw_user_meta_data ->> 'full_name', new.raw_user_meta_data ->> 'avatar_url', new.created_at)
  on conflict (id) do update
    set email = excluded.email,
        full_name = coalesce(excluded.full_name, public.users.full_name),
        avatar_url = coalesce(excluded.avatar_url, public.users.avatar_url),
        updated_at = now();
  return new;
end $function$;

-- object: function auth.uid()
CREATE OR REPLACE FUNCTION auth.uid()
 RETURNS uuid
 LANGUAGE sql
 STABLE PARALLEL SAFE
AS $function$
  select nullif(auth.jwt() ->> 'sub', '')::uuid
$function$;
grant execute on function auth.uid() to anon;
grant execute on function auth.uid() to authenticated;
grant execute on function auth.uid() to public;
grant execute on function auth.uid() to service_role;

-- object: table auth.flow_state
create table auth.flow_state (
  id uuid not null default gen_random_uuid(),
  user_id uuid,
  auth_code_hash text,
  code_challenge_method text,
  code_challenge text,
  authentication_method text not null,
  provider_type text not null default 'email'::text,
  created_at timestamp with time zone not null default now(),
  auth_code_issued_at timestamp with time zone,
  oauth_state_hash text,
  nonce text,
  provider_code_verifier text,
  redirect_to text,
  link_user_id uuid
);
alter table auth.flow_state enable row level security;
alter table auth.flow_state add constraint flow_state_auth_code_hash_key UNIQUE (auth_code_hash);
alter table auth.flow_state add constraint flow_state_code_challenge_method_check CHECK ((code_challenge_method = ANY (ARRAY['s256'::text, 'plain'::text])));
alter table auth.flow_state add constraint flow_state_link_user_id_fkey FOREIGN KEY (link_user_id) REFERENCES auth.users(id) ON DELETE CASCADE;
alter table auth.flow_state add constraint flow_state_oauth_state_hash_key UNIQUE (oauth_state_hash);
alter table auth.flow_state add constraint flow_state_pkey PRIMARY KEY (id);
alter table auth.flow_state add constraint flow_state_user_id_fkey FOREIGN KEY (user_id) REFERENCES auth.users(id) ON DELETE CASCADE;
CREATE INDEX flow_state_created_at_idx ON auth.flow_state USING btree (created_at);

-- object: table auth.identities
create table auth.identities (
  id uuid not null default gen_random_uuid(),
  user_id uuid not null,
  provider text not null,
  provider_id text not null,
  identity_data jsonb not null default '{}'::jsonb,
  last_sign_in_at timestamp with time zone,
  created_at timestamp with time zone not null default now(),
  updated_at timestamp with time zone not null default now()
);
alter table auth.identities enable row level security;
alter table auth.identities add constraint identities_pkey PRIMARY KEY (id);
alter table auth.identities add constraint identities_provider_provider_id_key UNIQUE (provider, provider_id);
alter table auth.identities add constraint identities_user_id_fkey FOREIGN KEY (user_id) REFERENCES auth.users(id) ON DELETE CASCADE;
CREATE INDEX identities_user_id_idx ON auth.identities USING btree (user_id);

-- object: table auth.mail_outbox
create table auth.mail_outbox (
  id uuid not null default gen_random_uuid(),
  to_email text not null,
  from_email text not null,
  subject text not null,
  text_body text not null,
  html_body text,
  template text,
  created_at timestamp with time zone not null default now()
);
alter table auth.mail_outbox enable row level security;
alter table auth.mail_outbox add constraint mail_outbox_pkey PRIMARY KEY (id);
CREATE INDEX mail_outbox_created_at_idx ON auth.mail_outbox USING btree (created_at DESC);

-- object: table auth.mfa_challenges
create table auth.mfa_challenges (
  id uuid not null default gen_random_uuid(),
  factor_id uuid not null,
  ip inet,
  created_at timestamp with time zone not null default now(),
  verified_at timestamp with time zone,
  code_hash text
);
alter table auth.mfa_challenges add constraint mfa_challenges_factor_id_fkey FOREIGN KEY (factor_id) REFERENCES auth.mfa_factors(id) ON DELETE CASCADE;
alter table auth.mfa_challenges add constraint mfa_challenges_pkey PRIMARY KEY (id);
CREATE INDEX mfa_challenges_factor_id_idx ON auth.mfa_challenges USING btree (factor_id);

-- object: table auth.mfa_factors
create table auth.mfa_factors (
  id uuid not null default gen_random_uuid(),
  user_id uuid not null,
  friendly_name text,
  factor_type text not null,
  status text not null default 'unverified'::text,
  secret text,
  last_step bigint not null default 0,
  created_at timestamp with time zone not null default now(),
  updated_at timestamp with time zone not null default now(),
  phone text,
  last_challenged_at timestamp with time zone
);
alter table auth.mfa_factors add constraint mfa_factors_factor_type_check CHECK ((factor_type = ANY (ARRAY['totp'::text, 'phone'::text, 'webauthn'::text])));
alter table auth.mfa_factors add constraint mfa_factors_phone_check CHECK (((factor_type = 'phone'::text) = (phone IS NOT NULL)));
alter table auth.mfa_factors add constraint mfa_factors_pkey PRIMARY KEY (id);
alter table auth.mfa_factors add constraint mfa_factors_status_check CHECK ((status = ANY (ARRAY['unverified'::text, 'verified'::text])));
alter table auth.mfa_factors add constraint mfa_factors_user_id_fkey FOREIGN KEY (user_id) REFERENCES auth.users(id) ON DELETE CASCADE;
CREATE UNIQUE INDEX mfa_factors_user_friendly_name_key ON auth.mfa_factors USING btree (user_id, friendly_name) WHERE ((friendly_name IS NOT NULL) AND (friendly_name <> ''::text));
CREATE INDEX mfa_factors_user_id_idx ON auth.mfa_factors USING btree (user_id);

-- object: table auth.oauth_authorizations
create table auth.oauth_authorizations (
  id uuid not null default gen_random_uuid(),
  authorization_id text not null,
  client_id uuid not null,
  user_id uuid,
  redirect_uri text not null,
  scope text not null,
  state text,
  code_challenge text not null,
  code_challenge_method text not null,
  status text not null default 'pending'::text,
  code_hash text,
  code_expires_at timestamp with time zone,
  session_id uuid,
  created_at timestamp with time zone not null default now(),
  expires_at timestamp with time zone not null
);
alter table auth.oauth_authorizations add constraint oauth_authorizations_authorization_id_key UNIQUE (authorization_id);
alter table auth.oauth_authorizations add constraint oauth_authorizations_client_id_fkey FOREIGN KEY (client_id) REFERENCES auth.oauth_clients(id) ON DELETE CASCADE;
alter table auth.oauth_authorizations add constraint oauth_authorizations_code_challenge_method_check CHECK ((code_challenge_method = ANY (ARRAY['s256'::text, 'plain'::text])));
alter table auth.oauth_authorizations add constraint oauth_authorizations_code_hash_key UNIQUE (code_hash);
alter table auth.oauth_authorizations add constraint oauth_authorizations_pkey PRIMARY KEY (id);
alter table auth.oauth_authorizations add constraint oauth_authorizations_status_check CHECK ((status = ANY (ARRAY['pending'::text, 'approved'::text, 'denied'::text, 'used'::text])));
alter table auth.oauth_authorizations add constraint oauth_authorizations_user_id_fkey FOREIGN KEY (user_id) REFERENCES auth.users(id) ON DELETE CASCADE;
CREATE INDEX oauth_authorizations_client_id_idx ON auth.oauth_authorizations USING btree (client_id);
CREATE INDEX oauth_authorizations_created_at_idx ON auth.oauth_authorizations USING btree (created_at);

-- object: table auth.oauth_clients
create table auth.oauth_clients (
  id uuid not null default gen_random_uuid(),
  client_name text not null default ''::text,
  client_uri text,
  logo_uri text,
  redirect_uris text[] not null,
  grant_types text[] not null,
  scope text,
  client_type text not null,
  token_endpoint_auth_method text not null,
  registration_type text not null default 'manual'::text,
  client_secret_hash text,
  created_at timestamp with time zone not null default now(),
  updated_at timestamp with time zone not null default now()
);
alter table auth.oauth_clients add constraint oauth_clients_check CHECK (((client_type = 'public'::text) = (client_secret_hash IS NULL)));
alter table auth.oauth_clients add constraint oauth_clients_client_name_check CHECK ((length(client_name) <= 1024));
alter table auth.oauth_clients add constraint oauth_clients_client_type_check CHECK ((client_type = ANY (ARRAY['public'::text, 'confidential'::text])));
alter table auth.oauth_clients add constraint oauth_clients_pkey PRIMARY KEY (id);
alter table auth.oauth_clients add constraint oauth_clients_redirect_uris_check CHECK (((cardinality(redirect_uris) >= 1) AND (cardinality(redirect_uris) <= 10)));
alter table auth.oauth_clients add constraint oauth_clients_registration_type_check CHECK ((registration_type = ANY (ARRAY['manual'::text, 'dynamic'::text])));
alter table auth.oauth_clients add constraint oauth_clients_token_endpoint_auth_method_check CHECK ((token_endpoint_auth_method = ANY (ARRAY['none'::text, 'client_secret_basic'::text, 'client_secret_post'::text])));
CREATE INDEX oauth_clients_created_at_idx ON auth.oauth_clients USING btree (created_at DESC, id);

-- object: table auth.oauth_consents
create table auth.oauth_consents (
  user_id uuid not null,
  client_id uuid not null,
  scopes text not null,
  granted_at timestamp with time zone not null default now()
);
alter table auth.oauth_consents add constraint oauth_consents_client_id_fkey FOREIGN KEY (client_id) REFERENCES auth.oauth_clients(id) ON DELETE CASCADE;
alter table auth.oauth_consents add constraint oauth_consents_pkey PRIMARY KEY (user_id, client_id);
alter table auth.oauth_consents add constraint oauth_consents_user_id_fkey FOREIGN KEY (user_id) REFERENCES auth.users(id) ON DELETE CASCADE;
CREATE INDEX oauth_consents_client_id_idx ON auth.oauth_consents USING btree (client_id);

-- object: table auth.one_time_tokens
create table auth.one_time_tokens (
  id uuid not null default gen_random_uuid(),
  user_id uuid not null,
  token_type text not null,
  token_hash text not null,
  relates_to text not null default ''::text,
  created_at timestamp with time zone not null default now(),
  expires_at timestamp with time zone not null,
  used_at timestamp with time zone,
  code_hash text,
  flow_state_id uuid
);
alter table auth.one_time_tokens enable row level security;
alter table auth.one_time_tokens add constraint one_time_tokens_flow_state_id_fkey FOREIGN KEY (flow_state_id) REFERENCES auth.flow_state(id) ON DELETE SET NULL;
alter table auth.one_time_tokens add constraint one_time_tokens_pkey PRIMARY KEY (id);
alter table auth.one_time_tokens add constraint one_time_tokens_token_hash_key UNIQUE (token_hash);
alter table auth.one_time_tokens add constraint one_time_tokens_token_type_check CHECK ((token_type = ANY (ARRAY['confirmation'::text, 'recovery'::text, 'invite'::text, 'magiclink'::text, 'email_change'::text])));
alter table auth.one_time_tokens add constraint one_time_tokens_user_id_fkey FOREIGN KEY (user_id) REFERENCES auth.users(id) ON DELETE CASCADE;
CREATE INDEX one_time_tokens_user_id_idx ON auth.one_time_tokens USING btree (user_id);
CREATE INDEX one_time_tokens_user_type_idx ON auth.one_time_tokens USING btree (user_id, token_type);

-- object: table auth.phone_codes
create table auth.phone_codes (
  user_id uuid not null,
  purpose text not null,
  phone text not null,
  code_hash text not null,
  sent_at timestamp with time zone not null default now(),
  expires_at timestamp with time zone not null
);
alter table auth.phone_codes enable row level security;
alter table auth.phone_codes add constraint phone_codes_pkey PRIMARY KEY (user_id, purpose);
alter table auth.phone_codes add constraint phone_codes_purpose_check CHECK ((purpose = ANY (ARRAY['confirmation'::text, 'phone_change'::text])));
alter table auth.phone_codes add constraint phone_codes_user_id_fkey FOREIGN KEY (user_id) REFERENCES auth.users(id) ON DELETE CASCADE;
CREATE INDEX phone_codes_phone_idx ON auth.phone_codes USING btree (phone);

-- object: table auth.rate_limits
create table auth.rate_limits (
  key text not null,
  window_start timestamp with time zone not null,
  expires_at timestamp with time zone not null,
  hits integer not null
);
alter table auth.rate_limits enable row level security;
alter table auth.rate_limits add constraint rate_limits_pkey PRIMARY KEY (key);
CREATE INDEX rate_limits_expires_at_idx ON auth.rate_limits USING btree (expires_at);

-- object: table auth.refresh_tokens
create table auth.refresh_tokens (
  id bigint not null default nextval('auth.refresh_tokens_id_seq'::regclass),
  session_id uuid not null,
  token_hash text not null,
  revoked_at timestamp with time zone,
  created_at timestamp with time zone not null default now()
);
alter table auth.refresh_tokens enable row level security;
alter table auth.refresh_tokens add constraint refresh_tokens_pkey PRIMARY KEY (id);
alter table auth.refresh_tokens add constraint refresh_tokens_session_id_fkey FOREIGN KEY (session_id) REFERENCES auth.sessions(id) ON DELETE CASCADE;
alter table auth.refresh_tokens add constraint refresh_tokens_token_hash_key UNIQUE (token_hash);
CREATE INDEX refresh_tokens_session_id_idx ON auth.refresh_tokens USING btree (session_id);

-- object: table auth.saml_relay_states
create table auth.saml_relay_states (
  id uuid not null default gen_random_uuid(),
  sso_provider_id uuid not null,
  request_id text not null,
  redirect_to text not null,
  flow_state_id uuid,
  created_at timestamp with time zone not null default now()
);
alter table auth.saml_relay_states enable row level security;
alter table auth.saml_relay_states add constraint saml_relay_states_flow_state_id_fkey FOREIGN KEY (flow_state_id) REFERENCES auth.flow_state(id) ON DELETE CASCADE;
alter table auth.saml_relay_states add constraint saml_relay_states_pkey PRIMARY KEY (id);
alter table auth.saml_relay_states add constraint saml_relay_states_sso_provider_id_fkey FOREIGN KEY (sso_provider_id) REFERENCES auth.sso_providers(id) ON DELETE CASCADE;
CREATE INDEX saml_relay_states_created_at_idx ON auth.saml_relay_states USING btree (created_at);

-- object: table auth.sessions
create table auth.sessions (
  id uuid not null default gen_random_uuid(),
  user_id uuid not null,
  aal text not null default 'aal1'::text,
  amr jsonb not null default '[]'::jsonb,
  user_agent text,
  ip inet,
  created_at timestamp with time zone not null default now(),
  updated_at timestamp with time zone not null default now(),
  refreshed_at timestamp with time zone,
  not_after timestamp with time zone,
  oauth_client_id uuid,
  scopes text
);
alter table auth.sessions enable row level security;
alter table auth.sessions add constraint sessions_oauth_client_id_fkey FOREIGN KEY (oauth_client_id) REFERENCES auth.oauth_clients(id) ON DELETE CASCADE;
alter table auth.sessions add constraint sessions_pkey PRIMARY KEY (id);
alter table auth.sessions add constraint sessions_user_id_fkey FOREIGN KEY (user_id) REFERENCES auth.users(id) ON DELETE CASCADE;
CREATE INDEX sessions_oauth_client_id_idx ON auth.sessions USING btree (oauth_client_id) WHERE (oauth_client_id IS NOT NULL);
CREATE INDEX sessions_user_id_idx ON auth.sessions USING btree (user_id);

-- object: table auth.sso_domains
create table auth.sso_domains (
  id uuid not null default gen_random_uuid(),
  sso_provider_id uuid not null,
  domain text not null,
  created_at timestamp with time zone not null default now(),
  updated_at timestamp with time zone not null default now()
);
alter table auth.sso_domains enable row level security;
alter table auth.sso_domains add constraint sso_domains_domain_check CHECK ((domain <> ''::text));
alter table auth.sso_domains add constraint sso_domains_pkey PRIMARY KEY (id);
alter table auth.sso_domains add constraint sso_domains_sso_provider_id_fkey FOREIGN KEY (sso_provider_id) REFERENCES auth.sso_providers(id) ON DELETE CASCADE;
CREATE UNIQUE INDEX sso_domains_domain_key ON auth.sso_domains USING btree (lower(domain));
CREATE INDEX sso_domains_provider_idx ON auth.sso_domains USING btree (sso_provider_id);

-- object: table auth.sso_providers
create table auth.sso_providers (
  id uuid not null default gen_random_uuid(),
  saml_id uuid not null default gen_random_uuid(),
  entity_id text not null,
  metadata_xml text not null,
  metadata_url text,
  attribute_mapping jsonb not null default '{}'::jsonb,
  name_id_format text,
  resource_id text,
  disabled boolean,
  created_at timestamp with time zone not null default now(),
  updated_at timestamp with time zone not null default now()
);
alter table auth.sso_providers enable row level security;
alter table auth.sso_providers add constraint sso_providers_entity_id_check CHECK ((entity_id <> ''::text));
alter table auth.sso_providers add constraint sso_providers_entity_id_key UNIQUE (entity_id);
alter table auth.sso_providers add constraint sso_providers_pkey PRIMARY KEY (id);
alter table auth.sso_providers add constraint sso_providers_resource_id_key UNIQUE (resource_id);

-- object: table auth.users
create table auth.users (
  id uuid not null default gen_random_uuid(),
  aud text not null default 'authenticated'::text,
  role text not null default 'authenticated'::text,
  email text,
  encrypted_password text,
  email_confirmed_at timestamp with time zone,
  phone text,
  phone_confirmed_at timestamp with time zone,
  last_sign_in_at timestamp with time zone,
  raw_app_meta_data jsonb not null default '{"provider": "email", "providers": ["email"]}'::jsonb,
  raw_user_meta_data jsonb not null default '{}'::jsonb,
  is_anonymous boolean not null default false,
  banned_until timestamp with time zone,
  deleted_at timestamp with time zone,
  created_at timestamp with time zone not null default now(),
  updated_at timestamp with time zone not null default now(),
  invited_at timestamp with time zone,
  reauthentication_token text,
  reauthentication_sent_at timestamp with time zone,
  is_sso_user boolean not null default false
);
alter table auth.users enable row level security;
alter table auth.users add constraint users_pkey PRIMARY KEY (id);
CREATE UNIQUE INDEX users_email_key ON auth.users USING btree (lower(email)) WHERE ((email IS NOT NULL) AND (deleted_at IS NULL) AND (NOT is_sso_user));
CREATE UNIQUE INDEX users_phone_key ON auth.users USING btree (phone) WHERE ((phone IS NOT NULL) AND (phone <> ''::text) AND (deleted_at IS NULL));
CREATE TRIGGER forget_deleted_account BEFORE UPDATE OF deleted_at ON auth.users FOR EACH ROW WHEN (old.deleted_at IS NULL AND new.deleted_at IS NOT NULL) EXECUTE FUNCTION auth.forget_deleted_account();
CREATE TRIGGER sync_public_user AFTER INSERT OR UPDATE OF email, raw_user_meta_data ON auth.users FOR EACH ROW EXECUTE FUNCTION auth.sync_public_user();

-- object: table auth.webauthn_challenges
create table auth.webauthn_challenges (
  id uuid not null default gen_random_uuid(),
  purpose text not null,
  user_id uuid,
  factor_id uuid,
  challenge text not null,
  ip inet,
  created_at timestamp with time zone not null default now(),
  expires_at timestamp with time zone not null
);
alter table auth.webauthn_challenges add constraint webauthn_challenges_factor_id_fkey FOREIGN KEY (factor_id) REFERENCES auth.mfa_factors(id) ON DELETE CASCADE;
alter table auth.webauthn_challenges add constraint webauthn_challenges_pkey PRIMARY KEY (id);
alter table auth.webauthn_challenges add constraint webauthn_challenges_purpose_check CHECK ((purpose = ANY (ARRAY['registration'::text, 'authentication'::text, 'factor_create'::text, 'factor_request'::text])));
alter table auth.webauthn_challenges add constraint webauthn_challenges_user_id_fkey FOREIGN KEY (user_id) REFERENCES auth.users(id) ON DELETE CASCADE;
CREATE INDEX webauthn_challenges_expires_at_idx ON auth.webauthn_challenges USING btree (expires_at);

-- object: table auth.webauthn_credentials
create table auth.webauthn_credentials (
  id uuid not null default gen_random_uuid(),
  user_id uuid not null,
  factor_id uuid,
  credential_id text not null,
  public_key bytea not null,
  sign_count bigint not null default 0,
  transports jsonb not null default '[]'::jsonb,
  aaguid uuid,
  backup_eligible boolean not null default false,
  backed_up boolean not null default false,
  friendly_name text not null default ''::text,
  created_at timestamp with time zone not null default now(),
  updated_at timestamp with time zone not null default now(),
  last_used_at timestamp with time zone
);
alter table auth.webauthn_credentials add constraint webauthn_credentials_credential_id_key UNIQUE (credential_id);
alter table auth.webauthn_credentials add constraint webauthn_credentials_factor_id_fkey FOREIGN KEY (factor_id) REFERENCES auth.mfa_factors(id) ON DELETE CASCADE;
alter table auth.webauthn_credentials add constraint webauthn_credentials_factor_id_key UNIQUE (factor_id);
alter table auth.webauthn_credentials add constraint webauthn_credentials_pkey PRIMARY KEY (id);
alter table auth.webauthn_credentials add constraint webauthn_credentials_user_id_fkey FOREIGN KEY (user_id) REFERENCES auth.users(id) ON DELETE CASCADE;
CREATE INDEX webauthn_credentials_user_id_idx ON auth.webauthn_credentials USING btree (user_id);
