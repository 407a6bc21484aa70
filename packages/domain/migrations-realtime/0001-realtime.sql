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
