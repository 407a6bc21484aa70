-- Phone sign-in: one account per number, the six-digit SMS codes (hashes only, one per user and purpose, with the
-- time it was sent for the resend interval), and phone factors for multi-factor authentication.
create unique index users_phone_key on auth.users (phone) where phone is not null and phone <> '' and deleted_at is null;

create table auth.phone_codes (
  user_id uuid not null references auth.users (id) on delete cascade,
  -- confirmation: the number on the account (sign-up, sign-in); phone_change: a new number (PUT /user).
  purpose text not null check (purpose in ('confirmation', 'phone_change')),
  phone text not null,
  code_hash text not null,
  sent_at timestamptz not null default now(),
  expires_at timestamptz not null,
  primary key (user_id, purpose)
);
create index phone_codes_phone_idx on auth.phone_codes (phone);
alter table auth.phone_codes enable row level security;

-- Phone factors carry a number instead of a TOTP secret; each challenge holds the hash of the code it sent.
alter table auth.mfa_factors drop constraint mfa_factors_factor_type_check;
alter table auth.mfa_factors add constraint mfa_factors_factor_type_check check (factor_type in ('totp', 'phone'));
alter table auth.mfa_factors alter column secret drop not null;
alter table auth.mfa_factors add column phone text, add column last_challenged_at timestamptz;
alter table auth.mfa_factors add constraint mfa_factors_phone_check check ((factor_type = 'phone') = (phone is not null));
alter table auth.mfa_challenges add column code_hash text;
