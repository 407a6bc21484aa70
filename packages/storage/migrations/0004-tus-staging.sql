-- Resumable uploads written in place (filesystem backend): each chunk goes straight into the upload's one staging
-- file at its byte range, so completion is a rename, not a second write of every byte. Such an upload is `staged`;
-- the others (S3) keep one backend part per chunk in `parts`.
--
-- Two chunks must never write one staging file at once: a chunk first claims the upload (`writer`, a lease until
-- `writer_until`, renewed while its body flows), and only the claim's holder may advance the offset or complete.
-- A writer stops writing well before its lease runs out, so a lease taken over from a stalled or dead writer is
-- never written by both. `chunk_md5s` are the chunks' MD5s in order: the ETag is composed from them (as S3 does
-- for multipart uploads), so the bytes are not read back to hash them.
alter table storage.tus_uploads
  add column staged boolean not null default false,
  add column chunk_md5s text[] not null default '{}',
  add column writer uuid,
  add column writer_until timestamptz;

drop function storage.tus_complete(uuid, text, bigint);

-- Ends an upload inside the caller's completing transaction, if it still stands at p_offset (where its last chunk
-- starts) and, for a staged upload, p_writer still holds its claim: false otherwise (completed by a concurrent
-- request, terminated, expired, claim lost), which makes that transaction roll back. The offset never reaches the
-- length without the object committed with it.
create function storage.tus_complete(p_id uuid, p_owner_key text, p_offset bigint, p_writer uuid)
  returns boolean
  language sql security definer set search_path = '' as $$
  with gone as (
    delete from storage.tus_uploads
    where id = p_id and owner_key = p_owner_key and upload_offset = p_offset and expires_at > now()
      and (p_writer is null or (writer = p_writer and writer_until > now()))
    returning 1)
  select exists (select 1 from gone)
$$;
revoke all on function storage.tus_complete(uuid, text, bigint, uuid) from public;
grant execute on function storage.tus_complete(uuid, text, bigint, uuid) to anon, authenticated, service_role;
