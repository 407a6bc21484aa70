-- The domain's part in realtime: which tables clients may subscribe to, the row images their changes carry, and
-- who belongs to an auction (private channels `auction:<id>` admit members only).

-- Old rows in full: a DELETE or UPDATE can then be matched against a subscriber's filter (e.g. channel_id) and
-- routed by auction_id. The WAL grows by the old row on updates and deletes of these tables.
do $$
declare
  t text;
begin
  foreach t in array array[
    'auctions', 'auction_branding', 'auction_members', 'auction_invitations', 'super_admins',
    'locations', 'location_assignments', 'submission_types', 'location_submission_types',
    'lot_submissions', 'lot_submission_entries', 'defect_categories', 'quality_inspections', 'quality_defects',
    'problem_reports', 'problem_facts', 'potential_causes', 'problem_actions',
    'channels', 'messages', 'message_reactions', 'channel_read_state', 'channel_notification_preferences',
    'datasets', 'saved_reports'
  ] loop
    execute format('alter table public.%I replica identity full', t);
    execute format('alter publication auction_ops_realtime add table public.%I', t);
  end loop;
end $$;

create or replace function realtime.in_tenant(tenant uuid) returns boolean
language sql stable as $$
  select current_user = 'service_role'
    or (current_user = 'authenticated'
        and ((select public.is_super_admin()) or tenant in (select public.current_user_auction_ids())))
$$;

-- Identity classes: for these tables, the SELECT policies depend only on the role, super-admin status, the
-- user's memberships (auction and role) and location assignments, so users alike in all four see the same rows
-- and realtime checks one of them for all. A table whose SELECT policy looks at the user in another way (its own
-- rows, `auth.uid()`) must not be listed here. The class reads what member_auction_ids(), admin_auction_ids() and
-- current_user_assigned_location_ids() read, for the user the claims name.
create or replace function realtime.identity_class(rel regclass, role text, claims jsonb) returns text
language sql stable security definer set search_path = '' as $$
  with who as (
    select case when claims->>'sub' ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'
                then (claims->>'sub')::uuid end as id)
  select case when rel = any (array[
      'public.auction_branding', 'public.auction_invitations', 'public.auction_members', 'public.channels',
      'public.datasets', 'public.defect_categories', 'public.location_submission_types', 'public.locations',
      'public.message_reactions', 'public.messages', 'public.potential_causes', 'public.problem_actions',
      'public.problem_facts', 'public.problem_reports', 'public.saved_reports', 'public.submission_types',
      'public.super_admins'
    ]::regclass[])
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

-- What the classes above are made of: a change to these rows recomputes the classes of the user they name.
insert into realtime.identity_inputs (rel, user_column) values
  ('public.auction_members', 'user_id'), ('public.location_assignments', 'user_id'), ('public.super_admins', 'user_id');
