-- The storage schema: buckets, objects (metadata only; the bytes live in the configured backend under
-- `<bucket_id>/<version>`), path helpers, and the row-level security that decides every object access.
create schema if not exists storage;
grant usage on schema storage to anon, authenticated, service_role;

create table storage.buckets (
  id text primary key check (id ~ '^[a-z0-9][a-z0-9._-]{0,62}$'),
  name text not null unique,
  owner_id uuid,
  public boolean not null default false,
  -- Bytes; null means the server-wide STORAGE_FILE_SIZE_LIMIT.
  file_size_limit bigint check (file_size_limit is null or file_size_limit > 0),
  -- Null accepts any type; otherwise the type recognised from the bytes must be listed.
  allowed_mime_types text[],
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

create table storage.objects (
  id uuid primary key default gen_random_uuid(),
  bucket_id text not null references storage.buckets (id),
  -- "C" collation: byte order for listings and an index usable by prefix (LIKE 'x/%') searches.
  name text collate "C" not null check (octet_length(name) between 1 and 1024),
  owner_id uuid default auth.uid(),
  -- Names the bytes in the backend. A new upload of the same name gets a new version, so bytes are never
  -- overwritten in place and a row always points at complete bytes (see the package README).
  version text not null,
  -- {eTag, size, mimetype, cacheControl, lastModified, contentLength, httpStatusCode}, as storage-js lists it.
  metadata jsonb not null default '{}',
  user_metadata jsonb,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  last_accessed_at timestamptz not null default now(),
  unique (bucket_id, name)
);
create index objects_owner_id_idx on storage.objects (owner_id);
-- The orphan sweep looks rows up by the version in a backend key (see orphan-sweep.ts).
create index objects_version_idx on storage.objects (version);

-- Path helpers, as in Supabase: 'a/b/c.png' -> foldername {a,b}, filename 'c.png', extension 'png'.
create function storage.foldername(name text) returns text[]
language sql immutable strict as $$
  select (string_to_array(name, '/'))[1 : cardinality(string_to_array(name, '/')) - 1]
$$;
create function storage.filename(name text) returns text
language sql immutable strict as $$
  select (string_to_array(name, '/'))[cardinality(string_to_array(name, '/'))]
$$;
-- Unlike Supabase (which answers the whole file name), a name without a dot has the empty extension.
create function storage.extension(name text) returns text
language sql immutable strict as $$
  select case when storage.filename(name) like '%.%' then reverse(split_part(reverse(storage.filename(name)), '.', 1)) else '' end
$$;
grant execute on function storage.foldername(text), storage.filename(text), storage.extension(text) to anon, authenticated, service_role;

-- Who administers all of storage (every bucket and object) is the application's rule, not storage's: this hook
-- answers false, and an application replaces its body (the auction domain: its super admins).
create function storage.is_super_admin() returns boolean
language sql stable security definer set search_path = '' as $$
  select false
$$;
revoke execute on function storage.is_super_admin() from public;
grant execute on function storage.is_super_admin() to anon, authenticated, service_role;

-- Bucket configuration is readable by every role (storage-js getBucket/listBuckets); the service role (which
-- bypasses RLS) and super admins create, change and delete buckets. Anyone else: no policy, so 42501 -> 403.
alter table storage.buckets enable row level security;
grant select on storage.buckets to anon, authenticated;
grant insert, update, delete on storage.buckets to authenticated;
grant all on storage.buckets to service_role;
create policy buckets_read on storage.buckets for select to anon, authenticated using (true);
create policy buckets_insert on storage.buckets for insert to authenticated with check ((select storage.is_super_admin()));
create policy buckets_update on storage.buckets for update to authenticated
  using ((select storage.is_super_admin())) with check ((select storage.is_super_admin()));
create policy buckets_delete on storage.buckets for delete to authenticated using ((select storage.is_super_admin()));

alter table storage.objects enable row level security;
grant select on storage.objects to anon;
grant select, insert, update, delete on storage.objects to authenticated;
grant all on storage.objects to service_role;

-- Anyone reads objects of a public bucket; a signed-in user also reads their own folder of any bucket.
create policy objects_read on storage.objects for select to anon, authenticated using (
  exists (select 1 from storage.buckets b where b.id = bucket_id and b.public)
  or (storage.foldername(name))[1] = (select auth.uid())::text
  or (select storage.is_super_admin())
);
-- Writes only under the caller's own `<user_id>/` folder (the apps' path shape, `<user_id>/<file>`), or by a super admin.
create policy objects_insert on storage.objects for insert to authenticated with check (
  (storage.foldername(name))[1] = (select auth.uid())::text or (select storage.is_super_admin())
);
create policy objects_update on storage.objects for update to authenticated using (
  (storage.foldername(name))[1] = (select auth.uid())::text or (select storage.is_super_admin())
) with check (
  (storage.foldername(name))[1] = (select auth.uid())::text or (select storage.is_super_admin())
);
create policy objects_delete on storage.objects for delete to authenticated using (
  (storage.foldername(name))[1] = (select auth.uid())::text or (select storage.is_super_admin())
);

