-- Generated from the migrations by apps/server/test/schema-snapshot.test.ts (`pnpm schema:snapshot`): do not
-- edit. Read the schema in force here; change it in a new migration (packages/*/migrations*).

-- object: schema webhooks
create schema webhooks;

-- object: function webhooks.build_payload(text,timestamp with time zone,uuid,uuid,jsonb)
CREATE OR REPLACE FUNCTION webhooks.build_payload(p_event text, p_occurred_at timestamp with time zone, p_webhook_id uuid, p_auction_id uuid, p_data jsonb)
 RETURNS jsonb
 LANGUAGE sql
 IMMUTABLE
 SET search_path TO ''
AS $function$
  select jsonb_build_object(
    'event', p_event,
    'timestamp', to_char(p_occurred_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
    'webhook_id', p_webhook_id,
    'auction_id', p_auction_id,
    'data', coalesce(p_data, '{}'::jsonb))
$function$;

-- object: function webhooks.can_manage(uuid)
CREATE OR REPLACE FUNCTION webhooks.can_manage(p_auction_id uuid)
 RETURNS boolean
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
  select not exists (select 1 from public.auctions a where a.id = p_auction_id and a.deleted_at is not null)
    and (auth.role() = 'service_role' or public.is_super_admin() or public.is_auction_admin_or_above(p_auction_id))
$function$;

-- object: function webhooks.endpoint_after_disable()
CREATE OR REPLACE FUNCTION webhooks.endpoint_after_disable()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  update public.webhook_deliveries d
     set status = 'failed', last_error = 'endpoint disabled: ' || coalesce(new.disabled_reason, 'disabled'),
         locked_by = null, locked_until = null, lease_token = null
   where d.endpoint_id = new.id and d.status = 'queued' and not d.is_test
     and (d.locked_until is null or d.locked_until < now());
  return null;
end $function$;

-- object: function webhooks.endpoint_before_write()
CREATE OR REPLACE FUNCTION webhooks.endpoint_before_write()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
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
end $function$;

-- object: function webhooks.event_types()
CREATE OR REPLACE FUNCTION webhooks.event_types()
 RETURNS text[]
 LANGUAGE sql
 STABLE
 SET search_path TO ''
AS $function$
  select coalesce(array_agg(name order by name), '{}') from public.event_types
$function$;

-- object: function webhooks.fan_out_event()
CREATE OR REPLACE FUNCTION webhooks.fan_out_event()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  created integer;
begin
  if new.event_type not like 'auction.%'
     and exists (select 1 from public.auctions a where a.id = new.auction_id and a.deleted_at is not null) then
    return null;
  end if;
  with targets as materialized (
    select gen_random_uuid() as id, e.id as endpoint_id
      from public.webhook_endpoints e
     where e.auction_id = new.auction_id and e.is_active and new.event_type = any (e.events))
  insert into public.webhook_deliveries (id, endpoint_id, auction_id, event_id, event_type, payload)
  select t.id, t.endpoint_id, new.auction_id, new.id, new.event_type,
         webhooks.build_payload(new.event_type, new.occurred_at, t.id, new.auction_id, new.data)
    from targets t
  on conflict (event_id, endpoint_id) do nothing;
  get diagnostics created = row_count;
  if created > 0 then
    perform pg_notify('webhook_deliveries', '');
  end if;
  return null;
end $function$;

-- object: function webhooks.prune_logs(interval)
CREATE OR REPLACE FUNCTION webhooks.prune_logs(p_older_than interval)
 RETURNS jsonb
 LANGUAGE plpgsql
 SET search_path TO ''
AS $function$
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
end $function$;

-- object: function webhooks.sample_event_data(text)
CREATE OR REPLACE FUNCTION webhooks.sample_event_data(p_event_type text)
 RETURNS jsonb
 LANGUAGE sql
 STABLE
 SET search_path TO ''
AS $function$
  select sample from public.event_types where name = p_event_type
$function$;

-- object: table webhooks.endpoint_secrets
create table webhooks.endpoint_secrets (
  endpoint_id uuid not null,
  secret text not null,
  previous_secret text,
  previous_secret_expires_at timestamp with time zone,
  rotated_at timestamp with time zone
);
alter table webhooks.endpoint_secrets enable row level security;
alter table webhooks.endpoint_secrets add constraint endpoint_secrets_endpoint_id_fkey FOREIGN KEY (endpoint_id) REFERENCES public.webhook_endpoints(id) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED;
alter table webhooks.endpoint_secrets add constraint endpoint_secrets_pkey PRIMARY KEY (endpoint_id);

-- object: table webhooks.settings
create table webhooks.settings (
  id boolean not null default true,
  allow_http boolean not null default false,
  updated_at timestamp with time zone not null default now()
);
alter table webhooks.settings enable row level security;
alter table webhooks.settings add constraint settings_id_check CHECK (id);
alter table webhooks.settings add constraint settings_pkey PRIMARY KEY (id);
