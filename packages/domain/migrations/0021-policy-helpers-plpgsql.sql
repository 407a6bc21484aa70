-- The helpers that read policies call, as PL/pgSQL with the same queries. As SQL functions with a SET clause
-- (their search_path) they are neither inlined nor keep a plan, so each call planned its query again: about
-- 0.2 ms of CPU, and a read through a view or an RPC calls a dozen of them (the locations it joins, the
-- categories, the rollups), which made most of the difference between a member's read and the service role's.
-- PL/pgSQL keeps each query's plan for the session. Bodies as of 0001, 0009, 0013 and 0014; still PARALLEL SAFE
-- (0020), which CREATE OR REPLACE would otherwise reset.

create or replace function public.is_super_admin() returns boolean
language plpgsql stable security definer parallel safe set search_path = '' as $$
begin
  return exists (select 1 from public.super_admins where user_id = (select auth.uid()));
end $$;

create or replace function public.is_anonymous_caller() returns boolean
language plpgsql stable parallel safe set search_path = '' as $$
begin
  return coalesce((auth.jwt() ->> 'is_anonymous')::boolean, false);
end $$;

create or replace function public.current_user_auction_ids() returns setof uuid
language plpgsql stable security definer parallel safe set search_path = '' as $$
begin
  return query select auction_id from public.auction_members where user_id = (select auth.uid());
end $$;

create or replace function public.current_user_admin_auction_ids() returns setof uuid
language plpgsql stable security definer parallel safe set search_path = '' as $$
begin
  return query
  select m.auction_id from public.auction_members m join public.auctions a on a.id = m.auction_id
  where m.user_id = (select auth.uid()) and m.role in ('owner', 'admin')
    and ((select auth.aal()) = 'aal2' or coalesce((a.settings ->> 'require_mfa_for_admins')::boolean, false) = false);
end $$;

create or replace function public.member_auction_ids() returns setof uuid
language plpgsql stable security definer parallel safe set search_path = '' as $$
begin
  return query
  select auction_id from public.auction_members where user_id = (select auth.uid())
  union all
  select id from public.auctions where exists (select 1 from public.super_admins where user_id = (select auth.uid()));
end $$;

create or replace function public.admin_auction_ids() returns setof uuid
language plpgsql stable security definer parallel safe set search_path = '' as $$
begin
  return query
  select m.auction_id from public.auction_members m join public.auctions a on a.id = m.auction_id
  where m.user_id = (select auth.uid()) and m.role in ('owner', 'admin')
    and ((select auth.aal()) = 'aal2' or coalesce((a.settings ->> 'require_mfa_for_admins')::boolean, false) = false)
  union all
  select id from public.auctions where exists (select 1 from public.super_admins where user_id = (select auth.uid()));
end $$;

create or replace function public.current_user_co_member_ids() returns setof uuid
language plpgsql stable security definer parallel safe set search_path = '' as $$
begin
  return query
  select distinct other.user_id
  from public.auction_members mine
  join public.auction_members other on other.auction_id = mine.auction_id
  where mine.user_id = (select auth.uid());
end $$;

create or replace function public.current_user_assigned_location_ids() returns setof uuid
language plpgsql stable security definer parallel safe set search_path = '' as $$
begin
  return query
  select la.location_id from public.location_assignments la
  join public.auction_members m on m.auction_id = la.auction_id and m.user_id = la.user_id
  where la.user_id = (select auth.uid());
end $$;

create or replace function public.current_user_hidden_channel_ids() returns setof uuid
language plpgsql stable security definer parallel safe set search_path = '' as $$
begin
  return query
  select c.id from public.channels c
  join public.auction_members m on m.auction_id = c.auction_id and m.user_id = (select auth.uid())
  where m.role = 'team_member' and c.location_id is not null
    and c.location_id not in (select public.current_user_assigned_location_ids());
end $$;
