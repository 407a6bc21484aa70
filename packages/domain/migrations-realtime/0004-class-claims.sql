-- Identity classes gain the two claims the domain's policies now read besides memberships: `aal` (an auction with
-- require_mfa_for_admins treats its owners and admins below aal2 as team members, domain 0013) and `is_anonymous`
-- (anonymous users are refused every member-only table, domain 0014). Without them an admin at aal1 and one at
-- aal2, or a signed-up and an anonymous member, would share a class and be sent each other's rows.
create or replace function realtime.identity_class(rel regclass, role text, claims jsonb) returns text
language sql stable security definer set search_path = '' as $$
  with who as (
    select case when claims->>'sub' ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'
                then (claims->>'sub')::uuid end as id)
  select case when exists (select from realtime.exposed_tables e where e.rel = identity_class.rel and e.classed)
  then concat_ws('|', role,
    coalesce(claims->>'aal', 'aal1'),
    coalesce(claims->>'is_anonymous', 'false') = 'true',
    exists (select 1 from public.super_admins s where s.user_id = who.id),
    -- Owners and admins read alike (the policies ask for "owner or admin"), so they share a class.
    (select string_agg(m.auction_id || ':' || case m.role when 'owner' then 'admin' else m.role end, ','
                       order by m.auction_id)
       from public.auction_members m where m.user_id = who.id),
    (select string_agg(la.location_id::text, ',' order by la.location_id)
       from public.location_assignments la
       join public.auction_members m on m.auction_id = la.auction_id and m.user_id = la.user_id
      where la.user_id = who.id))
  end
  from who
$$;
