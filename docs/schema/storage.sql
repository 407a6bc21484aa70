-- Generated from the migrations by apps/server/test/schema-snapshot.test.ts (`pnpm schema:snapshot`): do not
-- edit. Read the schema in force here; change it in a new migration (packages/*/migrations*).

-- object: schema storage
create schema storage;
grant usage on schema storage to anon;
grant usage on schema storage to authenticated;
grant usage on schema storage to service_role;

-- object: function storage.deleted_auction_object(text,text)
CREATE OR REPLACE FUNCTION storage.deleted_auction_object(p_bucket text, p_name text)
 RETURNS boolean
 LANGUAGE sql
 STABLE PARALLEL SAFE SECURITY DEFINER
 SET search_path TO ''
AS $function$
  select coalesce(bool_and(a.deleted_at is not null), false)
    from domain.auction_object_links l join public.auctions a on a.id = l.auction_id
   where l.bucket_id = p_bucket and l.name = p_name
$function$;
grant execute on function storage.deleted_auction_object(text,text) to anon;
grant execute on function storage.deleted_auction_object(text,text) to authenticated;
grant execute on function storage.deleted_auction_object(text,text) to service_role;

-- object: function storage.extension(text)
CREATE OR REPLACE FUNCTION storage.extension(name text)
 RETURNS text
 LANGUAGE sql
 IMMUTABLE STRICT
AS $function$
  select case when storage.filename(name) like '%.%' then reverse(split_part(reverse(storage.filename(name)), '.', 1)) else '' end
$function$;
grant execute on function storage.extension(text) to anon;
grant execute on function storage.extension(text) to authenticated;
grant execute on function storage.extension(text) to public;
grant execute on function storage.extension(text) to service_role;

-- object: function storage.filename(text)
CREATE OR REPLACE FUNCTION storage.filename(name text)
 RETURNS text
 LANGUAGE sql
 IMMUTABLE STRICT
AS $function$
  select (string_to_array(name, '/'))[cardinality(string_to_array(name, '/'))]
$function$;
grant execute on function storage.filename(text) to anon;
grant execute on function storage.filename(text) to authenticated;
grant execute on function storage.filename(text) to public;
grant execute on function storage.filename(text) to service_role;

-- object: function storage.foldername(text)
CREATE OR REPLACE FUNCTION storage.foldername(name text)
 RETURNS text[]
 LANGUAGE sql
 IMMUTABLE STRICT
AS $function$
  select (string_to_array(name, '/'))[1 : cardinality(string_to_array(name, '/')) - 1]
$function$;
grant execute on function storage.foldername(text) to anon;
grant execute on function storage.foldername(text) to authenticated;
grant execute on function storage.foldername(text) to public;
grant execute on function storage.foldername(text) to service_role;

-- object: function storage.in_deleted_auction(text)
CREATE OR REPLACE FUNCTION storage.in_deleted_auction(p_name text)
 RETURNS boolean
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
  select exists (
    select 1 from public.auctions a
     where a.deleted_at is not null
       and a.id = (select case when f ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'
                               then f::uuid end
                     from (select split_part(p_name, '/', 1) as f) x
                    where strpos(p_name, '/') > 0))
$function$;
grant execute on function storage.in_deleted_auction(text) to anon;
grant execute on function storage.in_deleted_auction(text) to authenticated;
grant execute on function storage.in_deleted_auction(text) to service_role;

-- object: function storage.is_super_admin()
CREATE OR REPLACE FUNCTION storage.is_super_admin()
 RETURNS boolean
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
  select public.is_super_admin()
$function$;
grant execute on function storage.is_super_admin() to anon;
grant execute on function storage.is_super_admin() to authenticated;
grant execute on function storage.is_super_admin() to service_role;

-- object: function storage.tus_complete(uuid,text,bigint,uuid)
CREATE OR REPLACE FUNCTION storage.tus_complete(p_id uuid, p_owner_key text, p_offset bigint, p_writer uuid)
 RETURNS boolean
 LANGUAGE sql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
  with gone as (
    delete from storage.tus_uploads
    where id = p_id and owner_key = p_owner_key and upload_offset = p_offset and expires_at > now()
      and (p_writer is null or (writer = p_writer and writer_until > now()))
    returning 1)
  select exists (select 1 from gone)
$function$;
grant execute on function storage.tus_complete(uuid,text,bigint,uuid) to anon;
grant execute on function storage.tus_complete(uuid,text,bigint,uuid) to authenticated;
grant execute on function storage.tus_complete(uuid,text,bigint,uuid) to service_role;

-- object: table storage.buckets
create table storage.buckets (
  id text not null,
  name text not null,
  owner_id uuid,
  public boolean not null default false,
  file_size_limit bigint,
  allowed_mime_types text[],
  created_at timestamp with time zone not null default now(),
  updated_at timestamp with time zone not null default now(),
  content_check text not null default 'strict'::text
);
alter table storage.buckets enable row level security;
alter table storage.buckets add constraint buckets_content_check_check CHECK ((content_check = ANY (ARRAY['strict'::text, 'declared'::text])));
alter table storage.buckets add constraint buckets_file_size_limit_check CHECK (((file_size_limit IS NULL) OR (file_size_limit > 0)));
alter table storage.buckets add constraint buckets_id_check CHECK ((id ~ '^[a-z0-9][a-z0-9._-]{0,62}$'::text));
alter table storage.buckets add constraint buckets_name_key UNIQUE (name);
alter table storage.buckets add constraint buckets_pkey PRIMARY KEY (id);
create policy buckets_delete on storage.buckets as permissive for delete to authenticated
  using (( SELECT storage.is_super_admin() AS is_super_admin));
create policy buckets_insert on storage.buckets as permissive for insert to authenticated
  with check (( SELECT storage.is_super_admin() AS is_super_admin));
create policy buckets_read on storage.buckets as permissive for select to anon, authenticated
  using (true);
create policy buckets_update on storage.buckets as permissive for update to authenticated
  using (( SELECT storage.is_super_admin() AS is_super_admin))
  with check (( SELECT storage.is_super_admin() AS is_super_admin));
grant delete, insert, select, update on storage.buckets to anon;
grant delete, insert, select, update on storage.buckets to authenticated;
grant delete, insert, references, select, trigger, truncate, update on storage.buckets to service_role;

-- object: table storage.objects
create table storage.objects (
  id uuid not null default gen_random_uuid(),
  bucket_id text not null,
  name text not null,
  owner_id uuid default auth.uid(),
  version text not null,
  metadata jsonb not null default '{}'::jsonb,
  user_metadata jsonb,
  created_at timestamp with time zone not null default now(),
  updated_at timestamp with time zone not null default now(),
  last_accessed_at timestamp with time zone not null default now()
);
alter table storage.objects enable row level security;
alter table storage.objects add constraint objects_bucket_id_fkey FOREIGN KEY (bucket_id) REFERENCES storage.buckets(id);
alter table storage.objects add constraint objects_bucket_id_name_key UNIQUE (bucket_id, name);
alter table storage.objects add constraint objects_name_check CHECK (((octet_length(name) >= 1) AND (octet_length(name) <= 1024)));
alter table storage.objects add constraint objects_pkey PRIMARY KEY (id);
CREATE INDEX objects_owner_id_idx ON storage.objects USING btree (owner_id);
CREATE INDEX objects_version_idx ON storage.objects USING btree (version);
create policy objects_delete on storage.objects as permissive for delete to authenticated
  using ((((storage.foldername(name))[1] = (( SELECT auth.uid() AS uid))::text) OR ( SELECT storage.is_super_admin() AS is_super_admin)));
create policy objects_delete_not_anonymous on storage.objects as restrictive for delete to authenticated
  using ((NOT ( SELECT public.is_anonymous_caller() AS is_anonymous_caller)));
create policy objects_insert on storage.objects as permissive for insert to authenticated
  with check ((((storage.foldername(name))[1] = (( SELECT auth.uid() AS uid))::text) OR ( SELECT storage.is_super_admin() AS is_super_admin)));
create policy objects_insert_not_anonymous on storage.objects as restrictive for insert to authenticated
  with check ((NOT ( SELECT public.is_anonymous_caller() AS is_anonymous_caller)));
create policy objects_not_in_deleted_auction on storage.objects as restrictive for all to anon, authenticated
  using ((NOT storage.in_deleted_auction(name)))
  with check ((NOT storage.in_deleted_auction(name)));
create policy objects_read on storage.objects as permissive for select to anon, authenticated
  using (((EXISTS ( SELECT 1
   FROM storage.buckets b
  WHERE ((b.id = objects.bucket_id) AND b.public))) OR ((storage.foldername(name))[1] = (( SELECT auth.uid() AS uid))::text) OR ( SELECT storage.is_super_admin() AS is_super_admin)));
create policy objects_read_not_deleted_auction on storage.objects as restrictive for select to anon, authenticated
  using ((((storage.foldername(name))[1] = (( SELECT auth.uid() AS uid))::text) OR ( SELECT storage.is_super_admin() AS is_super_admin) OR (NOT storage.deleted_auction_object(bucket_id, name))));
create policy objects_update on storage.objects as permissive for update to authenticated
  using ((((storage.foldername(name))[1] = (( SELECT auth.uid() AS uid))::text) OR ( SELECT storage.is_super_admin() AS is_super_admin)))
  with check ((((storage.foldername(name))[1] = (( SELECT auth.uid() AS uid))::text) OR ( SELECT storage.is_super_admin() AS is_super_admin)));
create policy objects_update_not_anonymous on storage.objects as restrictive for update to authenticated
  using ((NOT ( SELECT public.is_anonymous_caller() AS is_anonymous_caller)));
grant delete, insert, select, update on storage.objects to anon;
grant delete, insert, select, update on storage.objects to authenticated;
grant delete, insert, references, select, trigger, truncate, update on storage.objects to service_role;

-- object: table storage.tus_uploads
create table storage.tus_uploads (
  id uuid not null,
  bucket_id text not null,
  name text not null,
  owner_key text not null,
  upload_length bigint not null,
  upload_offset bigint not null default 0,
  parts uuid[] not null default '{}'::uuid[],
  upsert boolean not null,
  content_type text,
  cache_control text not null,
  user_metadata jsonb,
  created_at timestamp with time zone not null default now(),
  expires_at timestamp with time zone not null,
  staged boolean not null default false,
  chunk_md5s text[] not null default '{}'::text[],
  writer uuid,
  writer_until timestamp with time zone
);
alter table storage.tus_uploads add constraint tus_uploads_bucket_id_fkey FOREIGN KEY (bucket_id) REFERENCES storage.buckets(id) ON DELETE CASCADE;
alter table storage.tus_uploads add constraint tus_uploads_check CHECK (((upload_offset >= 0) AND (upload_offset <= upload_length)));
alter table storage.tus_uploads add constraint tus_uploads_pkey PRIMARY KEY (id);
alter table storage.tus_uploads add constraint tus_uploads_upload_length_check CHECK ((upload_length >= 0));
CREATE INDEX tus_uploads_expires_at_idx ON storage.tus_uploads USING btree (expires_at);
grant delete, insert, select, update on storage.tus_uploads to service_role;
