-- A deleted auction's objects are not served (issue 52). An object linked to deleted auctions only (domain/0032)
-- reads as missing for anon and authenticated callers on every path that reads through row-level security: public
-- URLs (read as anon), authenticated downloads and renders, info, listings, and the creation of signed URLs. Its
-- uploader still reads it (their own `<user_id>/` folder: the photo is theirs, not the auction's), and so do super
-- admins, who administer all of storage (storage 0001) and reach deleted auctions through the console; the service
-- role bypasses RLS. Undoing the deletion serves it again; the purge removes it. Objects under a deleted auction's
-- own `<auction_id>/` folder are hidden by 0003.

-- One index lookup on the links by (bucket_id, name). SECURITY DEFINER: the links are readable by no request role.
create function storage.deleted_auction_object(p_bucket text, p_name text) returns boolean
language sql stable security definer parallel safe set search_path = '' as $$
  select coalesce(bool_and(a.deleted_at is not null), false)
    from domain.auction_object_links l join public.auctions a on a.id = l.auction_id
   where l.bucket_id = p_bucket and l.name = p_name
$$;
revoke execute on function storage.deleted_auction_object(text, text) from public;
grant execute on function storage.deleted_auction_object(text, text) to anon, authenticated, service_role;

-- Restrictive: whatever the permissive read policies allow (a public bucket, an operator's own policy), a deleted
-- auction's object is left out. The cheap arms come first; OR stops at the first true one.
create policy objects_read_not_deleted_auction on storage.objects as restrictive for select to anon, authenticated
  using (
    (storage.foldername(name))[1] = (select auth.uid())::text
    or (select storage.is_super_admin())
    or not storage.deleted_auction_object(bucket_id, name)
  );
