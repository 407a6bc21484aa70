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
-- 3. get_defect_trends sums per day and category before it joins the categories.

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

-- As 0020's, summed before the categories are joined.
create or replace function public.get_defect_trends(p_start_date timestamptz, p_end_date timestamptz,
  p_location_id uuid default null)
returns table (day date, category_id uuid, category text, defect_count integer)
language sql stable security invoker set search_path = '' as $$
  with r as materialized (select * from analytics.whole_hours(p_start_date, p_end_date)),
  z as materialized (select a.id, coalesce(nullif(a.settings ->> 'timezone', ''), 'UTC') as tz from public.auctions a),
  split as materialized (select z.id as auction_id, s.h from z, r, analytics.split_hours(z.tz, r.lo, r.hi) s(h)),
  -- Whole local days [ds, de) inside the whole hours, per auction without split hours (whole-hour zones).
  w as materialized (
    select z.id as auction_id, d.ds, d.de, d.first_day, d.end_day
    from z, r, lateral (
      select (f::timestamp at time zone z.tz) as ds, (e::timestamp at time zone z.tz) as de, f as first_day, e as end_day
      from (select ((r.lo at time zone z.tz)::date
                    + case when ((r.lo at time zone z.tz)::date::timestamp at time zone z.tz) = r.lo then 0 else 1 end) as f,
                   (r.hi at time zone z.tz)::date as e) x
    ) d
    where d.first_day < d.end_day and not exists (select 1 from split where split.auction_id = z.id)
  ),
  -- The whole hours read from the hourly rollup, half-open: those outside the whole days.
  hour_ranges as materialized (
    select z.id as auction_id, e.lo, e.hi
    from z cross join r left join w on w.auction_id = z.id,
      lateral (values (r.lo, coalesce(w.ds, r.hi)), (coalesce(w.de, r.hi), r.hi)) e(lo, hi)
    where e.lo < e.hi
  ),
  -- The time ranges read from base rows, half-open: the range's partial edges and the split hours.
  ranges as materialized (
    select z.id as auction_id, e.lo, e.hi
    from z, r, lateral (values (p_start_date, r.lo), (r.hi, p_end_date + interval '1 microsecond')) e(lo, hi)
    where e.lo < e.hi
    union all
    select auction_id, h, h + interval '1 hour' from split
  ),
  counted as (
    select h.auction_id, h.day::timestamp at time zone z.tz as at, h.category_id, h.defects as n
    from analytics.defect_days h join w on w.auction_id = h.auction_id join z on z.id = h.auction_id
    where h.day >= w.first_day and h.day < w.end_day and (p_location_id is null or h.location_id = p_location_id)
    union all
    select h.auction_id, h.hour, h.category_id, h.defects
    from hour_ranges cross join lateral ( -- one index range per row of hour_ranges
      select h.* from analytics.defect_hours h
      where h.auction_id = hour_ranges.auction_id and h.hour >= hour_ranges.lo and h.hour < hour_ranges.hi
      offset 0
    ) h
    where (p_location_id is null or h.location_id = p_location_id)
      and not exists (select 1 from split where split.auction_id = h.auction_id and split.h = h.hour)
    union all
    select i.auction_id, i.submitted_at, d.category_id, 1
    from ranges cross join lateral ( -- one index range per row of ranges (offset 0 keeps it a lateral loop)
      select i.* from public.quality_inspections i
      where i.auction_id = ranges.auction_id and i.submitted_at >= ranges.lo and i.submitted_at < ranges.hi
      offset 0
    ) i
    join public.quality_defects d on d.inspection_id = i.id
    where p_location_id is null or i.location_id = p_location_id
  )
  -- Summed per day and category first, then named: the categories join sees one row per bucket of the answer,
  -- not one per rollup row (under row-level security the planner's estimates of `counted` are small, and it
  -- joined the categories to all of them in a nested loop).
  select s.day, c.id, c.name, s.n
  from (
    select (x.at at time zone z.tz)::date as day, x.category_id, sum(x.n)::integer as n
    from counted x
    join z on z.id = x.auction_id
    group by 1, 2
    having sum(x.n) > 0
  ) s
  join public.defect_categories c on c.id = s.category_id
  order by 1, 4 desc, c.name
$$;
