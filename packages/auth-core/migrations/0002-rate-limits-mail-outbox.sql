-- Shared state for several server instances: fixed-window rate-limit counters, and the local mail outbox
-- (the default mail provider: every message is stored here and listed by `auction-ops mail`).
create table auth.rate_limits (
  key text primary key,
  window_start timestamptz not null,
  expires_at timestamptz not null,
  hits integer not null
);
create index rate_limits_expires_at_idx on auth.rate_limits (expires_at);
alter table auth.rate_limits enable row level security;

create table auth.mail_outbox (
  id uuid primary key default gen_random_uuid(),
  to_email text not null,
  from_email text not null,
  subject text not null,
  text_body text not null,
  html_body text,
  template text,
  created_at timestamptz not null default now()
);
create index mail_outbox_created_at_idx on auth.mail_outbox (created_at desc);
alter table auth.mail_outbox enable row level security;

-- No request role reads auth tables directly; the auth family goes through the owner pool.
alter table auth.users enable row level security;
alter table auth.identities enable row level security;
alter table auth.sessions enable row level security;
alter table auth.refresh_tokens enable row level security;
alter table auth.one_time_tokens enable row level security;
