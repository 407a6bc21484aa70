-- The auction setting `require_mfa_for_admins` (auctions.settings): when true, the auction's owners and admins
-- hold their admin rights only in a session that passed a second factor (auth.aal() = 'aal2'). Below it they
-- keep what a member may do. Every admin-only policy and RPC goes through these three helpers, so redefining them
-- is the whole change. Super admins (the platform's operators) are not an auction's admins and are not affected.
create or replace function public.admin_auction_ids() returns setof uuid
language sql stable security definer set search_path = '' as $$
  select m.auction_id from public.auction_members m join public.auctions a on a.id = m.auction_id
  where m.user_id = (select auth.uid()) and m.role in ('owner', 'admin')
    and ((select auth.aal()) = 'aal2' or coalesce((a.settings ->> 'require_mfa_for_admins')::boolean, false) = false)
  union all
  select id from public.auctions where exists (select 1 from public.super_admins where user_id = (select auth.uid()))
$$;

create or replace function public.current_user_admin_auction_ids() returns setof uuid
language sql stable security definer set search_path = '' as $$
  select m.auction_id from public.auction_members m join public.auctions a on a.id = m.auction_id
  where m.user_id = (select auth.uid()) and m.role in ('owner', 'admin')
    and ((select auth.aal()) = 'aal2' or coalesce((a.settings ->> 'require_mfa_for_admins')::boolean, false) = false)
$$;

create or replace function public.is_auction_admin_or_above(p_auction_id uuid) returns boolean
language sql stable security definer set search_path = '' as $$
  select exists (
    select 1 from public.auction_members m join public.auctions a on a.id = m.auction_id
    where m.auction_id = p_auction_id and m.user_id = (select auth.uid()) and m.role in ('owner', 'admin')
      and ((select auth.aal()) = 'aal2' or coalesce((a.settings ->> 'require_mfa_for_admins')::boolean, false) = false)
  )
$$;

-- The caller's role as the RPCs (invitations, role changes, ownership transfer) and auction deletion see it: an
-- owner or admin short of aal2 where the auction requires it acts as a team member.
create or replace function public.get_user_auction_role(p_auction_id uuid) returns text
language sql stable security definer set search_path = '' as $$
  select case
    when m.role in ('owner', 'admin') and (select auth.aal()) <> 'aal2'
      and coalesce((a.settings ->> 'require_mfa_for_admins')::boolean, false) then 'team_member'
    else m.role end
  from public.auction_members m join public.auctions a on a.id = m.auction_id
  where m.auction_id = p_auction_id and m.user_id = (select auth.uid())
$$;
