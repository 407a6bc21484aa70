-- Generated from the migrations by apps/server/test/schema-snapshot.test.ts (`pnpm schema:snapshot`): do not
-- edit. Read the schema in force here; change it in a new migration (packages/*/migrations*).

-- object: schema realtime
create schema realtime;
grant usage on schema realtime to anon;
grant usage on schema realtime to authenticated;
grant usage on schema realtime to authenticator;
grant usage on schema realtime to service_role;

-- object: function realtime.auction_of_topic(text)
CREATE OR REPLACE FUNCTION realtime.auction_of_topic(topic text)
 RETURNS uuid
 LANGUAGE sql
 IMMUTABLE
AS $function$
  select (substring(topic from
    '^auction:([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})(:.*)?$'))::uuid
$function$;
grant execute on function realtime.auction_of_topic(text) to anon;
grant execute on function realtime.auction_of_topic(text) to authenticated;
grant execute on function realtime.auction_of_topic(text) to public;
grant execute on function realtime.auction_of_topic(text) to service_role;

-- object: function realtime.authorization_probes(text)
CREATE OR REPLACE FUNCTION realtime.authorization_probes(for_topic text)
 RETURNS uuid[]
 LANGUAGE sql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'pg_temp'
AS $function$
  with probes as (
    insert into realtime.messages (topic, extension, event, private)
    select for_topic, e, 'authorization', true from unnest(array['broadcast', 'presence']) e
    returning id)
  select array_agg(id) from probes
$function$;
grant execute on function realtime.authorization_probes(text) to authenticator;

-- object: function realtime.authorize(text,text,jsonb)
CREATE OR REPLACE FUNCTION realtime.authorize(for_topic text, request_role text, claims jsonb)
 RETURNS TABLE(kind text, may_read boolean, may_write boolean)
 LANGUAGE plpgsql
 SET search_path TO 'pg_catalog', 'pg_temp'
AS $function$
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
end $function$;
grant execute on function realtime.authorize(text,text,jsonb) to authenticator;

-- object: function realtime.broadcast_changes(text,text,text,text,text,record,record,text)
CREATE OR REPLACE FUNCTION realtime.broadcast_changes(topic_name text, event_name text, operation text, table_name text, table_schema text, new record, old record, level text DEFAULT 'ROW'::text)
 RETURNS void
 LANGUAGE plpgsql
 SET search_path TO 'pg_catalog', 'pg_temp'
AS $function$
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
end $function$;
grant execute on function realtime.broadcast_changes(text,text,text,text,text,record,record,text) to public;

-- object: function realtime.count_closed_connections()
CREATE OR REPLACE FUNCTION realtime.count_closed_connections()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path TO 'pg_catalog', 'pg_temp'
AS $function$
begin
  update realtime.connection_counts c set open = greatest(c.open - g.n, 0)
    from (select client_ip, count(*) as n from closed group by client_ip) g
   where c.client_ip = g.client_ip;
  delete from realtime.connection_counts c
   where c.open = 0 and c.client_ip in (select client_ip from closed);
  return null;
end $function$;

-- object: function realtime.count_opened_connections()
CREATE OR REPLACE FUNCTION realtime.count_opened_connections()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path TO 'pg_catalog', 'pg_temp'
AS $function$
begin
  insert into realtime.connection_counts as c (client_ip, open)
  select client_ip, count(*) from opened group by client_ip
  on conflict (client_ip) do update set open = c.open + excluded.open;
  return null;
end $function$;

-- object: function realtime.create_partitions(date,date)
CREATE OR REPLACE FUNCTION realtime.create_partitions(from_day date, through_day date)
 RETURNS void
 LANGUAGE plpgsql
 SET search_path TO 'pg_catalog', 'pg_temp'
AS $function$
declare
  d date := from_day;
begin
  while d <= through_day loop
    execute format(
      'create table if not exists realtime.%I partition of realtime.messages for values from (%L) to (%L)',
      'messages_' || to_char(d, 'YYYY_MM_DD'), d::text || ' 00:00:00+00', (d + 1)::text || ' 00:00:00+00');
    d := d + 1;
  end loop;
end $function$;

-- object: function realtime.deliver_sent()
CREATE OR REPLACE FUNCTION realtime.deliver_sent()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'pg_temp'
AS $function$
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
end $function$;

-- object: function realtime.expose(regclass,boolean)
CREATE OR REPLACE FUNCTION realtime.expose(rel regclass, classed boolean DEFAULT false)
 RETURNS void
 LANGUAGE plpgsql
 SET search_path TO 'pg_catalog', 'pg_temp'
AS $function$
begin
  -- Old rows in full: a DELETE or UPDATE can be matched against a subscriber's filter and routed by its tenant.
  -- The WAL grows by the old row on updates and deletes of the table.
  execute format('alter table %s replica identity full', rel);
  if not exists (select from pg_publication_rel pr join pg_publication p on p.oid = pr.prpubid
                  where p.pubname = 'auction_ops_realtime' and pr.prrelid = rel) then
    execute format('alter publication auction_ops_realtime add table %s', rel);
  end if;
  insert into realtime.exposed_tables (rel, classed) values (rel, classed)
    on conflict on constraint exposed_tables_pkey do update set classed = excluded.classed;
end $function$;

-- object: function realtime.identity_class(regclass,text,jsonb)
CREATE OR REPLACE FUNCTION realtime.identity_class(rel regclass, role text, claims jsonb)
 RETURNS text
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
  with who as (
    select case when claims->>'sub' ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'
                then (claims->>'sub')::uuid end as id)
  select case when exists (select from realtime.exposed_tables e where e.rel = identity_class.rel and e.classed)
  then concat_ws('|', role,
    coalesce(claims->>'aal', 'aal1'),
    coalesce(claims->>'is_anonymous', 'false') = 'true',
    exists (select 1 from public.super_admins s where s.user_id = who.id),
    -- Owners and admins read alike (the policies ask for "owner or admin"), so they share a class.
    (select string_agg(m.auction_id || ':' || case m.role when 'owner' then 'admin' else m.role end, ','
                       order by m.auction_id)
       from public.auction_members m where m.user_id = who.id),
    (select string_agg(la.location_id::text, ',' order by la.location_id)
       from public.location_assignments la
       join public.auction_members m on m.auction_id = la.auction_id and m.user_id = la.user_id
      where la.user_id = who.id))
  end
  from who
$function$;
grant execute on function realtime.identity_class(regclass,text,jsonb) to authenticator;
grant execute on function realtime.identity_class(regclass,text,jsonb) to public;

-- object: function realtime.identity_classes(regclass[],jsonb)
CREATE OR REPLACE FUNCTION realtime.identity_classes(rels regclass[], identities jsonb)
 RETURNS TABLE(identity integer, rel regclass, class text)
 LANGUAGE sql
 STABLE
AS $function$
  select (e.ord - 1)::integer, r, realtime.identity_class(r, e.v->>'role', (e.v->>'claims')::jsonb)
    from jsonb_array_elements(identities) with ordinality e(v, ord), unnest(rels) r
$function$;
grant execute on function realtime.identity_classes(regclass[],jsonb) to authenticator;

-- object: function realtime.identity_scopes(regclass[],jsonb)
CREATE OR REPLACE FUNCTION realtime.identity_scopes(rels regclass[], identities jsonb)
 RETURNS TABLE(identity integer, rel regclass, class text, tenants text[])
 LANGUAGE sql
 STABLE
AS $function$
  select (e.ord - 1)::integer, r, realtime.identity_class(r, e.v->>'role', (e.v->>'claims')::jsonb),
         case when exists (select from realtime.exposed_tables x where x.rel = r and x.tenant_column is not null)
              then realtime.identity_tenants(e.v->>'role', (e.v->>'claims')::jsonb) end
    from jsonb_array_elements(identities) with ordinality e(v, ord), unnest(rels) r
$function$;
grant execute on function realtime.identity_scopes(regclass[],jsonb) to authenticator;

-- object: function realtime.identity_tenants(text,jsonb)
CREATE OR REPLACE FUNCTION realtime.identity_tenants(role text, claims jsonb)
 RETURNS text[]
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
  with who as (
    select case when claims->>'sub' ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'
                then (claims->>'sub')::uuid end as id)
  select case
    when role <> 'authenticated' or who.id is null then null
    when exists (select 1 from public.super_admins s where s.user_id = who.id) then null
    else array(select m.auction_id::text from public.auction_members m where m.user_id = who.id)
  end
  from who
$function$;
grant execute on function realtime.identity_tenants(text,jsonb) to authenticator;
grant execute on function realtime.identity_tenants(text,jsonb) to public;

-- object: function realtime.in_tenant(uuid)
CREATE OR REPLACE FUNCTION realtime.in_tenant(tenant uuid)
 RETURNS boolean
 LANGUAGE sql
 STABLE
AS $function$
  select current_user = 'service_role'
    or (current_user = 'authenticated'
        and (((select public.is_super_admin()) and not (tenant = any (array(select public.deleted_auction_ids()))))
             or tenant in (select public.current_user_auction_ids())))
$function$;
grant execute on function realtime.in_tenant(uuid) to anon;
grant execute on function realtime.in_tenant(uuid) to authenticated;
grant execute on function realtime.in_tenant(uuid) to public;
grant execute on function realtime.in_tenant(uuid) to service_role;

-- object: function realtime.maintain_partitions(integer)
CREATE OR REPLACE FUNCTION realtime.maintain_partitions(keep_seconds integer)
 RETURNS void
 LANGUAGE plpgsql
 SET search_path TO 'pg_catalog', 'pg_temp'
AS $function$
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
end $function$;

-- object: function realtime.scope_by_tenant(regclass,name)
CREATE OR REPLACE FUNCTION realtime.scope_by_tenant(rel regclass, tenant_column name)
 RETURNS void
 LANGUAGE plpgsql
 SET search_path TO 'pg_catalog', 'pg_temp'
AS $function$
begin
  if not exists (select from pg_attribute a where a.attrelid = rel and a.attname = tenant_column
                  and a.attnum > 0 and not a.attisdropped) then
    raise exception 'realtime.scope_by_tenant: % has no column %', rel, tenant_column;
  end if;
  update realtime.exposed_tables e set tenant_column = scope_by_tenant.tenant_column where e.rel = scope_by_tenant.rel;
  if not found then
    raise exception 'realtime.scope_by_tenant: % is not exposed (realtime.expose first)', rel;
  end if;
end $function$;

-- object: function realtime.select_policy(regclass)
CREATE OR REPLACE FUNCTION realtime.select_policy(rel regclass)
 RETURNS text
 LANGUAGE plpgsql
 STABLE
 SET search_path TO 'pg_catalog', 'pg_temp'
AS $function$
begin
  return (
    with applicable as (
      select p.polpermissive, '(' || coalesce(pg_get_expr(p.polqual, p.polrelid), 'true') || ')' as qual
        from pg_policy p
       where p.polrelid = rel and p.polcmd in ('r', '*')
         and exists (select from unnest(p.polroles) r where r = 0 or pg_has_role(current_user, r, 'member')))
    select case
      when not has_any_column_privilege(rel, 'SELECT') then null
      when not (select c.relrowsecurity from pg_class c where c.oid = rel)
        or (select r.rolbypassrls from pg_roles r where r.rolname = current_user) then 'true'
      when not exists (select from applicable where polpermissive) then null
      else (select string_agg(qual, ' or ') from applicable where polpermissive)
        || coalesce(' and ' || (select string_agg(qual, ' and ') from applicable where not polpermissive), '')
    end);
end $function$;
grant execute on function realtime.select_policy(regclass) to anon;
grant execute on function realtime.select_policy(regclass) to authenticated;
grant execute on function realtime.select_policy(regclass) to public;
grant execute on function realtime.select_policy(regclass) to service_role;

-- object: function realtime.send(jsonb,text,text,boolean)
CREATE OR REPLACE FUNCTION realtime.send(payload jsonb, event text, topic text, private boolean DEFAULT true)
 RETURNS void
 LANGUAGE plpgsql
 SET search_path TO 'pg_catalog', 'pg_temp'
AS $function$
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
end $function$;
grant execute on function realtime.send(jsonb,text,text,boolean) to public;

-- object: function realtime.topic()
CREATE OR REPLACE FUNCTION realtime.topic()
 RETURNS text
 LANGUAGE sql
 STABLE
AS $function$ select nullif(current_setting('realtime.topic', true), '') $function$;
grant execute on function realtime.topic() to public;

-- object: function realtime.visible_changes(regclass,jsonb,jsonb)
CREATE OR REPLACE FUNCTION realtime.visible_changes(rel regclass, changes jsonb, identities jsonb)
 RETURNS TABLE(identity integer, change integer)
 LANGUAGE plpgsql
 SET search_path TO 'pg_catalog', 'pg_temp'
AS $function$
declare
  ident record;
  qual text;
  quals jsonb := '{}';
  alias text := (select c.relname from pg_class c where c.oid = rel);
  check_sql text;
  stmt text;
  prepared text[] := '{}';
  mine jsonb;
  seen integer[];
  one integer;
begin
  for ident in select (e.ord - 1)::integer as idx, e.v->>'role' as role, e.v->>'claims' as claims,
                      e.v->'changes' as subset
                 from jsonb_array_elements(identities) with ordinality e(v, ord) loop
    if ident.role not in ('anon', 'authenticated', 'service_role') then
      continue;
    end if;
    check_sql := null;
    mine := case when ident.subset is null then changes
                 else (select coalesce(jsonb_agg(changes->(o.v::integer) order by o.n), '[]')
                         from jsonb_array_elements_text(ident.subset) with ordinality o(v, n)) end;
    if jsonb_array_length(mine) = 0 then
      continue;
    end if;
    begin
      perform set_config('role', ident.role, true);
      perform set_config('request.jwt.claims', ident.claims, true);
      -- The policy text depends on the role only: worked out once per role and call.
      if quals ? ident.role then
        qual := quals->>ident.role;
      else
        qual := realtime.select_policy(rel);
        quals := quals || jsonb_build_object(ident.role, qual);
      end if;
      if qual is not null then
        -- The image is named as the table, so the policy's column references resolve to it.
        check_sql := format(
          'select array_agg((c.ord - 1)::integer) '
          'from jsonb_array_elements(current_setting(''realtime.images'')::jsonb) with ordinality c(v, ord), '
          'lateral jsonb_populate_record(null::%s, c.v) as %I where %s', rel, alias, qual);
        stmt := 'realtime_check_' || md5(check_sql);
        perform set_config('realtime.images', mine::text, true);
        -- Aggregated first: a raise part-way then leaves nothing of this identity in the result.
        if stmt = any (prepared) then
          execute format('execute %I', stmt) into seen;
        else
          begin
            execute format('execute %I', stmt) into seen;
          exception when invalid_sql_statement_name then
            execute format('prepare %I as %s', stmt, check_sql);
            execute format('execute %I', stmt) into seen;
          end;
          prepared := prepared || stmt;
        end if;
        return query select ident.idx,
          case when ident.subset is null then s else (ident.subset->>s)::integer end from unnest(seen) s;
      end if;
    exception when others then
      -- This identity's check raised: its changes one at a time, so that only those that raise are hidden.
      if check_sql is not null and jsonb_array_length(mine) > 1 then
        for one in 0 .. jsonb_array_length(mine) - 1 loop
          begin
            perform set_config('role', ident.role, true);
            perform set_config('request.jwt.claims', ident.claims, true);
            perform set_config('realtime.images', jsonb_build_array(mine->one)::text, true);
            execute check_sql into seen;
            if seen is not null then
              identity := ident.idx;
              change := case when ident.subset is null then one else (ident.subset->>one)::integer end;
              return next;
            end if;
          exception when others then
            null; -- hidden from this identity; its other changes and the other identities go on
          end;
        end loop;
      end if;
    end;
  end loop;
end $function$;
grant execute on function realtime.visible_changes(regclass,jsonb,jsonb) to authenticator;

-- object: table realtime.connection_counts
create table realtime.connection_counts (
  client_ip text not null,
  open integer not null
);
alter table realtime.connection_counts add constraint connection_counts_pkey PRIMARY KEY (client_ip);

-- object: table realtime.connections
create table realtime.connections (
  id text not null,
  client_ip text not null,
  instance_id text not null,
  opened_at timestamp with time zone not null default now()
);
alter table realtime.connections add constraint connections_instance_id_fkey FOREIGN KEY (instance_id) REFERENCES realtime.instances(id) ON DELETE CASCADE;
alter table realtime.connections add constraint connections_pkey PRIMARY KEY (id);
CREATE TRIGGER connections_closed AFTER DELETE ON realtime.connections REFERENCING OLD TABLE AS closed FOR EACH STATEMENT EXECUTE FUNCTION realtime.count_closed_connections();
CREATE TRIGGER connections_opened AFTER INSERT ON realtime.connections REFERENCING NEW TABLE AS opened FOR EACH STATEMENT EXECUTE FUNCTION realtime.count_opened_connections();

-- object: table realtime.exposed_tables
create table realtime.exposed_tables (
  rel regclass not null,
  classed boolean not null default false,
  exposed_at timestamp with time zone not null default now(),
  tenant_column name
);
alter table realtime.exposed_tables add constraint exposed_tables_pkey PRIMARY KEY (rel);
grant select on realtime.exposed_tables to authenticator;

-- object: table realtime.identity_inputs
create table realtime.identity_inputs (
  rel regclass not null,
  user_column name not null
);
alter table realtime.identity_inputs add constraint identity_inputs_pkey PRIMARY KEY (rel);
grant select on realtime.identity_inputs to authenticator;

-- object: table realtime.instances
create table realtime.instances (
  id text not null,
  seen_at timestamp with time zone not null default now()
);
alter table realtime.instances add constraint instances_pkey PRIMARY KEY (id);

-- object: table realtime.messages
create table realtime.messages (
  id uuid not null default gen_random_uuid(),
  topic text not null,
  extension text not null default 'broadcast'::text,
  event text,
  payload jsonb,
  binary_payload bytea,
  private boolean not null default false,
  updated_at timestamp with time zone not null default now(),
  inserted_at timestamp with time zone not null default clock_timestamp(),
  expires_at timestamp with time zone
);
alter table realtime.messages enable row level security;
alter table realtime.messages add constraint messages_extension_check1 CHECK ((extension = ANY (ARRAY['broadcast'::text, 'presence'::text])));
alter table realtime.messages add constraint messages_pkey1 PRIMARY KEY (id, inserted_at);
CREATE INDEX messages_expires_at ON ONLY realtime.messages USING btree (expires_at);
CREATE INDEX messages_topic_inserted_at ON ONLY realtime.messages USING btree (topic, inserted_at);
create policy auction_members_read_auction_topics on realtime.messages as permissive for select to authenticated
  using (((realtime.auction_of_topic(topic) IS NOT NULL) AND realtime.in_tenant(realtime.auction_of_topic(topic))));
create policy auction_members_write_auction_topics on realtime.messages as permissive for insert to authenticated
  with check (((realtime.auction_of_topic(topic) IS NOT NULL) AND realtime.in_tenant(realtime.auction_of_topic(topic))));
CREATE TRIGGER deliver_sent AFTER INSERT ON realtime.messages FOR EACH ROW EXECUTE FUNCTION realtime.deliver_sent();
grant insert, select on realtime.messages to anon;
grant insert, select on realtime.messages to authenticated;
grant insert, select on realtime.messages to service_role;

-- object: table realtime.presences
create table realtime.presences (
  topic text not null,
  presence_ref text not null,
  key text not null,
  meta jsonb not null,
  instance_id text not null
);
alter table realtime.presences add constraint presences_instance_id_fkey FOREIGN KEY (instance_id) REFERENCES realtime.instances(id) ON DELETE CASCADE;
alter table realtime.presences add constraint presences_pkey PRIMARY KEY (topic, presence_ref);

-- object: table realtime.relayed_messages
create table realtime.relayed_messages (
  id bigint not null generated always as identity,
  body jsonb not null,
  created_at timestamp with time zone not null default now()
);
alter table realtime.relayed_messages add constraint relayed_messages_pkey PRIMARY KEY (id);
