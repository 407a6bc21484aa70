-- Resumable (TUS) uploads in progress. The row is the upload's whole state, so any server instance can take the
-- next chunk: the target object, the declared length, the offset reached and the parts (each a backend key
-- `<bucket_id>/<version>` holding one PATCH's bytes, in order). The callers' roles never touch the table: the
-- server works on it as service_role, as it reads bucket limits, and the completing transaction, which runs
-- under the caller's role, removes the row through tus_complete so the object row and the upload's end commit
-- together.
create table storage.tus_uploads (
  id uuid primary key,
  bucket_id text not null references storage.buckets (id) on delete cascade,
  name text not null,
  -- Who may continue it: the caller's user id, or its role for callers without one (service_role, anon).
  owner_key text not null,
  upload_length bigint not null check (upload_length >= 0),
  upload_offset bigint not null default 0 check (upload_offset >= 0 and upload_offset <= upload_length),
  parts uuid[] not null default '{}',
  upsert boolean not null,
  content_type text,
  cache_control text not null,
  user_metadata jsonb,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null
);

create index tus_uploads_expires_at_idx on storage.tus_uploads (expires_at);

revoke all on storage.tus_uploads from anon, authenticated;
grant select, insert, update, delete on storage.tus_uploads to service_role;

-- Ends an upload inside the caller's completing transaction, if it still stands at p_offset (where its last
-- chunk starts): false when it moved on or is gone (completed by a concurrent request, terminated, expired), which
-- makes that transaction roll back. The offset never reaches the length without the object committed with it.
create function storage.tus_complete(p_id uuid, p_owner_key text, p_offset bigint) returns boolean
  language sql security definer set search_path = '' as $$
  with gone as (
    delete from storage.tus_uploads
    where id = p_id and owner_key = p_owner_key and upload_offset = p_offset and expires_at > now()
    returning 1)
  select exists (select 1 from gone)
$$;
revoke all on function storage.tus_complete(uuid, text, bigint) from public;
grant execute on function storage.tus_complete(uuid, text, bigint) to anon, authenticated, service_role;
