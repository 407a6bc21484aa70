-- Private topics of a deleted auction (domain/0031-auction-soft-delete.sql) are joined by nobody: members lose it
-- through current_user_auction_ids(), which leaves deleted auctions out; super admins' bypass leaves them out too.
create or replace function realtime.in_tenant(tenant uuid) returns boolean
language sql stable as $$
  select current_user = 'service_role'
    or (current_user = 'authenticated'
        and (((select public.is_super_admin()) and not (tenant = any (array(select public.deleted_auction_ids()))))
             or tenant in (select public.current_user_auction_ids())))
$$;
