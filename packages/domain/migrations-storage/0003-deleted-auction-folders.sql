-- A deleted auction (domain/0031) serves nothing (issue 52): the objects under its `<auction_id>/` folder of any
-- bucket are neither listed, read (public URLs included: they are read as anon) nor written by a request role
-- until the purge removes them or an undo brings them back. The service role keeps them (its maintenance); objects
-- elsewhere that the auction's rows name by URL are not covered here.

-- Whether an object's first folder is a deleted auction's id. It answers for the one name asked about, so it tells
-- a caller nothing of other auctions.
create function storage.in_deleted_auction(p_name text) returns boolean
language sql stable security definer set search_path = '' as $$
  select exists (
    select 1 from public.auctions a
     where a.deleted_at is not null
       and a.id = (select case when f ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'
                               then f::uuid end
                     from (select split_part(p_name, '/', 1) as f) x
                    where strpos(p_name, '/') > 0))
$$;
revoke execute on function storage.in_deleted_auction(text) from public;
grant execute on function storage.in_deleted_auction(text) to anon, authenticated, service_role;

create policy objects_not_in_deleted_auction on storage.objects as restrictive for all to anon, authenticated
  using (not storage.in_deleted_auction(name))
  with check (not storage.in_deleted_auction(name));
