-- WebAuthn: passkeys (a first factor of their own, GoTrue's /passkeys) and WebAuthn MFA factors (/factors with
-- factor_type 'webauthn'). Both keep their public-key credentials in auth.webauthn_credentials; the ceremonies'
-- challenges are single-use rows in auth.webauthn_challenges (passkey-service.ts, webauthn-factor-service.ts).
create table auth.webauthn_credentials (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references auth.users (id) on delete cascade,
  -- The MFA factor this credential proves; null for a passkey. A factor's key never signs anyone in alone.
  factor_id uuid unique references auth.mfa_factors (id) on delete cascade,
  -- base64url of the authenticator's credential id, as WebAuthn's JSON carries it (rawId).
  credential_id text not null unique,
  -- The COSE public key; the private key never leaves the authenticator.
  public_key bytea not null,
  -- The authenticator's signature counter: an assertion must raise it (when either side is non-zero), so a cloned
  -- authenticator shows itself.
  sign_count bigint not null default 0,
  transports jsonb not null default '[]',
  aaguid uuid,
  backup_eligible boolean not null default false,
  backed_up boolean not null default false,
  friendly_name text not null default '',
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  last_used_at timestamptz
);
create index webauthn_credentials_user_id_idx on auth.webauthn_credentials (user_id);

create table auth.webauthn_challenges (
  id uuid primary key default gen_random_uuid(),
  -- registration / authentication: passkeys; factor_create / factor_request: an MFA factor's first and later proofs.
  purpose text not null check (purpose in ('registration', 'authentication', 'factor_create', 'factor_request')),
  -- Who asked (null for a passkey sign-in, which has no user until the assertion names one).
  user_id uuid references auth.users (id) on delete cascade,
  factor_id uuid references auth.mfa_factors (id) on delete cascade,
  -- base64url of the random challenge sent in the options; consumed (deleted) by the first verification.
  challenge text not null,
  ip inet,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null
);
create index webauthn_challenges_expires_at_idx on auth.webauthn_challenges (expires_at);

-- A WebAuthn factor has no shared secret (its key is in auth.webauthn_credentials). The type list names phone too, so
-- this migration and the phone factors' agree whichever runs last.
alter table auth.mfa_factors alter column secret drop not null;
alter table auth.mfa_factors drop constraint if exists mfa_factors_factor_type_check;
alter table auth.mfa_factors
  add constraint mfa_factors_factor_type_check check (factor_type in ('totp', 'phone', 'webauthn'));
