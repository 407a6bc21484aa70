-- Row-level security evaluated once per statement, whatever the rows and the processes (measured with `pnpm bench
-- data`, docs/data-at-scale.md).
--
-- 1. The read policies tested `column in (select helper())`: a hashed subplan, which PostgreSQL runs in every
--    process of a parallel plan (a worker starts with cold caches, so each paid the helper's compilation and
--    planning again, milliseconds) and probes per row. They now test `column = any (array(select helper()))`:
--    an InitPlan, run once per statement by the leader and handed to the workers as a parameter, compared per row
--    against a handful of ids (a caller's auctions, locations or hidden channels) without hashing. The answers are
--    the same, NULLs included: `x in (set)` and `x = any (array)` are both true on a match, null when there is
--    none and the set holds a null, false otherwise; `not in` and `not (... = any ...)` likewise. The owner's
--    `count=exact` over an auction's submissions cost 1.45x the service role's (a 1-element hash probe per row
--    plus the helpers in each worker).
--    The comparison is linear in the array: a caller reading through thousands of auctions or locations (a
--    super admin of a large server) pays per row for it, where the hash paid a constant.
-- 2. domain.create_tenant_policies writes the same shape for tables added later.

alter policy auction_branding_select on public.auction_branding
  using (auction_id = any (array(select public.member_auction_ids())));
alter policy auction_invitations_select on public.auction_invitations
  using (auction_id = any (array(select public.admin_auction_ids())));
alter policy auction_members_select on public.auction_members
  using (auction_id = any (array(select public.member_auction_ids())));
alter policy auctions_select on public.auctions using (
  (select public.is_super_admin())
  or id = any (array(select public.current_user_auction_ids()))
  -- INSERT ... RETURNING checks this before the owner row (added by an AFTER trigger) exists.
  or (created_by = (select auth.uid()) and created_at = now()));
alter policy users_select_co_members on public.users
  using ((select public.is_super_admin()) or id = any (array(select public.current_user_co_member_ids())));
alter policy event_outbox_select on public.event_outbox
  using (auction_id = any (array(select public.admin_auction_ids())));

alter policy locations_select on public.locations
  using (auction_id = any (array(select public.admin_auction_ids()))
    or id = any (array(select public.current_user_assigned_location_ids())));
alter policy submission_types_select on public.submission_types
  using (auction_id = any (array(select public.member_auction_ids())));
alter policy location_submission_types_select on public.location_submission_types
  using (auction_id = any (array(select public.member_auction_ids())));
alter policy location_assignments_select on public.location_assignments
  using (auction_id = any (array(select public.admin_auction_ids())) or user_id = (select auth.uid()));
alter policy lot_submissions_select on public.lot_submissions
  using (auction_id = any (array(select public.admin_auction_ids()))
    or location_id = any (array(select public.current_user_assigned_location_ids()))
    or (user_id = (select auth.uid()) and auction_id = any (array(select public.current_user_auction_ids()))));
alter policy lot_submission_entries_select on public.lot_submission_entries
  using (auction_id = any (array(select public.admin_auction_ids()))
    or location_id = any (array(select public.current_user_assigned_location_ids()))
    or exists (select 1 from public.lot_submissions s where s.id = submission_id and s.user_id = (select auth.uid())));

alter policy quality_inspections_select on public.quality_inspections
  using (auction_id = any (array(select public.admin_auction_ids()))
    or location_id = any (array(select public.current_user_assigned_location_ids()))
    or (user_id = (select auth.uid()) and auction_id = any (array(select public.current_user_auction_ids()))));
alter policy quality_defects_select on public.quality_defects
  using (auction_id = any (array(select public.admin_auction_ids()))
    or location_id = any (array(select public.current_user_assigned_location_ids()))
    or exists (select 1 from public.quality_inspections i where i.id = inspection_id and i.user_id = (select auth.uid())));
alter policy defect_categories_select on public.defect_categories
  using (auction_id is null or auction_id = any (array(select public.member_auction_ids())));

alter policy problem_reports_select on public.problem_reports
  using (auction_id = any (array(select public.member_auction_ids())));
alter policy problem_facts_select on public.problem_facts
  using (auction_id = any (array(select public.member_auction_ids())));
alter policy potential_causes_select on public.potential_causes
  using (auction_id = any (array(select public.member_auction_ids())));
alter policy problem_actions_select on public.problem_actions
  using (auction_id = any (array(select public.member_auction_ids())));

alter policy channels_select on public.channels using (
  auction_id = any (array(select public.admin_auction_ids()))
  or (not is_archived and auction_id = any (array(select public.current_user_auction_ids()))
      and not (id = any (array(select public.current_user_hidden_channel_ids())))));
alter policy messages_select on public.messages
  using (auction_id = any (array(select public.admin_auction_ids()))
    or (auction_id = any (array(select public.current_user_auction_ids()))
        and not (channel_id = any (array(select public.current_user_hidden_channel_ids())))));
alter policy message_reactions_select on public.message_reactions
  using (auction_id = any (array(select public.member_auction_ids())));

alter policy datasets_select on public.datasets
  using (auction_id = any (array(select public.member_auction_ids())));
alter policy saved_reports_select on public.saved_reports
  using (auction_id = any (array(select public.member_auction_ids())));
alter policy query_audit_log_select on public.query_audit_log
  using (auction_id = any (array(select public.admin_auction_ids())) or user_id = (select auth.uid()));

-- The rollups: readable with their location (the locations the caller may read, under that table's policy), a
-- defect bucket by its inspector too; the chat's with the auction.
alter policy submission_hours_select on analytics.submission_hours
  using (location_id = any (array(select l.id from public.locations l)));
alter policy submission_type_hours_select on analytics.submission_type_hours
  using (location_id = any (array(select l.id from public.locations l)));
alter policy defect_hours_select on analytics.defect_hours
  using (location_id = any (array(select l.id from public.locations l))
    or (user_id = (select auth.uid()) and auction_id = any (array(select public.current_user_auction_ids()))));
alter policy defect_days_select on analytics.defect_days
  using (location_id = any (array(select l.id from public.locations l))
    or (user_id = (select auth.uid()) and auction_id = any (array(select public.current_user_auction_ids()))));
alter policy channel_message_days_select on analytics.channel_message_days
  using (auction_id = any (array(select public.member_auction_ids())));
alter policy channel_author_days_select on analytics.channel_author_days
  using (auction_id = any (array(select public.member_auction_ids())));

-- As 0001's, with the read test in the shape above (writes keep theirs: they check the rows they write).
create or replace function domain.create_tenant_policies(p_table regclass, p_readers text, p_author_column text default null)
returns void language plpgsql set search_path = '' as $fn$
declare
  v_name text := (select relname from pg_catalog.pg_class where oid = p_table);
  v_write text := 'auction_id in (select public.admin_auction_ids())';
begin
  if p_readers not in ('member', 'admin', 'none') then
    raise exception 'p_readers must be member, admin or none, not %', p_readers;
  end if;
  if p_author_column is not null then
    v_write := format('%s or (auction_id in (select public.current_user_auction_ids()) and %I = (select auth.uid()))',
      v_write, p_author_column);
  end if;
  if p_readers <> 'none' then
    execute format(
      'create policy %I on %s for select to authenticated using (auction_id = any (array(select public.%s)))',
      v_name || '_select', p_table, p_readers || '_auction_ids()');
  end if;
  execute format('create policy %I on %s for insert to authenticated with check (%s)', v_name || '_insert', p_table,
    v_write);
  execute format('create policy %I on %s for update to authenticated using (%s) with check (%3$s)',
    v_name || '_update', p_table, v_write);
  execute format('create policy %I on %s for delete to authenticated using (%s)', v_name || '_delete', p_table,
    v_write);
end $fn$;
