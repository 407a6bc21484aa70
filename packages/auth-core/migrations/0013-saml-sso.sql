-- SAML 2.0 single sign-on (GoTrue's sso_providers, saml_providers, sso_domains, saml_relay_states, in one
-- provider table): identity providers registered through the admin API, the e-mail domains that pick one, and the
-- single-use relay states that tie an identity provider's answer to the request we sent it.
create table auth.sso_providers (
  id uuid primary key default gen_random_uuid(),
  -- GoTrue answers the SAML part as its own object with its own id.
  saml_id uuid not null default gen_random_uuid(),
  entity_id text not null unique check (entity_id <> ''),
  metadata_xml text not null,
  metadata_url text,
  attribute_mapping jsonb not null default '{}',
  name_id_format text,
  -- GoTrue's caller-chosen key (admin paths accept `resource_<key>` for the id) and its switch that keeps a
  -- registered provider from signing anyone in.
  resource_id text unique,
  disabled boolean,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
alter table auth.sso_providers enable row level security;

create table auth.sso_domains (
  id uuid primary key default gen_random_uuid(),
  sso_provider_id uuid not null references auth.sso_providers (id) on delete cascade,
  domain text not null check (domain <> ''),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create unique index sso_domains_domain_key on auth.sso_domains (lower(domain));
create index sso_domains_provider_idx on auth.sso_domains (sso_provider_id);
alter table auth.sso_domains enable row level security;

-- The RelayState sent with an AuthnRequest is this row's id; the ACS spends it (deleted), so an answer to a
-- request is taken once. request_id is the AuthnRequest's ID, which the answer's InResponseTo must name.
create table auth.saml_relay_states (
  id uuid primary key default gen_random_uuid(),
  sso_provider_id uuid not null references auth.sso_providers (id) on delete cascade,
  request_id text not null,
  redirect_to text not null,
  flow_state_id uuid references auth.flow_state (id) on delete cascade,
  created_at timestamptz not null default now()
);
create index saml_relay_states_created_at_idx on auth.saml_relay_states (created_at);
alter table auth.saml_relay_states enable row level security;

-- GoTrue keeps SSO accounts apart from the others: an SSO user may share an address with an e-mail user (or a user
-- of another identity provider), and is never found by address outside its provider.
alter table auth.users add column is_sso_user boolean not null default false;
drop index auth.users_email_key;
create unique index users_email_key on auth.users (lower(email))
  where email is not null and deleted_at is null and not is_sso_user;
