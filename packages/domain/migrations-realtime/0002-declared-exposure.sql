-- The tables 0001 exposed, declared through realtime.expose (already in the publication, with full row images),
-- and identity classes read from those declarations instead of a list of their own. A new area exposes its
-- tables from its own migration in this directory: `select realtime.expose('public.x', classed => ...)`.
select realtime.expose(('public.' || t)::regclass, classed)
  from (values
    ('auctions', false), ('auction_branding', true), ('auction_members', true), ('auction_invitations', true),
    ('super_admins', true), ('locations', true), ('location_assignments', false), ('submission_types', true),
    ('location_submission_types', true), ('lot_submissions', false), ('lot_submission_entries', false),
    ('defect_categories', true), ('quality_inspections', false), ('quality_defects', false),
    ('problem_reports', true), ('problem_facts', true), ('potential_causes', true), ('problem_actions', true),
    ('channels', true), ('messages', true), ('message_reactions', true), ('channel_read_state', false),
    ('channel_notification_preferences', false), ('datasets', true), ('saved_reports', true)
  ) as exposed(t, classed);

-- As in 0001, for the tables declared classed.
create or replace function realtime.identity_class(rel regclass, role text, claims jsonb) returns text
language sql stable security definer set search_path = '' as $$
  with who as (
    select case when claims->>'sub' ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'
                then (claims->>'sub')::uuid end as id)
  select case when exists (select from realtime.exposed_tables e where e.rel = identity_class.rel and e.classed)
  then concat_ws('|', role,
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
