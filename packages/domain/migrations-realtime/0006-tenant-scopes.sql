-- Tenant scopes for realtime (realtime migration 0006): the auction is the tenant. A signed-in user who is not a
-- super admin sees rows of these tables only in auctions they belong to: each one's SELECT policy asks for
-- auction_id in member_auction_ids(), admin_auction_ids() or current_user_auction_ids() in every branch, and those
-- return the user's memberships (all auctions for super admins, whose tenants are therefore left unlimited).
-- Realtime then checks a change only for the subscribers of its auction; the policies still decide for them.
create or replace function realtime.identity_tenants(role text, claims jsonb) returns text[]
language sql stable security definer set search_path = '' as $$
  with who as (
    select case when claims->>'sub' ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'
                then (claims->>'sub')::uuid end as id)
  select case
    when role <> 'authenticated' or who.id is null then null
    when exists (select 1 from public.super_admins s where s.user_id = who.id) then null
    else array(select m.auction_id::text from public.auction_members m where m.user_id = who.id)
  end
  from who
$$;

select realtime.scope_by_tenant(('public.' || t)::regclass, 'auction_id')
  from unnest(array[
    'channels', 'messages', 'message_reactions', 'datasets', 'saved_reports',
    'problem_reports', 'problem_facts', 'potential_causes', 'problem_actions'
  ]) as scoped(t);
