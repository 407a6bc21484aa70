-- Delete with a way back (issue 46): deleting an auction through the data interface (an owner's
-- DELETE /rest/v1/auctions?id=eq.X, a super admin's, the service role's) marks it deleted instead of removing it.
-- A deleted auction is hidden: every membership helper the policies and RPCs use treats it as no membership, so
-- its rows vanish from reads, realtime and writes for everyone but the service role. Its owners (and super admins)
-- may undo the deletion until `purge_after` (now + the grace period, AUCTION_DELETE_GRACE_DAYS, which the server
-- writes into domain.deletion_settings at start); the server's purge job then removes it for real: the cascade
-- through every table, the objects its rows name, the tables of its datasets.
-- Only the database owner (migrations, the server's jobs, the CLI) deletes an auction row outright.

alter table public.auctions
  add column deleted_at timestamptz,
  add column deleted_by uuid references public.users (id) on delete set null,
  add column purge_after timestamptz;
create index auctions_deleted_idx on public.auctions (purge_after) where deleted_at is not null;

-- The grace period, as the server's configuration last set it (one row).
create table domain.deletion_settings (
  id boolean primary key default true check (id),
  grace interval not null default interval '30 days' check (grace >= interval '0'),
  updated_at timestamptz not null default now()
);
insert into domain.deletion_settings default values;

-- Deleted auctions the caller belongs to (every one for a super admin), for policies:
-- `not (auction_id = any (array(select public.deleted_auction_ids())))` costs one lookup per statement (a partial
-- index, usually empty). Limited to the caller's own so that it names no one else's auction.
create function public.deleted_auction_ids() returns setof uuid
language plpgsql stable security definer parallel safe set search_path = '' as $$
begin
  return query
  select a.id from public.auctions a
  where a.deleted_at is not null
    and (exists (select 1 from public.auction_members m where m.auction_id = a.id and m.user_id = (select auth.uid()))
         or exists (select 1 from public.super_admins s where s.user_id = (select auth.uid())));
end $$;
revoke execute on function public.deleted_auction_ids() from public;
grant execute on function public.deleted_auction_ids() to authenticated, service_role;

-- The membership helpers (bodies as of 0013 and 0021), a deleted auction counting as no membership; the super
-- admins' "every auction" leaves deleted ones out too (they reach them through the RPCs below and the console).
create or replace function public.get_user_auction_role(p_auction_id uuid) returns text
language sql stable security definer parallel safe set search_path = '' as $$
  select case
    when m.role in ('owner', 'admin') and (select auth.aal()) <> 'aal2'
      and coalesce((a.settings ->> 'require_mfa_for_admins')::boolean, false) then 'team_member'
    else m.role end
  from public.auction_members m join public.auctions a on a.id = m.auction_id
  where m.auction_id = p_auction_id and m.user_id = (select auth.uid()) and a.deleted_at is null
$$;

create or replace function public.is_auction_member(p_auction_id uuid) returns boolean
language sql stable security definer parallel safe set search_path = '' as $$
  select exists (
    select 1 from public.auction_members m join public.auctions a on a.id = m.auction_id
    where m.auction_id = p_auction_id and m.user_id = (select auth.uid()) and a.deleted_at is null)
$$;

create or replace function public.is_auction_admin_or_above(p_auction_id uuid) returns boolean
language sql stable security definer parallel safe set search_path = '' as $$
  select exists (
    select 1 from public.auction_members m join public.auctions a on a.id = m.auction_id
    where m.auction_id = p_auction_id and m.user_id = (select auth.uid()) and m.role in ('owner', 'admin')
      and a.deleted_at is null
      and ((select auth.aal()) = 'aal2' or coalesce((a.settings ->> 'require_mfa_for_admins')::boolean, false) = false)
  )
$$;

create or replace function public.current_user_auction_ids() returns setof uuid
language plpgsql stable security definer parallel safe set search_path = '' as $$
begin
  return query
  select m.auction_id from public.auction_members m join public.auctions a on a.id = m.auction_id
  where m.user_id = (select auth.uid()) and a.deleted_at is null;
end $$;

create or replace function public.current_user_admin_auction_ids() returns setof uuid
language plpgsql stable security definer parallel safe set search_path = '' as $$
begin
  return query
  select m.auction_id from public.auction_members m join public.auctions a on a.id = m.auction_id
  where m.user_id = (select auth.uid()) and m.role in ('owner', 'admin') and a.deleted_at is null
    and ((select auth.aal()) = 'aal2' or coalesce((a.settings ->> 'require_mfa_for_admins')::boolean, false) = false);
end $$;

create or replace function public.member_auction_ids() returns setof uuid
language plpgsql stable security definer parallel safe set search_path = '' as $$
begin
  return query
  select m.auction_id from public.auction_members m join public.auctions a on a.id = m.auction_id
  where m.user_id = (select auth.uid()) and a.deleted_at is null
  union all
  select id from public.auctions
  where deleted_at is null and exists (select 1 from public.super_admins where user_id = (select auth.uid()));
end $$;

create or replace function public.admin_auction_ids() returns setof uuid
language plpgsql stable security definer parallel safe set search_path = '' as $$
begin
  return query
  select m.auction_id from public.auction_members m join public.auctions a on a.id = m.auction_id
  where m.user_id = (select auth.uid()) and m.role in ('owner', 'admin') and a.deleted_at is null
    and ((select auth.aal()) = 'aal2' or coalesce((a.settings ->> 'require_mfa_for_admins')::boolean, false) = false)
  union all
  select id from public.auctions
  where deleted_at is null and exists (select 1 from public.super_admins where user_id = (select auth.uid()));
end $$;

-- People who share a live auction with the caller.
create or replace function public.current_user_co_member_ids() returns setof uuid
language plpgsql stable security definer parallel safe set search_path = '' as $$
begin
  return query
  select distinct other.user_id
  from public.auction_members mine
  join public.auctions a on a.id = mine.auction_id and a.deleted_at is null
  join public.auction_members other on other.auction_id = mine.auction_id
  where mine.user_id = (select auth.uid());
end $$;

create or replace function public.current_user_assigned_location_ids() returns setof uuid
language plpgsql stable security definer parallel safe set search_path = '' as $$
begin
  return query
  select la.location_id from public.location_assignments la
  join public.auction_members m on m.auction_id = la.auction_id and m.user_id = la.user_id
  join public.auctions a on a.id = la.auction_id and a.deleted_at is null
  where la.user_id = (select auth.uid());
end $$;

-- Policies with a branch that does not go through the helpers above (a super admin's bypass, "my own rows"):
-- a restrictive policy leaves a deleted auction's rows out whatever the permissive ones say.
create policy auctions_not_deleted on public.auctions as restrictive for all to authenticated
  using (deleted_at is null) with check (deleted_at is null);
do $$
declare
  t text;
begin
  foreach t in array array['location_assignments', 'query_audit_log', 'lot_submission_entries', 'quality_defects']
  loop
    execute format('create policy %I on public.%I as restrictive for all to authenticated '
      'using (not (auction_id = any (array(select public.deleted_auction_ids())))) '
      'with check (not (auction_id = any (array(select public.deleted_auction_ids()))))',
      t || '_not_deleted', t);
  end loop;
end $$;

-- The outbox outlives the auction by one row: `auction.purged` is written after the cascade, so the foreign key
-- gives way to a trigger that removes the auction's earlier events with it (as the cascade did).
alter table public.event_outbox drop constraint event_outbox_auction_id_fkey;
create function domain.auctions_after_delete() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  delete from public.event_outbox where auction_id = old.id;
  return null;
end $$;
create trigger auctions_after_delete after delete on public.auctions
  for each row execute function domain.auctions_after_delete();

-- The effective role of the RPCs that write (0002: invitations, role changes, ownership transfer): none in a
-- deleted auction, for super admins and the service role too.
create or replace function domain.caller_role(p_auction_id uuid) returns text
language sql stable security definer set search_path = '' as $$
  select case
    when exists (select 1 from public.auctions where id = p_auction_id and deleted_at is not null) then null
    when public.is_super_admin() or auth.role() = 'service_role' then 'owner'
    else public.get_user_auction_role(p_auction_id) end
$$;

-- The mark. Callable as an RPC too (owners, super admins, the service role); the delete trigger calls it.
create function public.delete_auction(p_auction_id uuid) returns public.auctions
language plpgsql volatile security definer set search_path = '' as $$
declare
  v public.auctions;
begin
  select * into v from public.auctions where id = p_auction_id for update;
  if not found or v.deleted_at is not null then
    raise exception 'no such auction' using errcode = 'P0002';
  end if;
  if not (auth.role() = 'service_role' or public.is_super_admin()
          or public.get_user_auction_role(p_auction_id) is not distinct from 'owner') then
    raise exception 'only an owner of the auction may delete it' using errcode = '42501';
  end if;
  update public.auctions
     set deleted_at = now(), deleted_by = auth.uid(),
         purge_after = now() + (select grace from domain.deletion_settings)
   where id = p_auction_id
  returning * into v;
  perform domain.emit_event(v.id, 'auction.deleted', jsonb_build_object(
    'id', v.id, 'name', v.name, 'slug', v.slug, 'deleted_by', public.user_ref(v.deleted_by),
    'deleted_at', v.deleted_at, 'purge_after', v.purge_after));
  return v;
end $$;

-- A request role's DELETE becomes the mark (the row is skipped, as PostgREST answers a delete a trigger skipped:
-- 204, or [] with return=representation). The database owner (the purge job) deletes for real.
create function domain.auctions_before_delete() returns trigger
language plpgsql set search_path = '' as $$
begin
  if current_user in ('anon', 'authenticated', 'service_role') then
    if old.deleted_at is null then
      perform public.delete_auction(old.id);
    end if;
    return null;
  end if;
  return old;
end $$;
create trigger auctions_before_delete before delete on public.auctions
  for each row execute function domain.auctions_before_delete();

-- Whether the caller may undo the deletion of this auction: an owner of it (at aal2 where the auction requires it
-- of admins), a super admin, or the service role.
create function public.can_undelete_auction(p_auction_id uuid) returns boolean
language sql stable security definer set search_path = '' as $$
  select auth.role() = 'service_role' or public.is_super_admin() or exists (
    select 1 from public.auction_members m join public.auctions a on a.id = m.auction_id
    where m.auction_id = p_auction_id and m.user_id = (select auth.uid()) and m.role = 'owner'
      and ((select auth.aal()) = 'aal2' or coalesce((a.settings ->> 'require_mfa_for_admins')::boolean, false) = false))
$$;

-- Undo: the auction comes back whole (nothing was removed while it was marked).
create function public.restore_deleted_auction(p_auction_id uuid) returns public.auctions
language plpgsql volatile security definer set search_path = '' as $$
declare
  v public.auctions;
  v_deleted_at timestamptz;
begin
  if not public.can_undelete_auction(p_auction_id) then
    raise exception 'only an owner of the auction or a super admin may undo its deletion' using errcode = '42501';
  end if;
  select deleted_at into v_deleted_at from public.auctions where id = p_auction_id for update;
  if v_deleted_at is null then
    raise exception 'auction % is not pending deletion', p_auction_id using errcode = 'P0002';
  end if;
  update public.auctions set deleted_at = null, deleted_by = null, purge_after = null
   where id = p_auction_id returning * into v;
  perform domain.emit_event(v.id, 'auction.undeleted', jsonb_build_object(
    'id', v.id, 'name', v.name, 'slug', v.slug, 'undeleted_by', public.user_ref(auth.uid()),
    'undeleted_at', now(), 'deleted_at', v_deleted_at));
  return v;
end $$;

-- The deleted auctions the caller may bring back: those they own, every one for a super admin.
create function public.list_deleted_auctions()
returns table (
  id uuid, name text, slug text, deleted_at timestamptz, deleted_by uuid, deleted_by_name text,
  purge_after timestamptz, member_count integer
)
language sql stable security definer set search_path = '' as $$
  select a.id, a.name, a.slug, a.deleted_at, a.deleted_by, public.user_display_name(a.deleted_by),
    a.purge_after, (select count(*)::integer from public.auction_members m where m.auction_id = a.id)
  from public.auctions a
  where a.deleted_at is not null and public.can_undelete_auction(a.id)
  order by a.purge_after, a.id
$$;

-- Purge now (the console): a super admin moves the purge date to now and wakes the purge job, which removes the
-- rows and the objects' bytes (only the server can reach the storage backend).
create function public.purge_deleted_auction_now(p_auction_id uuid) returns jsonb
language plpgsql volatile security definer set search_path = '' as $$
declare
  v public.auctions;
begin
  if not (auth.role() = 'service_role' or public.is_super_admin()) then
    raise exception 'only super admins may purge an auction' using errcode = '42501';
  end if;
  update public.auctions set purge_after = now() where id = p_auction_id and deleted_at is not null
  returning * into v;
  if not found then
    raise exception 'auction % is not pending deletion', p_auction_id using errcode = 'P0002';
  end if;
  perform pg_notify('auction_purge', v.id::text);
  return jsonb_build_object('id', v.id, 'purge_after', v.purge_after);
end $$;

-- The objects of an auction (when storage is installed): those under an `<auction_id>/` folder of any bucket, and
-- those its rows name by URL (`*_url` columns, image messages), except any another auction's rows also name.
create function domain.auction_object_refs(p_auction_id uuid)
returns table (bucket_id text, name text)
language plpgsql volatile set search_path = '' as $$
declare
  c record;
  v_pattern constant text :=
    '/storage/v1/(?:object|render/image)/(?:public/|authenticated/|sign/)?([a-z0-9][a-z0-9._-]{0,62})/([^?#]+)';
begin
  if to_regclass('storage.objects') is null then
    return;
  end if;
  create temporary table if not exists pg_temp.auction_urls (auction_id uuid, url text) on commit drop;
  truncate pg_temp.auction_urls;
  for c in
    select k.table_schema, k.table_name, k.column_name
      from information_schema.columns k
      join information_schema.tables t on t.table_schema = k.table_schema and t.table_name = k.table_name
     where k.table_schema = 'public' and t.table_type = 'BASE TABLE' and k.column_name like '%\_url'
       and k.data_type = 'text'
       and exists (select 1 from information_schema.columns a where a.table_schema = k.table_schema
                     and a.table_name = k.table_name and a.column_name = 'auction_id')
  loop
    execute format('insert into pg_temp.auction_urls select auction_id, %I from %I.%I where %I like %L',
      c.column_name, c.table_schema, c.table_name, c.column_name, '%/storage/v1/%');
  end loop;
  insert into pg_temp.auction_urls
    select m.auction_id, m.content from public.messages m
     where m.message_type = 'image' and m.content like '%/storage/v1/%';
  return query
    with refs as (
      select u.auction_id, r[1] as bucket_id, r[2] as name
        from pg_temp.auction_urls u cross join lateral regexp_match(u.url, v_pattern) r
       where r is not null
    )
    select o.bucket_id, o.name::text from storage.objects o
     where o.name like p_auction_id::text || '/%'
    union
    select o.bucket_id, o.name::text from storage.objects o
      join refs on refs.bucket_id = o.bucket_id and refs.name = o.name
     where refs.auction_id = p_auction_id
       and not exists (select 1 from refs x where x.bucket_id = o.bucket_id and x.name = o.name
                         and x.auction_id <> p_auction_id);
end $$;

-- The purge of one auction, by the server's job as the database owner: the objects' rows (their backend keys are
-- returned for the job to remove after the commit), the datasets' tables, the auction with its cascade, then the
-- `auction.purged` event. Refuses an auction that is not deleted or, unless p_force, not yet due at p_now.
create function domain.purge_auction(p_auction_id uuid, p_now timestamptz default now(), p_force boolean default false)
returns table (bucket_id text, version text)
language plpgsql volatile set search_path = '' as $$
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
end $$;

revoke execute on function public.delete_auction(uuid), public.can_undelete_auction(uuid),
  public.restore_deleted_auction(uuid), public.list_deleted_auctions(), public.purge_deleted_auction_now(uuid),
  domain.auctions_after_delete(), domain.auctions_before_delete() from public;
grant execute on function public.delete_auction(uuid), public.can_undelete_auction(uuid),
  public.restore_deleted_auction(uuid), public.list_deleted_auctions(), public.purge_deleted_auction_now(uuid)
  to authenticated, service_role;

-- The catalogue's new area.
insert into public.event_types (name, area, emitted_when, fields, sample, since_version) values
  ('auction.deleted', 'auctions',
   'an owner (or a super admin, or the service role) deletes the auction: it is marked, hidden, and purged after '
   'the grace period unless undone',
   '{"id": "uuid", "name": "text", "slug": "text", "deleted_by": "user?", "deleted_at": "timestamp",
     "purge_after": "timestamp"}',
   $${"id": "00000000-0000-4000-8000-000000000020", "name": "Bayside Auto Auction", "slug": "bayside",
    "deleted_at": "2026-03-01T14:05:09.123+00:00",
    "deleted_by": {"id": "00000000-0000-4000-8000-000000000014", "name": "Sample Owner"},
    "purge_after": "2026-03-31T14:05:09.123+00:00"}$$, '0.3.0'),
  ('auction.undeleted', 'auctions',
   'restore_deleted_auction brings a deleted auction back before its purge',
   '{"id": "uuid", "name": "text", "slug": "text", "undeleted_by": "user?", "undeleted_at": "timestamp",
     "deleted_at": "timestamp"}',
   $${"id": "00000000-0000-4000-8000-000000000020", "name": "Bayside Auto Auction", "slug": "bayside",
    "deleted_at": "2026-03-01T14:05:09.123+00:00", "undeleted_at": "2026-03-02T09:00:00.000+00:00",
    "undeleted_by": {"id": "00000000-0000-4000-8000-000000000014", "name": "Sample Owner"}}$$, '0.3.0'),
  ('auction.purged', 'auctions',
   'the purge job removed a deleted auction, its rows and objects, after the grace period (or on a super admin''s '
   'purge now); the auction''s webhook endpoints go with it, so this one stays in the outbox for operators',
   '{"id": "uuid", "name": "text", "slug": "text", "deleted_by": "user?", "deleted_at": "timestamp",
     "purged_at": "timestamp", "objects_removed": "integer"}',
   $${"id": "00000000-0000-4000-8000-000000000020", "name": "Bayside Auto Auction", "slug": "bayside",
    "deleted_at": "2026-03-01T14:05:09.123+00:00",
    "deleted_by": {"id": "00000000-0000-4000-8000-000000000014", "name": "Sample Owner"},
    "purged_at": "2026-03-31T14:05:10.000+00:00", "objects_removed": 3}$$, '0.3.0');
