-- Outbound webhooks: endpoints, the durable delivery queue, the attempt log, fan-out from the event outbox,
-- and the admin RPCs (test, replay one, replay failed since a time). The dispatcher (src/dispatcher.ts) is the
-- only consumer of the queue; it runs as the owner, so nothing here grants the request roles write access to it.
create schema webhooks;

-- Settings the server writes at start (see src/settings-sync.ts), so SQL validation follows the configuration.
create table webhooks.settings (
  id boolean primary key default true check (id),
  allow_http boolean not null default false,
  updated_at timestamptz not null default now()
);
insert into webhooks.settings default values;

-- The 17 event types (docs/events.md). Endpoint subscriptions and test_webhook are checked against it.
create function webhooks.event_types() returns text[]
language sql immutable set search_path = '' as $$
  select array[
    'submission.created', 'submission.updated', 'inspection.created', 'inspection.defect_added',
    'problem.created', 'problem.status_changed', 'problem.assigned', 'problem.action_completed',
    'message.created', 'message.edited', 'message.deleted', 'channel.created', 'channel.archived',
    'member.invited', 'member.joined', 'member.role_changed', 'member.removed'
  ]
$$;

create table public.webhook_endpoints (
  id uuid primary key default gen_random_uuid(),
  auction_id uuid not null references public.auctions (id) on delete cascade,
  url text not null,
  description text,
  events text[] not null,
  -- Write-only: a trigger moves what is written here into webhooks.endpoint_secrets, so reads always see null.
  secret text,
  is_active boolean not null default true,
  consecutive_failures integer not null default 0,
  disabled_at timestamptz,
  disabled_reason text,
  created_by uuid references public.users (id) on delete set null default auth.uid(),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  constraint webhook_endpoints_secret_write_only check (secret is null),
  constraint webhook_endpoints_description_length check (length(description) <= 1000)
);
create index webhook_endpoints_auction_id_idx on public.webhook_endpoints (auction_id) where is_active;

-- Signing secrets, readable by the owner only (the dispatcher). previous_secret keeps signing for 24 h after a
-- rotation so receivers can switch over. The FK is deferred because the BEFORE INSERT trigger writes it first.
create table webhooks.endpoint_secrets (
  endpoint_id uuid primary key references public.webhook_endpoints (id) on delete cascade deferrable initially deferred,
  secret text not null,
  previous_secret text,
  previous_secret_expires_at timestamptz,
  rotated_at timestamptz
);

create table public.webhook_deliveries (
  id uuid primary key default gen_random_uuid(),
  endpoint_id uuid not null references public.webhook_endpoints (id) on delete cascade,
  auction_id uuid not null references public.auctions (id) on delete cascade,
  event_id uuid,
  event_type text not null,
  payload jsonb not null,
  status text not null default 'queued' check (status in ('queued', 'delivered', 'failed')),
  attempt_count integer not null default 0,
  -- Attempts made before the last replay: the retry schedule counts from here.
  round_start_attempt integer not null default 0,
  next_attempt_at timestamptz not null default now(),
  last_status_code integer,
  last_error text,
  is_test boolean not null default false,
  created_at timestamptz not null default now(),
  delivered_at timestamptz,
  -- Lease: the dispatcher that claimed the delivery and until when; an expired lease returns it to the queue.
  locked_by text,
  locked_until timestamptz,
  lease_token uuid,
  -- One delivery per (event, endpoint), whatever happens to the trigger: fan-out is exactly once.
  constraint webhook_deliveries_event_endpoint_key unique (event_id, endpoint_id)
);
create index webhook_deliveries_due_idx on public.webhook_deliveries (endpoint_id, next_attempt_at) where status = 'queued';
create index webhook_deliveries_next_idx on public.webhook_deliveries (next_attempt_at) where status = 'queued';
create index webhook_deliveries_auction_idx on public.webhook_deliveries (auction_id, created_at desc);
create index webhook_deliveries_endpoint_status_idx on public.webhook_deliveries (endpoint_id, status, created_at);

create table public.webhook_delivery_attempts (
  id uuid primary key default gen_random_uuid(),
  delivery_id uuid not null references public.webhook_deliveries (id) on delete cascade,
  endpoint_id uuid not null references public.webhook_endpoints (id) on delete cascade,
  auction_id uuid not null references public.auctions (id) on delete cascade,
  event_type text not null,
  attempt integer not null,
  status text not null check (status in ('success', 'failed')),
  response_status integer,
  response_time_ms integer,
  response_body text check (octet_length(response_body) <= 2048),
  error_message text,
  created_at timestamptz not null default now(),
  -- Two dispatchers can never record the same attempt of a delivery.
  constraint webhook_delivery_attempts_attempt_key unique (delivery_id, attempt)
);
create index webhook_delivery_attempts_created_idx on public.webhook_delivery_attempts (created_at);
create index webhook_delivery_attempts_auction_idx on public.webhook_delivery_attempts (auction_id, created_at desc);

-- Who may manage an auction's webhooks: its admins and owners, super admins, and the service role.
create function webhooks.can_manage(p_auction_id uuid) returns boolean
language sql stable security definer set search_path = '' as $$
  select auth.role() = 'service_role' or public.is_super_admin() or public.is_auction_admin_or_above(p_auction_id)
$$;

-- Endpoint validation and bookkeeping (runs for every writer, owner included).
create function webhooks.endpoint_before_write() returns trigger
language plpgsql security definer set search_path = '' as $$
declare
  allow_http boolean := (select s.allow_http from webhooks.settings s);
  unknown text[];
begin
  -- URL and events are checked when written, so a later change of settings never blocks bookkeeping updates.
  if tg_op = 'INSERT' or new.url is distinct from old.url then
    if new.url is null or length(new.url) > 2048 or new.url !~ '^https?://[^\s/?#@]+(/[^\s]*)?$' then
      raise exception 'webhook url must be an absolute http(s) URL without credentials' using errcode = '22023';
    end if;
    if new.url !~* '^https://' and not allow_http then
      raise exception 'webhook url must use https' using errcode = '22023';
    end if;
  end if;
  if tg_op = 'INSERT' or new.events is distinct from old.events then
    if new.events is null or cardinality(new.events) = 0 then
      raise exception 'webhook events must list at least one event type' using errcode = '22023';
    end if;
    unknown := array(select e from unnest(new.events) e where e is null or e <> all (webhooks.event_types()));
    if cardinality(unknown) > 0 then
      raise exception 'unknown webhook event type: %', array_to_string(unknown, ', ') using errcode = '22023',
        hint = 'known types: ' || array_to_string(webhooks.event_types(), ', ');
    end if;
    new.events := array(select distinct e from unnest(new.events) e order by e);
  end if;

  if tg_op = 'INSERT' then
    if new.secret is null or length(new.secret) < 16 then
      raise exception 'webhook secret must be at least 16 characters' using errcode = '22023';
    end if;
    insert into webhooks.endpoint_secrets (endpoint_id, secret) values (new.id, new.secret);
    new.consecutive_failures := 0;
    new.disabled_at := case when new.is_active then null else now() end;
    new.disabled_reason := case when new.is_active then null else coalesce(new.disabled_reason, 'created disabled') end;
  else
    if new.id <> old.id or new.auction_id <> old.auction_id then
      raise exception 'webhook endpoint id and auction_id cannot change' using errcode = '22023';
    end if;
    if new.secret is not null then
      if length(new.secret) < 16 then
        raise exception 'webhook secret must be at least 16 characters' using errcode = '22023';
      end if;
      -- Rotation: the old secret keeps signing (a second signature) for 24 hours.
      update webhooks.endpoint_secrets s
         set previous_secret = s.secret, previous_secret_expires_at = now() + interval '24 hours',
             secret = new.secret, rotated_at = now()
       where s.endpoint_id = new.id and s.secret <> new.secret;
    end if;
    if new.is_active and not old.is_active then
      new.consecutive_failures := 0;
      new.disabled_at := null;
      new.disabled_reason := null;
    elsif not new.is_active and old.is_active then
      new.disabled_at := now();
      new.disabled_reason := coalesce(new.disabled_reason, 'disabled by an administrator');
    end if;
    if new.url is distinct from old.url or new.events is distinct from old.events or new.secret is not null
       or new.is_active <> old.is_active or new.description is distinct from old.description then
      new.updated_at := now();
    end if;
  end if;
  new.secret := null;
  return new;
end $$;
create trigger webhook_endpoints_before_write before insert or update on public.webhook_endpoints
  for each row execute function webhooks.endpoint_before_write();

-- A disabled endpoint's queued deliveries end failed (and can be replayed after re-enabling), so they neither pile
-- up nor surprise the receiver later. Test deliveries are exempt: testing a disabled endpoint is how it gets fixed.
create function webhooks.endpoint_after_disable() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  update public.webhook_deliveries d
     set status = 'failed', last_error = 'endpoint disabled: ' || coalesce(new.disabled_reason, 'disabled'),
         locked_by = null, locked_until = null, lease_token = null
   where d.endpoint_id = new.id and d.status = 'queued' and not d.is_test
     and (d.locked_until is null or d.locked_until < now());
  return null;
end $$;
create trigger webhook_endpoints_after_disable after update of is_active on public.webhook_endpoints
  for each row when (old.is_active and not new.is_active) execute function webhooks.endpoint_after_disable();

-- The delivery body: event, timestamp, webhook_id, auction_id, data (the dispatcher serialises it in this key order).
create function webhooks.build_payload(p_event text, p_occurred_at timestamptz, p_webhook_id uuid, p_auction_id uuid, p_data jsonb)
returns jsonb language sql immutable set search_path = '' as $$
  select jsonb_build_object(
    'event', p_event,
    'timestamp', to_char(p_occurred_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
    'webhook_id', p_webhook_id,
    'auction_id', p_auction_id,
    'data', coalesce(p_data, '{}'::jsonb))
$$;

-- Fan-out, in the transaction that wrote the event: one delivery per matching active endpoint, then a NOTIFY
-- (delivered at commit, and only then) wakes the dispatchers.
create function webhooks.fan_out_event() returns trigger
language plpgsql security definer set search_path = '' as $$
declare
  created integer;
begin
  insert into public.webhook_deliveries (id, endpoint_id, auction_id, event_id, event_type, payload)
  select x.id, e.id, new.auction_id, new.id, new.event_type,
         webhooks.build_payload(new.event_type, new.occurred_at, x.id, new.auction_id, new.data)
    from public.webhook_endpoints e
   cross join lateral (select gen_random_uuid() as id) x
   where e.auction_id = new.auction_id and e.is_active and new.event_type = any (e.events)
  on conflict (event_id, endpoint_id) do nothing;
  get diagnostics created = row_count;
  if created > 0 then
    perform pg_notify('webhook_deliveries', '');
  end if;
  return null;
end $$;
create trigger event_outbox_fan_out after insert on public.event_outbox
  for each row execute function webhooks.fan_out_event();

-- Sample data for test_webhook, in the shapes of docs/events.md.
create function webhooks.sample_event_data(p_event_type text) returns jsonb
language sql stable set search_path = '' as $$
  select case p_event_type
    when 'submission.created' then jsonb_build_object('id', gen_random_uuid(), 'location_id', gen_random_uuid(),
      'location_name', 'Sample Lot A', 'user_id', gen_random_uuid(), 'submitted_by', 'Sample User',
      'submitted_at', now(), 'entries', jsonb_build_array(jsonb_build_object('type_id', gen_random_uuid(),
      'type_name', 'Sedans', 'car_count', 12, 'image_url', null)), 'total_car_count', 12, 'image_url', null)
    when 'submission.updated' then jsonb_build_object('id', gen_random_uuid(), 'location_id', gen_random_uuid(),
      'location_name', 'Sample Lot A', 'user_id', gen_random_uuid(), 'updated_at', now(), 'total_car_count', 14)
    when 'inspection.created' then jsonb_build_object('id', gen_random_uuid(), 'location_id', gen_random_uuid(),
      'location_name', 'Sample Lot A', 'user_id', gen_random_uuid(), 'inspector_name', 'Sample Inspector',
      'vin_number', '1HGCM82633A004352', 'barcode', 'SAMPLE-0001', 'submitted_at', now(), 'defect_count', 1,
      'defects', jsonb_build_array(jsonb_build_object('category', 'Scratch', 'notes', 'Rear bumper')))
    when 'inspection.defect_added' then jsonb_build_object('id', gen_random_uuid(), 'inspection_id', gen_random_uuid(),
      'category_id', gen_random_uuid(), 'category', 'Scratch', 'notes', 'Rear bumper', 'created_at', now())
    when 'problem.created' then jsonb_build_object('id', gen_random_uuid(), 'issue_name', 'Sample issue',
      'area', 'Lot A', 'location_id', gen_random_uuid(), 'location_name', 'Sample Lot A', 'status', 'open',
      'prepared_by', jsonb_build_object('id', gen_random_uuid(), 'name', 'Sample User'), 'submitted_at', now())
    when 'problem.status_changed' then jsonb_build_object('id', gen_random_uuid(), 'issue_name', 'Sample issue',
      'area', 'Lot A', 'location_id', gen_random_uuid(), 'location_name', 'Sample Lot A',
      'previous_status', 'open', 'new_status', 'in_progress',
      'prepared_by', jsonb_build_object('id', gen_random_uuid(), 'name', 'Sample User'),
      'assigned_to', jsonb_build_object('id', gen_random_uuid(), 'name', 'Sample Assignee'),
      'action_count', 2, 'completed_action_count', 1, 'updated_at', now())
    when 'problem.assigned' then jsonb_build_object('id', gen_random_uuid(), 'issue_name', 'Sample issue',
      'previous_assigned_to', null, 'assigned_to', jsonb_build_object('id', gen_random_uuid(), 'name', 'Sample Assignee'),
      'updated_at', now())
    when 'problem.action_completed' then jsonb_build_object('id', gen_random_uuid(), 'problem_id', gen_random_uuid(),
      'description', 'Sample action', 'status', 'complete', 'completed_at', now(), 'action_count', 2,
      'completed_action_count', 2)
    when 'message.created' then jsonb_build_object('id', gen_random_uuid(), 'channel_id', gen_random_uuid(),
      'channel_name', 'general', 'user_id', gen_random_uuid(), 'sender_name', 'Sample User',
      'content', 'Hello from a test webhook', 'message_type', 'text', 'is_thread_reply', false,
      'parent_message_id', null, 'mentions', '[]'::jsonb, 'created_at', now())
    when 'message.edited' then jsonb_build_object('id', gen_random_uuid(), 'channel_id', gen_random_uuid(),
      'user_id', gen_random_uuid(), 'content', 'Edited sample message', 'updated_at', now())
    when 'message.deleted' then jsonb_build_object('id', gen_random_uuid(), 'channel_id', gen_random_uuid(),
      'user_id', gen_random_uuid(), 'deleted_at', now())
    when 'channel.created' then jsonb_build_object('id', gen_random_uuid(), 'name', 'sample-channel',
      'description', 'A sample channel', 'created_by', gen_random_uuid(), 'created_at', now())
    when 'channel.archived' then jsonb_build_object('id', gen_random_uuid(), 'name', 'sample-channel',
      'archived_at', now())
    when 'member.invited' then jsonb_build_object('invitation_id', gen_random_uuid(), 'email', 'invitee@example.com',
      'role', 'team_member', 'invited_by', jsonb_build_object('id', gen_random_uuid(), 'name', 'Sample Admin'),
      'expires_at', now() + interval '7 days')
    when 'member.joined' then jsonb_build_object('user_id', gen_random_uuid(), 'email', 'member@example.com',
      'full_name', 'Sample Member', 'role', 'team_member',
      'invited_by', jsonb_build_object('id', gen_random_uuid(), 'name', 'Sample Admin'), 'joined_at', now())
    when 'member.role_changed' then jsonb_build_object('user_id', gen_random_uuid(), 'previous_role', 'team_member',
      'new_role', 'admin', 'changed_by', gen_random_uuid())
    when 'member.removed' then jsonb_build_object('user_id', gen_random_uuid(), 'role', 'team_member',
      'removed_by', gen_random_uuid())
  end
$$;

create function public.test_webhook(endpoint_id uuid, event_type text) returns jsonb
language plpgsql volatile security definer set search_path = '' as $$
declare
  ep public.webhook_endpoints;
  delivery uuid := gen_random_uuid();
begin
  select * into ep from public.webhook_endpoints e where e.id = test_webhook.endpoint_id;
  if not found or not webhooks.can_manage(ep.auction_id) then
    raise exception 'webhook endpoint not found' using errcode = 'P0002';
  end if;
  if test_webhook.event_type is null or test_webhook.event_type <> all (webhooks.event_types()) then
    raise exception 'unknown webhook event type: %', test_webhook.event_type using errcode = '22023';
  end if;
  insert into public.webhook_deliveries (id, endpoint_id, auction_id, event_type, payload, is_test)
  values (delivery, ep.id, ep.auction_id, test_webhook.event_type,
          webhooks.build_payload(test_webhook.event_type, now(), delivery, ep.auction_id,
                                 webhooks.sample_event_data(test_webhook.event_type)), true);
  perform pg_notify('webhook_deliveries', '');
  return jsonb_build_object('delivery_id', delivery, 'status', 'queued');
end $$;

-- Replay one delivery: same webhook_id (receivers de-duplicate on it), a fresh round of the retry schedule.
create function public.replay_webhook_delivery(delivery_id uuid) returns jsonb
language plpgsql volatile security definer set search_path = '' as $$
declare
  d public.webhook_deliveries;
  active boolean;
begin
  select * into d from public.webhook_deliveries x where x.id = replay_webhook_delivery.delivery_id for update;
  if not found or not webhooks.can_manage(d.auction_id) then
    raise exception 'webhook delivery not found' using errcode = 'P0002';
  end if;
  select e.is_active into active from public.webhook_endpoints e where e.id = d.endpoint_id;
  if not active and not d.is_test then
    raise exception 'webhook endpoint is disabled' using errcode = '22023', hint = 'set is_active to true first';
  end if;
  if d.status = 'queued' then
    raise exception 'webhook delivery is already queued' using errcode = '22023';
  end if;
  update public.webhook_deliveries x
     set status = 'queued', round_start_attempt = x.attempt_count, next_attempt_at = now(), delivered_at = null
   where x.id = d.id;
  perform pg_notify('webhook_deliveries', '');
  return jsonb_build_object('delivery_id', d.id, 'status', 'queued');
end $$;

-- Replay every failed delivery of an endpoint created since a time (after an outage of the receiver).
create function public.replay_failed_webhook_deliveries(endpoint_id uuid, since timestamptz) returns jsonb
language plpgsql volatile security definer set search_path = '' as $$
declare
  ep public.webhook_endpoints;
  n integer;
begin
  select * into ep from public.webhook_endpoints e where e.id = replay_failed_webhook_deliveries.endpoint_id;
  if not found or not webhooks.can_manage(ep.auction_id) then
    raise exception 'webhook endpoint not found' using errcode = 'P0002';
  end if;
  if not ep.is_active then
    raise exception 'webhook endpoint is disabled' using errcode = '22023', hint = 'set is_active to true first';
  end if;
  if since is null then
    raise exception 'since is required' using errcode = '22023';
  end if;
  update public.webhook_deliveries x
     set status = 'queued', round_start_attempt = x.attempt_count, next_attempt_at = now()
   where x.endpoint_id = ep.id and x.status = 'failed' and x.created_at >= since;
  get diagnostics n = row_count;
  if n > 0 then
    perform pg_notify('webhook_deliveries', '');
  end if;
  return jsonb_build_object('endpoint_id', ep.id, 'replayed', n);
end $$;

-- Pruning of the logs (attempts, and deliveries that reached a final state) older than the retention age.
create function webhooks.prune_logs(p_older_than interval) returns jsonb
language plpgsql volatile set search_path = '' as $$
declare
  attempts integer;
  deliveries integer;
begin
  delete from public.webhook_delivery_attempts where created_at < now() - p_older_than;
  get diagnostics attempts = row_count;
  delete from public.webhook_deliveries
   where status <> 'queued' and coalesce(delivered_at, next_attempt_at, created_at) < now() - p_older_than
     and created_at < now() - p_older_than;
  get diagnostics deliveries = row_count;
  return jsonb_build_object('attempts', attempts, 'deliveries', deliveries);
end $$;
revoke execute on function webhooks.prune_logs(interval) from public;

revoke execute on function public.test_webhook(uuid, text), public.replay_webhook_delivery(uuid),
  public.replay_failed_webhook_deliveries(uuid, timestamptz) from public;
grant execute on function public.test_webhook(uuid, text), public.replay_webhook_delivery(uuid),
  public.replay_failed_webhook_deliveries(uuid, timestamptz) to authenticated, service_role;

-- Row security: admins and above of the auction (and super admins) manage endpoints and read the logs.
alter table public.webhook_endpoints enable row level security;
alter table public.webhook_deliveries enable row level security;
alter table public.webhook_delivery_attempts enable row level security;
alter table webhooks.endpoint_secrets enable row level security;
alter table webhooks.settings enable row level security;

create policy webhook_endpoints_admin on public.webhook_endpoints for all to authenticated
  using (public.is_super_admin() or public.is_auction_admin_or_above(auction_id))
  with check (public.is_super_admin() or public.is_auction_admin_or_above(auction_id));
create policy webhook_deliveries_admin_read on public.webhook_deliveries for select to authenticated
  using (public.is_super_admin() or public.is_auction_admin_or_above(auction_id));
create policy webhook_delivery_attempts_admin_read on public.webhook_delivery_attempts for select to authenticated
  using (public.is_super_admin() or public.is_auction_admin_or_above(auction_id));

grant select, delete on public.webhook_endpoints to authenticated;
grant insert (auction_id, url, description, events, secret, is_active) on public.webhook_endpoints to authenticated;
grant update (url, description, events, secret, is_active) on public.webhook_endpoints to authenticated;
grant select on public.webhook_deliveries, public.webhook_delivery_attempts to authenticated;
grant select, insert, update, delete on public.webhook_endpoints to service_role;
grant select on public.webhook_deliveries, public.webhook_delivery_attempts to service_role;
