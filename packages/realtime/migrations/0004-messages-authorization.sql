-- Realtime Authorization as Supabase has it: realtime.messages partitioned by day and under row-level security,
-- realtime.topic() for policies, a private join checked by reading and writing probe rows of the topic under the
-- joiner's role and claims (rolled back), and broadcasts sent from SQL (realtime.send, realtime.broadcast_changes)
-- delivered to every instance through the relay's notification channel.

alter table realtime.messages rename to messages_unpartitioned;
alter index realtime.messages_topic_inserted_at rename to messages_unpartitioned_topic_inserted_at;
alter index realtime.messages_expires_at rename to messages_unpartitioned_expires_at;

-- `event` may be null and `private` defaults to false, as in Supabase. `expires_at` is ours: the ttl of a stored
-- (`persist`) broadcast; null for messages sent from SQL, which live until their day's partition is dropped.
create table realtime.messages (
  id uuid not null default gen_random_uuid(),
  topic text not null,
  extension text not null default 'broadcast' check (extension in ('broadcast', 'presence')),
  event text,
  payload jsonb,
  -- A byte payload (application/octet-stream): kept as bytes, never as JSON.
  binary_payload bytea,
  private boolean not null default false,
  updated_at timestamptz not null default now(),
  inserted_at timestamptz not null default clock_timestamp(),
  expires_at timestamptz,
  primary key (id, inserted_at)
) partition by range (inserted_at);

create index messages_topic_inserted_at on realtime.messages (topic, inserted_at);
create index messages_expires_at on realtime.messages (expires_at);

-- One partition per UTC day, named messages_YYYY_MM_DD: from `from_day` through `through_day`.
create function realtime.create_partitions(from_day date, through_day date) returns void
language plpgsql set search_path = pg_catalog, pg_temp as $$
declare
  d date := from_day;
begin
  while d <= through_day loop
    execute format(
      'create table if not exists realtime.%I partition of realtime.messages for values from (%L) to (%L)',
      'messages_' || to_char(d, 'YYYY_MM_DD'), d::text || ' 00:00:00+00', (d + 1)::text || ' 00:00:00+00');
    d := d + 1;
  end loop;
end $$;

-- Run by every instance's sweep: partitions for the coming days exist before they are needed, and days wholly
-- older than `keep_seconds` are dropped (a whole table at a time, no row-by-row delete).
create function realtime.maintain_partitions(keep_seconds integer) returns void
language plpgsql set search_path = pg_catalog, pg_temp as $$
declare
  today date := (now() at time zone 'utc')::date;
  part record;
begin
  perform realtime.create_partitions(today - 1, today + 3);
  for part in
    select c.relname from pg_inherits i join pg_class c on c.oid = i.inhrelid
     where i.inhparent = 'realtime.messages'::regclass and c.relname ~ '^messages_\d{4}_\d{2}_\d{2}$'
       and to_date(substr(c.relname, 10), 'YYYY_MM_DD') + 1 < (now() - make_interval(secs => keep_seconds)) at time zone 'utc'
  loop
    execute format('drop table if exists realtime.%I', part.relname);
  end loop;
end $$;

select realtime.create_partitions(
  least((select min(inserted_at at time zone 'utc')::date from realtime.messages_unpartitioned),
        (now() at time zone 'utc')::date - 1),
  (now() at time zone 'utc')::date + 3);

insert into realtime.messages (id, topic, extension, event, payload, binary_payload, private, inserted_at, expires_at)
select id, topic, extension, event, payload, binary_payload, private, inserted_at, expires_at
  from realtime.messages_unpartitioned;
drop table realtime.messages_unpartitioned;

-- Supabase's grants: policies decide; without a policy the table shows nothing and takes nothing.
alter table realtime.messages enable row level security;
grant select, insert on realtime.messages to anon, authenticated, service_role;

-- The topic being authorized or sent to (without `realtime:`), for policies: `realtime.topic() = 'room:1'`.
create function realtime.topic() returns text
language sql stable as $$ select nullif(current_setting('realtime.topic', true), '') $$;
grant execute on function realtime.topic() to public;

-- The rows a check reads: inserted by the owner (so no policy stands in the way), seen or not under the joiner's
-- role. They never outlive the check's transaction.
create function realtime.authorization_probes(for_topic text) returns uuid[]
language sql volatile security definer set search_path = pg_catalog, pg_temp as $$
  with probes as (
    insert into realtime.messages (topic, extension, event, private)
    select for_topic, e, 'authorization', true from unnest(array['broadcast', 'presence']) e
    returning id)
  select array_agg(id) from probes
$$;
revoke all on function realtime.authorization_probes(text) from public;
grant execute on function realtime.authorization_probes(text) to authenticator;

-- What the role and claims may do on a private topic, per extension: read (SELECT policies let them see a row of
-- the topic) and write (INSERT policies let them add one). Everything the check did is rolled back; a policy that
-- raises counts as a refusal.
create function realtime.authorize(for_topic text, request_role text, claims jsonb)
returns table(kind text, may_read boolean, may_write boolean)
language plpgsql volatile set search_path = pg_catalog, pg_temp as $$
declare
  probes uuid[];
  readable text[] := '{}';
  writable text[] := '{}';
  ext text;
begin
  if request_role not in ('anon', 'authenticated', 'service_role') then
    raise exception 'realtime.authorize: unknown role %', request_role;
  end if;
  begin
    probes := realtime.authorization_probes(for_topic);
    perform set_config('role', request_role, true);
    perform set_config('request.jwt.claims', claims::text, true);
    perform set_config('realtime.topic', for_topic, true);
    begin
      select coalesce(array_agg(m.extension), '{}') into readable
        from realtime.messages m where m.id = any(probes) and m.topic = for_topic;
    exception when others then
      readable := '{}';
    end;
    foreach ext in array array['broadcast', 'presence'] loop
      begin
        insert into realtime.messages (topic, extension, event, private)
        values (for_topic, ext, 'authorization', true);
        writable := writable || ext;
      exception when others then
        null; -- refused (or the policy raised): no write on this extension
      end;
    end loop;
    raise exception using errcode = 'RTA01'; -- undoes the probes, the inserts and the role
  exception when sqlstate 'RTA01' then
    null;
  end;
  return query select e, e = any(readable), e = any(writable) from unnest(array['broadcast', 'presence']) e;
end $$;
revoke all on function realtime.authorize(text, text, jsonb) from public;
grant execute on function realtime.authorize(text, text, jsonb) to authenticator;

-- A broadcast from SQL (a function, a trigger): stored in realtime.messages under the caller's INSERT policies and
-- delivered to the topic's subscribers on every instance when the transaction commits. A refused or failed send
-- is a warning, not an error, so the caller's own change still commits.
create function realtime.send(payload jsonb, event text, topic text, private boolean default true) returns void
language plpgsql volatile set search_path = pg_catalog, pg_temp as $$
declare
  previous_topic text := current_setting('realtime.topic', true);
begin
  begin
    perform set_config('realtime.topic', topic, true);
    perform set_config('realtime.sending', 'on', true);
    insert into realtime.messages (payload, event, topic, private, extension)
    values (payload, event, topic, private, 'broadcast');
    perform set_config('realtime.sending', '', true);
    perform set_config('realtime.topic', coalesce(previous_topic, ''), true);
  exception when others then
    raise warning 'realtime.send: the message to % was not sent: %', topic, sqlerrm;
  end;
end $$;
grant execute on function realtime.send(jsonb, text, text, boolean) to public;

-- For row triggers: sends {schema, table, operation, record, old_record} to the topic as a private broadcast.
create function realtime.broadcast_changes(
  topic_name text, event_name text, operation text, table_name text, table_schema text,
  new record, old record, level text default 'ROW'
) returns void
language plpgsql volatile set search_path = pg_catalog, pg_temp as $$
begin
  if level is distinct from 'ROW' then
    raise exception 'realtime.broadcast_changes runs in row triggers (for each row), not %', level;
  end if;
  if operation not in ('INSERT', 'UPDATE', 'DELETE') then
    raise exception 'realtime.broadcast_changes: operation % is not INSERT, UPDATE or DELETE', operation;
  end if;
  perform realtime.send(
    jsonb_build_object('schema', table_schema, 'table', table_name, 'operation', operation,
                       'record', to_jsonb(new), 'old_record', to_jsonb(old)),
    event_name, topic_name, true);
end $$;
grant execute on function realtime.broadcast_changes(text, text, text, text, text, record, record, text) to public;

-- Delivery of what realtime.send stored: on the relay's channel, as a broadcast from no instance (every instance
-- delivers it to its subscribers of the room); through realtime.relayed_messages when too large for a notification.
-- Other inserts (stored `persist` broadcasts, authorization probes) are delivered by the server or never.
create function realtime.deliver_sent() returns trigger
language plpgsql security definer set search_path = pg_catalog, pg_temp as $$
declare
  body jsonb;
  relayed bigint;
begin
  if coalesce(current_setting('realtime.sending', true), '') <> 'on' then
    return null;
  end if;
  body := jsonb_build_object('o', 'database', 'm', jsonb_build_object(
    'kind', 'broadcast',
    'topic', case when new.private then 'private|realtime:' else 'public|realtime:' end || new.topic,
    'event', new.event, 'payload', coalesce(new.payload, '{}'), 'meta', jsonb_build_object('id', new.id)));
  if octet_length(body::text) <= 7000 then
    perform pg_notify('auction_ops_realtime', body::text);
  else
    insert into realtime.relayed_messages (body) values (body) returning id into relayed;
    perform pg_notify('auction_ops_realtime', jsonb_build_object('o', 'database', 'r', relayed::text)::text);
  end if;
  return null;
end $$;
revoke all on function realtime.deliver_sent() from public;

create trigger deliver_sent after insert on realtime.messages
  for each row execute function realtime.deliver_sent();
