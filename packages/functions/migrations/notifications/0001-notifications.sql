-- Notifications: the push job queue fed by the event outbox (chat messages, submissions), the development push
-- outbox, the record of overdue-location notices, and the invitation expiry hook of generate-invite-link.
-- Only the server (owner connection) reads or writes this schema; request roles get nothing here.
create schema notifications;
revoke all on schema notifications from public;

-- One job per (kind, subject): a chat message or a lot submission. Written by the trigger below in the
-- transaction that inserted the event, so a committed message always has its job. The worker claims jobs with
-- FOR UPDATE SKIP LOCKED under a lease; `delivered_tokens` keeps the tokens already accepted by the provider so
-- a retried job (provider failure, crash) sends only what is missing.
create table notifications.push_jobs (
  id uuid primary key default gen_random_uuid(),
  kind text not null check (kind in ('chat_message', 'submission')),
  subject_id uuid not null,
  auction_id uuid not null references public.auctions (id) on delete cascade,
  payload jsonb not null default '{}',
  status text not null default 'queued' check (status in ('queued', 'sent', 'failed')),
  attempts integer not null default 0,
  next_attempt_at timestamptz not null default now(),
  locked_by text,
  locked_until timestamptz,
  delivered_tokens text[] not null default '{}',
  removed_tokens integer not null default 0,
  result jsonb,
  last_error text,
  created_at timestamptz not null default clock_timestamp(),
  sent_at timestamptz,
  constraint push_jobs_subject_key unique (kind, subject_id)
);
create index push_jobs_due_idx on notifications.push_jobs (next_attempt_at) where status = 'queued';
create index push_jobs_done_idx on notifications.push_jobs (sent_at) where status <> 'queued';

create function notifications.queue_from_event() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  -- Events without a subject id (hand-made test events, replays) queue nothing rather than fail the writer.
  if coalesce(new.data ->> 'id', '') !~ '^[0-9a-fA-F-]{36}$' then
    return null;
  end if;
  if new.event_type = 'message.created' then
    insert into notifications.push_jobs (kind, subject_id, auction_id, payload)
    values ('chat_message', (new.data ->> 'id')::uuid, new.auction_id, new.data)
    on conflict (kind, subject_id) do nothing;
  elsif new.event_type = 'submission.created' then
    -- Behind the auction's setting, read when the submission is made.
    if not coalesce((select (a.settings ->> 'push_on_submission')::boolean from public.auctions a
                     where a.id = new.auction_id), false) then
      return null;
    end if;
    insert into notifications.push_jobs (kind, subject_id, auction_id, payload)
    values ('submission', (new.data ->> 'id')::uuid, new.auction_id, new.data)
    on conflict (kind, subject_id) do nothing;
  else
    return null;
  end if;
  -- Delivered at commit, and only then: the worker never wakes for a job it cannot see yet.
  perform pg_notify('notification_jobs', '');
  return null;
end $$;
create trigger event_outbox_queue_notifications after insert on public.event_outbox
  for each row when (new.event_type in ('message.created', 'submission.created'))
  execute function notifications.queue_from_event();

-- The development push provider (PUSH_PROVIDER=outbox): what would have gone to Expo, read with `pnpm cli push`.
create table notifications.push_outbox (
  id uuid primary key default gen_random_uuid(),
  token text not null,
  title text,
  body text,
  data jsonb,
  priority text,
  sound text,
  badge integer,
  created_at timestamptz not null default clock_timestamp()
);
create index push_outbox_created_idx on notifications.push_outbox (created_at desc);

-- Overdue-location notices: a (user, location) pair is not notified again within the location's frequency.
create table notifications.pending_notices (
  user_id uuid not null references public.users (id) on delete cascade,
  location_id uuid not null references public.locations (id) on delete cascade,
  notified_at timestamptz not null,
  minutes_overdue integer not null,
  primary key (user_id, location_id)
);

-- generate-invite-link's expires_in_days: invite_user_to_auction always gives the default lifetime, so the function
-- sets this transaction-local setting before calling it, and the new row (and its member.invited event) carries
-- the requested expiry. Bounded here too, so the setting can never stretch an invitation past 30 days.
create function notifications.invitation_expiry() returns trigger
language plpgsql set search_path = '' as $$
declare
  v_days text := current_setting('auction_ops.invite_expires_in_days', true);
begin
  if v_days ~ '^\d{1,2}$' and v_days::integer between 1 and 30 then
    new.expires_at := now() + make_interval(days => v_days::integer);
  end if;
  return new;
end $$;
create trigger auction_invitations_expiry before insert on public.auction_invitations
  for each row execute function notifications.invitation_expiry();

alter table notifications.push_jobs enable row level security;
alter table notifications.push_outbox enable row level security;
alter table notifications.pending_notices enable row level security;
