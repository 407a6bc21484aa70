-- Generated from the migrations by apps/server/test/schema-snapshot.test.ts (`pnpm schema:snapshot`): do not
-- edit. Read the schema in force here; change it in a new migration (packages/*/migrations*).

-- object: schema domain
create schema domain;

-- object: function domain.auction_members_events()
CREATE OR REPLACE FUNCTION domain.auction_members_events()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  if tg_op = 'UPDATE' then
    if new.role is distinct from old.role then
      perform domain.emit_event(new.auction_id, 'member.role_changed', jsonb_build_object(
        'member_id', new.id, 'user_id', new.user_id, 'name', public.user_display_name(new.user_id),
        'previous_role', old.role, 'new_role', new.role, 'changed_by', public.user_ref(auth.uid()),
        'changed_at', now()));
    end if;
    return null;
  end if;
  -- A cascade from a deleted auction has nowhere to emit to.
  if exists (select 1 from public.auctions where id = old.auction_id) then
    perform domain.emit_event(old.auction_id, 'member.removed', jsonb_build_object(
      'member_id', old.id, 'user_id', old.user_id, 'name', public.user_display_name(old.user_id), 'role', old.role,
      'removed_by', public.user_ref(auth.uid()), 'removed_at', now()));
  end if;
  return null;
end $function$;

-- object: function domain.auction_members_keep_owner()
CREATE OR REPLACE FUNCTION domain.auction_members_keep_owner()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  if exists (select 1 from public.auctions where id = old.auction_id)
     and exists (select 1 from public.auction_members where auction_id = old.auction_id)
     and not exists (select 1 from public.auction_members where auction_id = old.auction_id and role = 'owner') then
    raise exception 'an auction must keep at least one owner' using errcode = 'P0001';
  end if;
  return null;
end $function$;

-- object: function domain.auction_object_refs(uuid)
CREATE OR REPLACE FUNCTION domain.auction_object_refs(p_auction_id uuid)
 RETURNS TABLE(bucket_id text, name text)
 LANGUAGE plpgsql
 STABLE
 SET search_path TO ''
AS $function$
begin
  if to_regclass('storage.objects') is null then
    return;
  end if;
  return query execute $q$
    select o.bucket_id, o.name::text from (
      select o.bucket_id, o.name from storage.buckets b
        join storage.objects o on o.bucket_id = b.id and o.name like ($1::text || '/%')
      union
      select o.bucket_id, o.name from domain.auction_object_links l
        join storage.objects o on o.bucket_id = l.bucket_id and o.name = l.name
       where l.auction_id = $1
    ) o
    where not exists (select 1 from domain.auction_object_links x
                       where x.bucket_id = o.bucket_id and x.name = o.name and x.auction_id <> $1)$q$
    using p_auction_id;
end $function$;

-- object: function domain.auction_urls(uuid)
CREATE OR REPLACE FUNCTION domain.auction_urls(p_auction_id uuid DEFAULT NULL::uuid)
 RETURNS TABLE(auction_id uuid, url text)
 LANGUAGE sql
 STABLE
 SET search_path TO ''
AS $function$
  select b.auction_id, b.logo_url from public.auction_branding b
   where b.logo_url like '%/storage/v1/%' and (p_auction_id is null or b.auction_id = p_auction_id)
  union all
  select s.auction_id, s.image_url from public.lot_submissions s
   where s.image_url like '%/storage/v1/%' and (p_auction_id is null or s.auction_id = p_auction_id)
  union all
  select e.auction_id, e.image_url from public.lot_submission_entries e
   where e.image_url like '%/storage/v1/%' and (p_auction_id is null or e.auction_id = p_auction_id)
  union all
  select m.auction_id, m.content from public.messages m
   where m.message_type = 'image' and m.content like '%/storage/v1/%'
     and (p_auction_id is null or m.auction_id = p_auction_id)
$function$;

-- object: function domain.auctions_add_owner()
CREATE OR REPLACE FUNCTION domain.auctions_add_owner()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  if new.created_by is not null then
    insert into public.auction_members (auction_id, user_id, role) values (new.id, new.created_by, 'owner')
    on conflict (auction_id, user_id) do update set role = 'owner';
  end if;
  return null;
end $function$;

-- object: function domain.auctions_after_delete()
CREATE OR REPLACE FUNCTION domain.auctions_after_delete()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  delete from public.event_outbox where auction_id = old.id;
  return null;
end $function$;

-- object: function domain.auctions_before_delete()
CREATE OR REPLACE FUNCTION domain.auctions_before_delete()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path TO ''
AS $function$
begin
  if current_user in ('anon', 'authenticated', 'service_role') then
    if old.deleted_at is null then
      perform public.delete_auction(old.id);
    end if;
    return null;
  end if;
  return old;
end $function$;

-- object: function domain.auctions_before_insert()
CREATE OR REPLACE FUNCTION domain.auctions_before_insert()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
begin
  if (select auth.uid()) is not null then
    new.created_by := (select auth.uid());
    new.created_at := now();
  end if;
  new.updated_at := new.created_at;
  if not (new.settings ? 'timezone') then
    new.settings := new.settings || '{"timezone": "UTC"}';
  end if;
  perform public.assert_time_zone(new.settings ->> 'timezone');
  return new;
end $function$;

-- object: function domain.auctions_before_update()
CREATE OR REPLACE FUNCTION domain.auctions_before_update()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
begin
  new.created_by := old.created_by;
  new.created_at := old.created_at;
  new.updated_at := now();
  if new.settings is distinct from old.settings and not (new.settings ? 'timezone') then
    new.settings := new.settings || jsonb_build_object('timezone', coalesce(old.settings ->> 'timezone', 'UTC'));
  end if;
  perform public.assert_time_zone(new.settings ->> 'timezone');
  return new;
end $function$;

-- object: function domain.auctions_mfa_setting_guard()
CREATE OR REPLACE FUNCTION domain.auctions_mfa_setting_guard()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path TO ''
AS $function$
begin
  if coalesce((new.settings ->> 'require_mfa_for_admins')::boolean, false)
     and not coalesce((old.settings ->> 'require_mfa_for_admins')::boolean, false)
     and auth.role() = 'authenticated' and auth.aal() <> 'aal2' and not public.is_super_admin() then
    raise exception 'turn on require_mfa_for_admins from a session that passed a second factor (aal2)'
      using errcode = '42501';
  end if;
  return new;
end $function$;

-- object: function domain.backfill_object_links()
CREATE OR REPLACE FUNCTION domain.backfill_object_links()
 RETURNS bigint
 LANGUAGE plpgsql
 SET search_path TO ''
AS $function$
declare
  v_count bigint;
begin
  insert into domain.auction_object_links (auction_id, bucket_id, name, linked_by)
  select distinct u.auction_id, o.bucket_id, o.name, null::uuid
    from domain.auction_urls() u
    cross join lateral domain.storage_url_object(u.url) o
   where o.bucket_id is not null
     and pg_catalog.strpos(o.name, '/') > 0
     and (pg_catalog.split_part(o.name, '/', 1) = u.auction_id::text
          or exists (select 1 from public.auction_members m
                      where m.auction_id = u.auction_id and m.user_id::text = pg_catalog.split_part(o.name, '/', 1)))
  on conflict do nothing;
  get diagnostics v_count = row_count;
  return v_count;
end $function$;

-- object: function domain.caller_role(uuid)
CREATE OR REPLACE FUNCTION domain.caller_role(p_auction_id uuid)
 RETURNS text
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
  select case
    when exists (select 1 from public.auctions where id = p_auction_id and deleted_at is not null) then null
    when public.is_super_admin() or auth.role() = 'service_role' then 'owner'
    else public.get_user_auction_role(p_auction_id) end
$function$;

-- object: function domain.channels_check()
CREATE OR REPLACE FUNCTION domain.channels_check()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  if tg_op = 'UPDATE' then
    new.auction_id := old.auction_id;
    new.created_by := old.created_by;
    if new.is_archived and not old.is_archived then new.archived_at := now(); end if;
    if not new.is_archived then new.archived_at := null; end if;
  elsif new.is_archived then
    new.archived_at := now();
  end if;
  if new.location_id is not null
     and not exists (select 1 from public.locations where id = new.location_id and auction_id = new.auction_id) then
    raise exception 'location belongs to another auction' using errcode = '23503';
  end if;
  return new;
end $function$;

-- object: function domain.chat_children_fill()
CREATE OR REPLACE FUNCTION domain.chat_children_fill()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  if tg_table_name = 'message_reactions' then
    select auction_id into new.auction_id from public.messages where id = new.message_id;
  else
    select auction_id into new.auction_id from public.channels where id = new.channel_id;
  end if;
  return new;
end $function$;

-- object: function domain.chat_events()
CREATE OR REPLACE FUNCTION domain.chat_events()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  v_channel text;
begin
  if tg_table_name = 'channels' then
    if tg_op = 'INSERT' then
      perform domain.emit_event(new.auction_id, 'channel.created', jsonb_build_object(
        'id', new.id, 'name', new.name, 'description', new.description, 'location_id', new.location_id,
        'is_default', new.is_default, 'created_by', public.user_ref(new.created_by), 'created_at', new.created_at));
    elsif new.is_archived and not old.is_archived then
      perform domain.emit_event(new.auction_id, 'channel.archived', jsonb_build_object(
        'id', new.id, 'name', new.name, 'location_id', new.location_id,
        'archived_by', public.user_ref(auth.uid()), 'archived_at', new.archived_at));
    end if;
    return null;
  end if;
  select name into v_channel from public.channels where id = new.channel_id;
  if tg_op = 'INSERT' then
    perform domain.emit_event(new.auction_id, 'message.created', jsonb_build_object(
      'id', new.id, 'channel_id', new.channel_id, 'channel_name', v_channel, 'user_id', new.user_id,
      'sender_name', public.user_display_name(new.user_id), 'content', new.content, 'message_type', new.message_type,
      'is_thread_reply', new.parent_message_id is not null, 'parent_message_id', new.parent_message_id,
      'mentions', to_jsonb(new.mentions), 'created_at', new.created_at));
  elsif new.is_deleted and not old.is_deleted then
    perform domain.emit_event(new.auction_id, 'message.deleted', jsonb_build_object(
      'id', new.id, 'channel_id', new.channel_id, 'channel_name', v_channel, 'user_id', new.user_id,
      'parent_message_id', new.parent_message_id, 'deleted_by', public.user_ref(auth.uid()),
      'deleted_at', new.deleted_at));
  elsif new.content is distinct from old.content then
    perform domain.emit_event(new.auction_id, 'message.edited', jsonb_build_object(
      'id', new.id, 'channel_id', new.channel_id, 'channel_name', v_channel, 'user_id', new.user_id,
      'sender_name', public.user_display_name(new.user_id), 'previous_content', old.content, 'content', new.content,
      'parent_message_id', new.parent_message_id, 'mentions', to_jsonb(new.mentions), 'edited_at', new.edited_at));
  end if;
  return null;
end $function$;

-- object: function domain.children_follow_location()
CREATE OR REPLACE FUNCTION domain.children_follow_location()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  if tg_table_name = 'lot_submissions' then
    update public.lot_submission_entries set location_id = new.location_id where submission_id = new.id;
  else
    update public.quality_defects set location_id = new.location_id where inspection_id = new.id;
  end if;
  return null;
end $function$;

-- object: function domain.create_tenant_policies(regclass,text,text)
CREATE OR REPLACE FUNCTION domain.create_tenant_policies(p_table regclass, p_readers text, p_author_column text DEFAULT NULL::text)
 RETURNS void
 LANGUAGE plpgsql
 SET search_path TO ''
AS $function$
declare
  v_name text := (select relname from pg_catalog.pg_class where oid = p_table);
  v_write text := 'auction_id in (select public.admin_auction_ids())';
begin
  if p_readers not in ('member', 'admin', 'none') then
    raise exception 'p_readers must be member, admin or none, not %', p_readers;
  end if;
  if p_author_column is not null then
    v_write := format('%s or (auction_id in (select public.current_user_auction_ids()) and %I = (select auth.uid()))',
      v_write, p_author_column);
  end if;
  if p_readers <> 'none' then
    execute format(
      'create policy %I on %s for select to authenticated using (auction_id = any (array(select public.%s)))',
      v_name || '_select', p_table, p_readers || '_auction_ids()');
  end if;
  execute format('create policy %I on %s for insert to authenticated with check (%s)', v_name || '_insert', p_table,
    v_write);
  execute format('create policy %I on %s for update to authenticated using (%s) with check (%3$s)',
    v_name || '_update', p_table, v_write);
  execute format('create policy %I on %s for delete to authenticated using (%s)', v_name || '_delete', p_table,
    v_write);
end $function$;

-- object: function domain.emit_event(uuid,text,jsonb)
CREATE OR REPLACE FUNCTION domain.emit_event(p_auction_id uuid, p_event_type text, p_data jsonb)
 RETURNS uuid
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  v_id uuid;
begin
  insert into public.event_outbox (auction_id, event_type, data) values (p_auction_id, p_event_type, p_data)
  returning id into v_id;
  return v_id;
end $function$;

-- object: function domain.event_data_mismatches(jsonb,jsonb,text)
CREATE OR REPLACE FUNCTION domain.event_data_mismatches(p_data jsonb, p_fields jsonb, p_path text DEFAULT ''::text)
 RETURNS text[]
 LANGUAGE plpgsql
 IMMUTABLE
 SET search_path TO ''
AS $function$
declare
  v_out text[] := '{}';
  v_key text;
  v_type jsonb;
  v_value jsonb;
  v_name text;
  v_nullable boolean;
  v_element jsonb;
begin
  if jsonb_typeof(p_data) is distinct from 'object' then
    return array[coalesce(nullif(p_path, ''), 'data') || ': not an object'];
  end if;
  for v_key in select k from jsonb_object_keys(p_data) k where not p_fields ? k order by k loop
    v_out := v_out || (p_path || v_key || ': not declared');
  end loop;
  for v_key, v_type in select key, value from jsonb_each(p_fields) order by key loop
    if not p_data ? v_key then
      v_out := v_out || (p_path || v_key || ': declared but missing');
      continue;
    end if;
    v_value := p_data -> v_key;
    if jsonb_typeof(v_type) = 'object' then
      v_out := v_out || domain.event_data_mismatches(v_value, v_type, p_path || v_key || '.');
    elsif jsonb_typeof(v_type) = 'array' then
      if jsonb_typeof(v_value) <> 'array' then
        v_out := v_out || (p_path || v_key || ': not an array');
      else
        for v_element in select e from jsonb_array_elements(v_value) e loop
          if jsonb_typeof(v_type -> 0) = 'object' then
            v_out := v_out || domain.event_data_mismatches(v_element, v_type -> 0, p_path || v_key || '[].');
          elsif not domain.event_value_is(v_element, v_type ->> 0) then
            v_out := v_out || (p_path || v_key || '[]: not ' || (v_type ->> 0));
          end if;
        end loop;
      end if;
    else
      v_name := rtrim(v_type #>> '{}', '?');
      v_nullable := (v_type #>> '{}') like '%?';
      if jsonb_typeof(v_value) = 'null' then
        if not v_nullable then
          v_out := v_out || (p_path || v_key || ': null, declared ' || v_name);
        end if;
      elsif not domain.event_value_is(v_value, v_name) then
        v_out := v_out || (p_path || v_key || ': not ' || v_name);
      end if;
    end if;
  end loop;
  return v_out;
end $function$;

-- object: function domain.event_fields_text(jsonb)
CREATE OR REPLACE FUNCTION domain.event_fields_text(p_fields jsonb)
 RETURNS text
 LANGUAGE sql
 IMMUTABLE
 SET search_path TO ''
AS $function$
  select string_agg(key || ' ' || domain.event_type_text(value), ', ' order by key <> 'id', key)
    from jsonb_each(p_fields)
$function$;

-- object: function domain.event_type_text(jsonb)
CREATE OR REPLACE FUNCTION domain.event_type_text(p_type jsonb)
 RETURNS text
 LANGUAGE plpgsql
 IMMUTABLE
 SET search_path TO ''
AS $function$
begin
  return case jsonb_typeof(p_type)
    when 'object' then '{' || domain.event_fields_text(p_type) || '}'
    when 'array' then '[' || domain.event_type_text(p_type -> 0) || ']'
    else p_type #>> '{}'
  end;
end $function$;

-- object: function domain.event_value_is(jsonb,text)
CREATE OR REPLACE FUNCTION domain.event_value_is(p_value jsonb, p_type text)
 RETURNS boolean
 LANGUAGE sql
 IMMUTABLE
 SET search_path TO ''
AS $function$
  select case p_type
    when 'uuid' then jsonb_typeof(p_value) = 'string'
      and (p_value #>> '{}') ~ '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'
    when 'text' then jsonb_typeof(p_value) = 'string'
    when 'integer' then jsonb_typeof(p_value) = 'number' and (p_value #>> '{}') ~ '^-?[0-9]+$'
    when 'boolean' then jsonb_typeof(p_value) = 'boolean'
    when 'timestamp' then jsonb_typeof(p_value) = 'string'
      and (p_value #>> '{}') ~ '^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?([+-]\d{2}:\d{2}|Z)$'
    when 'date' then jsonb_typeof(p_value) = 'string' and (p_value #>> '{}') ~ '^\d{4}-\d{2}-\d{2}$'
    when 'object' then jsonb_typeof(p_value) = 'object'
    when 'user' then jsonb_typeof(p_value) = 'object'
      and cardinality(domain.event_data_mismatches(p_value, '{"id": "uuid", "name": "text"}')) = 0
    else false
  end
$function$;

-- object: function domain.extensions_random_bytes()
CREATE OR REPLACE FUNCTION domain.extensions_random_bytes()
 RETURNS bytea
 LANGUAGE sql
 SET search_path TO 'public', 'extensions'
AS $function$ select gen_random_bytes(32) $function$;

-- object: function domain.hide_deleted_auction_rows(regclass,text)
CREATE OR REPLACE FUNCTION domain.hide_deleted_auction_rows(p_table regclass, p_command text DEFAULT 'all'::text)
 RETURNS void
 LANGUAGE plpgsql
 SET search_path TO ''
AS $function$
declare
  v_rule constant text := 'not (auction_id = any (array(select public.deleted_auction_ids())))';
begin
  if p_command not in ('all', 'delete') then
    raise exception 'hide_deleted_auction_rows: command % is not all or delete', p_command;
  end if;
  execute format('create policy %I on %s as restrictive for %s to authenticated using (%s)%s',
    (select c.relname from pg_catalog.pg_class c where c.oid = p_table) || '_not_deleted', p_table, p_command,
    v_rule, case when p_command = 'all' then format(' with check (%s)', v_rule) else '' end);
end $function$;

-- object: function domain.inspection_event_data(uuid)
CREATE OR REPLACE FUNCTION domain.inspection_event_data(p_inspection_id uuid)
 RETURNS jsonb
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  return (
    select jsonb_build_object(
      'id', r.id, 'location_id', r.location_id, 'location_name', r.location_name, 'user_id', r.user_id,
      'inspector_name', r.inspector_name, 'vin_number', r.vin_number, 'barcode', r.barcode,
      'submitted_at', r.submitted_at, 'defect_count', r.defect_count,
      'defects', coalesce((
        select jsonb_agg(jsonb_build_object('category', c.name, 'notes', d.notes) order by d.created_at, d.id)
        from public.quality_defects d join public.defect_categories c on c.id = d.category_id
        where d.inspection_id = r.id), '[]'::jsonb))
    from public.recent_quality_inspections r where r.id = p_inspection_id);
end $function$;

-- object: function domain.link_imported_objects(uuid,text[],text[])
CREATE OR REPLACE FUNCTION domain.link_imported_objects(p_auction_id uuid, p_buckets text[], p_names text[])
 RETURNS bigint
 LANGUAGE plpgsql
 SET search_path TO ''
AS $function$
declare
  v_count bigint;
begin
  insert into domain.auction_object_links (auction_id, bucket_id, name, linked_by)
  select distinct p_auction_id, o.bucket_id, o.name, null::uuid
    from domain.auction_urls(p_auction_id) u
    cross join lateral domain.storage_url_object(u.url) o
   where o.bucket_id is not null
     and (pg_catalog.split_part(o.name, '/', 1) = p_auction_id::text and pg_catalog.strpos(o.name, '/') > 0
          or exists (select 1 from unnest(p_buckets, p_names) c(bucket_id, name)
                      where c.bucket_id = o.bucket_id and c.name = o.name))
  on conflict do nothing;
  get diagnostics v_count = row_count;
  return v_count;
end $function$;

-- object: function domain.link_url_object(uuid,text)
CREATE OR REPLACE FUNCTION domain.link_url_object(p_auction_id uuid, p_url text)
 RETURNS void
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  v_bucket text;
  v_name text;
  v_first text;
begin
  if p_auction_id is null or p_url is null then
    return;
  end if;
  select o.bucket_id, o.name into v_bucket, v_name from domain.storage_url_object(p_url) o;
  if v_bucket is null then
    return;
  end if;
  -- The first folder, as storage.foldername(name)[1] (none for a name without a folder).
  if pg_catalog.strpos(v_name, '/') > 0 then
    v_first := pg_catalog.split_part(v_name, '/', 1);
  end if;
  if not (domain.object_link_writer_trusted()
          or v_first = (select auth.uid())::text
          or v_first = p_auction_id::text
          or exists (select 1 from domain.auction_object_links l
                      where l.auction_id = p_auction_id and l.bucket_id = v_bucket and l.name = v_name)) then
    raise exception 'the URL names a stored object outside your own folder and this auction''s'
      using errcode = '42501',
            detail = pg_catalog.format('object %s/%s', v_bucket, v_name),
            hint = 'Upload the file under your own folder (<your user id>/...) and use its URL, or use a URL this '
                   'auction already uses. A URL grants nothing: only the uploader (or the auction''s own folder) '
                   'can link an object to an auction.';
  end if;
  insert into domain.auction_object_links (auction_id, bucket_id, name, linked_by)
  values (p_auction_id, v_bucket, v_name, (select auth.uid()))
  on conflict do nothing;
end $function$;

-- object: function domain.location_assignments_fill()
CREATE OR REPLACE FUNCTION domain.location_assignments_fill()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  select l.auction_id into new.auction_id from public.locations l where l.id = new.location_id;
  if new.auction_id is null then
    raise exception 'location not found' using errcode = '23503';
  end if;
  if not exists (select 1 from public.auction_members m where m.auction_id = new.auction_id and m.user_id = new.user_id) then
    raise exception 'the assignee is not a member of the location''s auction' using errcode = '23514';
  end if;
  return new;
end $function$;

-- object: function domain.location_submission_types_fill()
CREATE OR REPLACE FUNCTION domain.location_submission_types_fill()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  select auction_id into new.auction_id from public.locations where id = new.location_id;
  return new;
end $function$;

-- object: function domain.lot_submission_entries_fill()
CREATE OR REPLACE FUNCTION domain.lot_submission_entries_fill()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  select auction_id, location_id into new.auction_id, new.location_id
    from public.lot_submissions where id = new.submission_id;
  return new;
end $function$;

-- object: function domain.lot_submissions_created_event()
CREATE OR REPLACE FUNCTION domain.lot_submissions_created_event()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  v jsonb := domain.submission_event_data(new.id);
begin
  if v is not null then
    perform domain.emit_event(new.auction_id, 'submission.created', v);
  end if;
  return null;
end $function$;

-- object: function domain.lot_submissions_fill()
CREATE OR REPLACE FUNCTION domain.lot_submissions_fill()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  if tg_op = 'UPDATE' then
    new.auction_id := old.auction_id;
  else
    select auction_id into new.auction_id from public.locations where id = new.location_id;
  end if;
  return new;
end $function$;

-- object: function domain.lot_submissions_updated_event()
CREATE OR REPLACE FUNCTION domain.lot_submissions_updated_event()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  v_id uuid;
  v_auction uuid;
begin
  if tg_table_name = 'lot_submissions' then
    if (to_jsonb(new) - 'updated_at') = (to_jsonb(old) - 'updated_at') then
      return null;
    end if;
    v_id := new.id;
    v_auction := new.auction_id;
  else
    v_id := coalesce(new.submission_id, old.submission_id);
    select auction_id into v_auction from public.lot_submissions
    where id = v_id and created_at < now();  -- skip entries written in the submission's own transaction
    if v_auction is null then
      return null;
    end if;
  end if;
  perform domain.emit_event(v_auction, 'submission.updated',
    domain.submission_event_data(v_id) || jsonb_build_object('updated_by', public.user_ref(auth.uid()), 'updated_at', now()));
  return null;
end $function$;

-- object: function domain.messages_check()
CREATE OR REPLACE FUNCTION domain.messages_check()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  v_parent public.messages;
begin
  if tg_op = 'INSERT' then
    select auction_id into new.auction_id from public.channels where id = new.channel_id;
    if new.parent_message_id is not null then
      select * into v_parent from public.messages where id = new.parent_message_id;
      if v_parent.channel_id is distinct from new.channel_id then
        raise exception 'a reply must be in the same channel as its parent' using errcode = 'P0001';
      end if;
      if v_parent.parent_message_id is not null then
        new.parent_message_id := v_parent.parent_message_id;  -- replies to replies join the same thread
      end if;
    end if;
    new.is_edited := false;
    new.is_deleted := false;
    new.created_at := now();
  else
    new.auction_id := old.auction_id;
    new.channel_id := old.channel_id;
    new.user_id := old.user_id;
    new.parent_message_id := old.parent_message_id;
    new.created_at := old.created_at;
    if old.is_deleted then
      raise exception 'a deleted message cannot be changed' using errcode = 'P0001';
    end if;
    if new.is_deleted then
      -- Soft delete keeps the row (threads and counts stay intact) but not the words.
      new.deleted_at := now();
      new.content := '';
      new.mentions := '{}';
      return new;
    end if;
    if new.content is distinct from old.content then
      new.is_edited := true;
      new.edited_at := now();
    end if;
    new.updated_at := now();
  end if;
  if tg_op = 'INSERT' or new.content is distinct from old.content then
    new.mentions := array(
      select distinct m from unnest(coalesce(new.mentions, '{}')) m
      where exists (select 1 from public.auction_members am where am.auction_id = new.auction_id and am.user_id = m)
      union
      select am.user_id from public.auction_members am join public.users u on u.id = am.user_id
      where strpos(new.content, '@') > 0
        and am.auction_id = new.auction_id and am.user_id is distinct from new.user_id
        and ((nullif(trim(u.full_name), '') is not null and position(lower('@' || u.full_name) in lower(new.content)) > 0)
          or (u.email is not null and lower(new.content) ~ ('@' || regexp_replace(lower(split_part(u.email, '@', 1)), '([.+*?^$(){}|\[\]\\])', '\\\1', 'g') || '(\M|$)'))));
  end if;
  return new;
end $function$;

-- object: function domain.object_link_writer_trusted()
CREATE OR REPLACE FUNCTION domain.object_link_writer_trusted()
 RETURNS boolean
 LANGUAGE sql
 STABLE
 SET search_path TO ''
AS $function$
  select case pg_catalog.current_setting('role')
    when 'service_role' then true
    when 'anon' then false
    when 'authenticated' then false
    when 'none' then session_user::text <> 'authenticator'
    else false end
$function$;

-- object: function domain.object_links_check()
CREATE OR REPLACE FUNCTION domain.object_links_check()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  perform domain.link_url_object(new.auction_id, pg_catalog.to_jsonb(new) ->> tg_argv[0]);
  return null;
end $function$;

-- object: function domain.problem_actions_completed_event()
CREATE OR REPLACE FUNCTION domain.problem_actions_completed_event()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  if new.status = 'complete' and (tg_op = 'INSERT' or old.status is distinct from 'complete') then
    perform domain.emit_event(new.auction_id, 'problem.action_completed', (
      select jsonb_build_object(
        'id', new.id, 'problem_id', new.problem_id, 'issue_name', v.issue_name, 'location_id', p.location_id,
        'location_name', v.location_name, 'issue', new.issue, 'countermeasure', new.countermeasure,
        'responsible_person', new.responsible_person, 'completion_date', new.completion_date,
        'completed_at', new.completed_at, 'completed_by', public.user_ref(auth.uid()),
        'action_count', v.action_count, 'completed_action_count', v.completed_action_count)
      from public.problem_reports p join public.active_problem_reports v on v.id = p.id where p.id = new.problem_id));
  end if;
  return null;
end $function$;

-- object: function domain.problem_children_fill()
CREATE OR REPLACE FUNCTION domain.problem_children_fill()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  select auction_id into new.auction_id from public.problem_reports where id = new.problem_id;
  if tg_table_name = 'problem_actions' then
    if new.status = 'complete' and (tg_op = 'INSERT' or old.status is distinct from 'complete') then
      new.completed_at := now();
    elsif new.status <> 'complete' then
      new.completed_at := null;
    end if;
    if tg_op = 'UPDATE' then
      new.updated_at := now();
    end if;
  end if;
  return new;
end $function$;

-- object: function domain.problem_event_data(uuid)
CREATE OR REPLACE FUNCTION domain.problem_event_data(p_problem_id uuid)
 RETURNS jsonb
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  return (
    select jsonb_build_object(
      'id', p.id, 'issue_name', p.issue_name, 'area', p.area, 'location_id', p.location_id,
      'location_name', v.location_name, 'status', p.status,
      'prepared_by', public.user_ref(p.prepared_by), 'assigned_to', public.user_ref(p.assigned_to),
      'action_count', v.action_count, 'completed_action_count', v.completed_action_count,
      'submitted_at', p.submitted_at, 'updated_at', p.updated_at)
    from public.problem_reports p join public.active_problem_reports v on v.id = p.id where p.id = p_problem_id);
end $function$;

-- object: function domain.problem_reports_check()
CREATE OR REPLACE FUNCTION domain.problem_reports_check()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  if tg_op = 'UPDATE' then
    new.auction_id := old.auction_id;
    new.prepared_by := old.prepared_by;
    new.submitted_at := old.submitted_at;
  end if;
  if new.location_id is not null
     and not exists (select 1 from public.locations where id = new.location_id and auction_id = new.auction_id) then
    raise exception 'location belongs to another auction' using errcode = '23503';
  end if;
  if new.assigned_to is not null and (tg_op = 'INSERT' or new.assigned_to is distinct from old.assigned_to)
     and not exists (select 1 from public.auction_members where auction_id = new.auction_id and user_id = new.assigned_to) then
    raise exception 'a report can only be assigned to a member of the auction' using errcode = 'P0001';
  end if;
  if tg_op = 'INSERT' then
    if new.status <> 'open' then
      raise exception 'a new report starts open' using errcode = 'P0001';
    end if;
    return new;
  end if;
  if new.status is distinct from old.status then
    if not (
      (old.status = 'open' and new.status = 'in_progress')
      or (old.status = 'in_progress' and new.status = 'open')
      or new.status = 'closed'
      or (old.status = 'closed' and new.status = 'open')) then
      raise exception 'a report cannot move from % to %', old.status, new.status
        using errcode = 'P0001', hint = 'allowed: open -> in_progress, in_progress -> open, any -> closed, closed -> open';
    end if;
    if old.status = 'closed' and not (public.is_super_admin() or auth.role() = 'service_role'
                                      or public.is_auction_admin_or_above(new.auction_id)) then
      raise exception 'only auction admins and owners can reopen a closed report' using errcode = '42501';
    end if;
    new.closed_at := case when new.status = 'closed' then now() end;
  end if;
  return new;
end $function$;

-- object: function domain.problem_reports_events()
CREATE OR REPLACE FUNCTION domain.problem_reports_events()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  v jsonb := domain.problem_event_data(new.id);
begin
  if tg_op = 'INSERT' then
    perform domain.emit_event(new.auction_id, 'problem.created', v);
    if new.assigned_to is not null then
      perform domain.emit_event(new.auction_id, 'problem.assigned',
        (v - 'action_count' - 'completed_action_count') || jsonb_build_object(
          'previous_assigned_to', null, 'assigned_by', public.user_ref(auth.uid())));
    end if;
    return null;
  end if;
  if new.status is distinct from old.status then
    perform domain.emit_event(new.auction_id, 'problem.status_changed',
      (v - 'status' - 'submitted_at') || jsonb_build_object('previous_status', old.status, 'new_status', new.status));
  end if;
  if new.assigned_to is distinct from old.assigned_to and new.assigned_to is not null then
    perform domain.emit_event(new.auction_id, 'problem.assigned',
      (v - 'action_count' - 'completed_action_count') || jsonb_build_object(
        'previous_assigned_to', public.user_ref(old.assigned_to), 'assigned_by', public.user_ref(auth.uid())));
  end if;
  return null;
end $function$;

-- object: function domain.purge_auction(uuid,timestamp with time zone,boolean)
CREATE OR REPLACE FUNCTION domain.purge_auction(p_auction_id uuid, p_now timestamp with time zone DEFAULT now(), p_force boolean DEFAULT false)
 RETURNS TABLE(bucket_id text, version text)
 LANGUAGE plpgsql
 SET search_path TO ''
AS $function$
declare
  v public.auctions;
  v_table text;
  v_count integer := 0;
begin
  select * into v from public.auctions a where a.id = p_auction_id for update;
  if not found or v.deleted_at is null then
    raise exception 'auction % is not pending deletion', p_auction_id using errcode = 'P0002';
  end if;
  if not p_force and v.purge_after > p_now then
    raise exception 'auction % is not due for purge before %', p_auction_id, v.purge_after using errcode = 'P0001';
  end if;
  create temporary table if not exists pg_temp.purged_objects (bucket_id text, version text) on commit drop;
  truncate pg_temp.purged_objects;
  if to_regclass('storage.objects') is not null then
    execute 'with gone as (delete from storage.objects o using domain.auction_object_refs($1) r
                           where o.bucket_id = r.bucket_id and o.name = r.name returning o.bucket_id, o.version)
             insert into pg_temp.purged_objects select * from gone' using p_auction_id;
    get diagnostics v_count = row_count;
  end if;
  if to_regclass('reporting_data.imports') is not null then
    for v_table in execute 'select table_name from public.datasets where auction_id = $1 and table_name is not null'
      using p_auction_id loop
      execute format('drop table if exists reporting_data.%I', v_table);
    end loop;
  end if;
  delete from public.auctions a where a.id = p_auction_id;
  perform domain.emit_event(v.id, 'auction.purged', jsonb_build_object(
    'id', v.id, 'name', v.name, 'slug', v.slug, 'deleted_by', public.user_ref(v.deleted_by),
    'deleted_at', v.deleted_at, 'purged_at', now(), 'objects_removed', v_count));
  return query select p.bucket_id, p.version from pg_temp.purged_objects p;
end $function$;

-- object: function domain.quality_defects_added_event()
CREATE OR REPLACE FUNCTION domain.quality_defects_added_event()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  perform domain.emit_event(new.auction_id, 'inspection.defect_added', (
    select jsonb_build_object(
      'id', new.id, 'inspection_id', new.inspection_id, 'category_id', new.category_id, 'category', c.name,
      'notes', new.notes, 'vin_number', i.vin_number, 'barcode', i.barcode, 'location_id', i.location_id,
      'location_name', l.name, 'added_by', public.user_ref(auth.uid()), 'created_at', new.created_at)
    from public.quality_inspections i
    join public.locations l on l.id = i.location_id
    join public.defect_categories c on c.id = new.category_id
    where i.id = new.inspection_id));
  return null;
end $function$;

-- object: function domain.quality_defects_fill()
CREATE OR REPLACE FUNCTION domain.quality_defects_fill()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  select auction_id, location_id into new.auction_id, new.location_id
    from public.quality_inspections where id = new.inspection_id;
  if not exists (select 1 from public.defect_categories
                 where id = new.category_id and (auction_id is null or auction_id = new.auction_id)) then
    raise exception 'defect category belongs to another auction' using errcode = '23503';
  end if;
  return new;
end $function$;

-- object: function domain.quality_inspections_created_event()
CREATE OR REPLACE FUNCTION domain.quality_inspections_created_event()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  v jsonb := domain.inspection_event_data(new.id);
begin
  if v is not null then
    perform domain.emit_event(new.auction_id, 'inspection.created', v);
  end if;
  return null;
end $function$;

-- object: function domain.quality_inspections_fill()
CREATE OR REPLACE FUNCTION domain.quality_inspections_fill()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  new.vin_number := upper(trim(new.vin_number));
  if tg_op = 'UPDATE' then
    new.auction_id := old.auction_id;
  end if;
  return new;
end $function$;

-- object: function domain.refuse_anonymous(regclass)
CREATE OR REPLACE FUNCTION domain.refuse_anonymous(p_table regclass)
 RETURNS void
 LANGUAGE plpgsql
 SET search_path TO ''
AS $function$
declare
  v_policy constant text := (select relname from pg_catalog.pg_class where oid = p_table) || '_not_anonymous';
begin
  execute format('drop policy if exists %I on %s', v_policy, p_table);
  execute format(
    'create policy %I on %s as restrictive for all to authenticated
       using (not (select public.is_anonymous_caller())) with check (not (select public.is_anonymous_caller()))',
    v_policy, p_table);
end $function$;

-- object: function domain.set_updated_at()
CREATE OR REPLACE FUNCTION domain.set_updated_at()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
begin
  new.updated_at := now();
  return new;
end $function$;

-- object: function domain.storage_url_object(text)
CREATE OR REPLACE FUNCTION domain.storage_url_object(p_url text, OUT bucket_id text, OUT name text)
 RETURNS record
 LANGUAGE plpgsql
 IMMUTABLE PARALLEL SAFE
 SET search_path TO ''
AS $function$
declare
  m text[];
begin
  m := pg_catalog.regexp_match(p_url,
    '/storage/v1/(?:object|render/image)/(?:public/|authenticated/|sign/)?([a-z0-9][a-z0-9._-]{0,62})/([^?#]+)');
  if m is null then
    return;
  end if;
  bucket_id := m[1];
  name := m[2];
  if pg_catalog.strpos(name, '%') > 0 then
    begin
      select pg_catalog.convert_from(pg_catalog.string_agg(
               case when p[1] is not null then pg_catalog.decode(pg_catalog.substr(p[1], 2), 'hex')
                    else pg_catalog.convert_to(p[2], 'UTF8') end, ''::bytea order by o), 'UTF8')
        into name
        from pg_catalog.regexp_matches(m[2], '(%[0-9A-Fa-f]{2})|([^%]+|%)', 'g') with ordinality as x(p, o);
    exception when others then
      -- Not valid UTF-8 once decoded: kept as written. Links name objects exactly, so this one names none.
      name := m[2];
    end;
  end if;
end $function$;

-- object: function domain.submission_event_data(uuid)
CREATE OR REPLACE FUNCTION domain.submission_event_data(p_submission_id uuid)
 RETURNS jsonb
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  return (
    select (to_jsonb(r) - 'auction_id' - 'entry_count') || jsonb_build_object('entries', coalesce((
        select jsonb_agg(jsonb_build_object('type_id', en.submission_type_id, 'type_name', t.name,
          'car_count', en.car_count, 'image_url', en.image_url) order by lst.display_order nulls last, t.name)
        from public.lot_submission_entries en
        join public.submission_types t on t.id = en.submission_type_id
        left join public.location_submission_types lst
          on lst.location_id = r.location_id and lst.submission_type_id = en.submission_type_id
        where en.submission_id = r.id), '[]'::jsonb))
    from public.recent_submissions r where r.id = p_submission_id);
end $function$;

-- object: function domain.tables_open_to_anonymous_users()
CREATE OR REPLACE FUNCTION domain.tables_open_to_anonymous_users()
 RETURNS SETOF regclass
 LANGUAGE sql
 STABLE
 SET search_path TO ''
AS $function$
  select c.oid::regclass
  from pg_catalog.pg_class c join pg_catalog.pg_namespace n on n.oid = c.relnamespace
  where n.nspname = 'public' and c.relkind in ('r', 'p') and c.relrowsecurity
    and not has_table_privilege('anon', c.oid, 'select')
    and not exists (
      select from pg_catalog.pg_policy p
      where p.polrelid = c.oid and not p.polpermissive and p.polname = c.relname || '_not_anonymous')
  order by 1::text
$function$;

-- object: table domain.auction_object_links
create table domain.auction_object_links (
  auction_id uuid not null,
  bucket_id text not null,
  name text not null,
  linked_by uuid,
  linked_at timestamp with time zone not null default now()
);
alter table domain.auction_object_links enable row level security;
alter table domain.auction_object_links add constraint auction_object_links_auction_id_fkey FOREIGN KEY (auction_id) REFERENCES public.auctions(id) ON DELETE CASCADE;
alter table domain.auction_object_links add constraint auction_object_links_pkey PRIMARY KEY (auction_id, bucket_id, name);
CREATE INDEX auction_object_links_object_idx ON domain.auction_object_links USING btree (bucket_id, name);

-- object: table domain.deletion_settings
create table domain.deletion_settings (
  id boolean not null default true,
  grace interval not null default '30 days'::interval,
  updated_at timestamp with time zone not null default now()
);
alter table domain.deletion_settings add constraint deletion_settings_grace_check CHECK ((grace >= '00:00:00'::interval));
alter table domain.deletion_settings add constraint deletion_settings_id_check CHECK (id);
alter table domain.deletion_settings add constraint deletion_settings_pkey PRIMARY KEY (id);
