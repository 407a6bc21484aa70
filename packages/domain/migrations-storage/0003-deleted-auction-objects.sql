-- A deleted auction's objects are not served (issue 52). An object that belongs only to deleted auctions (linked
-- to one, domain/0032, or under a deleted auction's `<auction_id>/` folder, and linked to no live auction) reads as
-- missing for anon and authenticated callers on every path that reads through row-level security: public URLs
-- (read as anon), authenticated downloads and renders, info, listings, and the creation of signed URLs. Its
-- uploader still reads it (their own `<user_id>/` folder: the photo is theirs, not the auction's), and so do super
-- admins, who administer all of storage (storage 0001) and reach deleted auctions through the console; the service
-- role bypasses RLS. Undoing the deletion serves it again; the purge removes it.

-- One index lookup on the links by (bucket_id, name), and for a name whose first folder looks like an auction id,
-- one primary-key lookup. SECURITY DEFINER: the links are readable by no request role.
create function storage.deleted_auction_object(p_bucket text, p_name text) returns boolean
language plpgsql stable security definer parallel safe set search_path = '' as $$
declare
  v_live boolean;
  v_deleted boolean;
  v_first text;
begin
  select bool_or(a.deleted_at is null), bool_or(a.deleted_at is not null) into v_live, v_deleted
    from domain.auction_object_links l join public.auctions a on a.id = l.auction_id
   where l.bucket_id = p_bucket and l.name = p_name;
  if v_live then
    return false;
  end if;
  if v_deleted then
    return true;
  end if;
  if pg_catalog.strpos(p_name, '/') = 0 then
    return false;
  end if;
  v_first := pg_catalog.split_part(p_name, '/', 1);
  if v_first !~ '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' then
    return false;
  end if;
  return exists (select 1 from public.auctions a where a.id = v_first::uuid and a.deleted_at is not null);
end $$;
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
