-- Generated from the migrations by apps/server/test/schema-snapshot.test.ts (`pnpm schema:snapshot`): do not
-- edit. Read the schema in force here; change it in a new migration (packages/*/migrations*).

-- object: schema notifications
create schema notifications;

-- object: function notifications.invitation_expiry()
CREATE OR REPLACE FUNCTION notifications.invitation_expiry()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path TO ''
AS $function$
declare
  v_days text := current_setting('auction_ops.invite_expires_in_days', true);
begin
  if v_days ~ '^\d{1,2}$' and v_days::integer between 1 and 30 then
    new.expires_at := now() + make_interval(days => v_days::integer);
  end if;
  return new;
end $function$;

-- object: function notifications.queue_from_event()
CREATE OR REPLACE FUNCTION notifications.queue_from_event()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
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
end $function$;

-- object: table notifications.pending_notices
create table notifications.pending_notices (
  user_id uuid not null,
  location_id uuid not null,
  notified_at timestamp with time zone not null,
  minutes_overdue integer not null
);
alter table notifications.pending_notices enable row level security;
alter table notifications.pending_notices add constraint pending_notices_location_id_fkey FOREIGN KEY (location_id) REFERENCES public.locations(id) ON DELETE CASCADE;
alter table notifications.pending_notices add constraint pending_notices_pkey PRIMARY KEY (user_id, location_id);
alter table notifications.pending_notices add constraint pending_notices_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id) ON DELETE CASCADE;

-- object: table notifications.push_jobs
create table notifications.push_jobs (
  id uuid not null default gen_random_uuid(),
  kind text not null,
  subject_id uuid not null,
  auction_id uuid not null,
  payload jsonb not null default '{}'::jsonb,
  status text not null default 'queued'::text,
  attempts integer not null default 0,
  next_attempt_at timestamp with time zone not null default now(),
  locked_by text,
  locked_until timestamp with time zone,
  delivered_tokens text[] not null default '{}'::text[],
  removed_tokens integer not null default 0,
  result jsonb,
  last_error text,
  created_at timestamp with time zone not null default clock_timestamp(),
  sent_at timestamp with time zone
);
alter table notifications.push_jobs enable row level security;
alter table notifications.push_jobs add constraint push_jobs_auction_id_fkey FOREIGN KEY (auction_id) REFERENCES public.auctions(id) ON DELETE CASCADE;
alter table notifications.push_jobs add constraint push_jobs_kind_check CHECK ((kind = ANY (ARRAY['chat_message'::text, 'submission'::text])));
alter table notifications.push_jobs add constraint push_jobs_pkey PRIMARY KEY (id);
alter table notifications.push_jobs add constraint push_jobs_status_check CHECK ((status = ANY (ARRAY['queued'::text, 'sent'::text, 'failed'::text])));
alter table notifications.push_jobs add constraint push_jobs_subject_key UNIQUE (kind, subject_id);
CREATE INDEX push_jobs_done_idx ON notifications.push_jobs USING btree (sent_at) WHERE (status <> 'queued'::text);
CREATE INDEX push_jobs_due_idx ON notifications.push_jobs USING btree (next_attempt_at) WHERE (status = 'queued'::text);

-- object: table notifications.push_outbox
create table notifications.push_outbox (
  id uuid not null default gen_random_uuid(),
  token text not null,
  title text,
  body text,
  data jsonb,
  priority text,
  sound text,
  badge integer,
  created_at timestamp with time zone not null default clock_timestamp()
);
alter table notifications.push_outbox enable row level security;
alter table notifications.push_outbox add constraint push_outbox_pkey PRIMARY KEY (id);
CREATE INDEX push_outbox_created_idx ON notifications.push_outbox USING btree (created_at DESC);
