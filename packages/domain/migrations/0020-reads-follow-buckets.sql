-- Three reads whose cost grew with the rows (measured with `pnpm bench data`, docs/data-at-scale.md):
--
-- 1. The row-level security helpers are PARALLEL SAFE. They only read tables and the request's claims (a
--    setting, which parallel workers receive from the leader), but undeclared they counted as parallel unsafe,
--    and one of them anywhere in a statement (a policy of a table the planner later drops from the plan counts
--    too) kept the whole statement in one process: `count=exact` over an auction's submissions ran serially for
--    a member and in parallel for the service role. The claim helpers of auth-core are included: every policy
--    calls auth.uid().
-- 2. get_defect_trends read the hourly rollup over the whole range and filtered away the hours inside the whole
--    local days (read from defect_days): at a busy auction that is every hour of every day. It now reads the
--    hours before the first and after the last whole day as two index ranges per auction.
-- 3. get_unread_counts counted the rest of the read point's UTC day from the rows with bounds that the planner
--    could not use as an index range under row-level security (a coalesce, which it counts as possibly leaky,
--    and analytics.utc_day, which has a search_path and so is not inlined): it read every message of the
--    channel. The read point and its day's bounds are now computed once per channel as a row of their own, so
--    the count is an index range on (channel_id, created_at) and the rollups' day a key bound.

alter function auth.jwt() parallel safe;
alter function auth.uid() parallel safe;
alter function auth.role() parallel safe;
alter function auth.aal() parallel safe;
alter function public.is_super_admin() parallel safe;
alter function public.is_anonymous_caller() parallel safe;
alter function public.get_user_auction_role(uuid) parallel safe;
alter function public.is_auction_member(uuid) parallel safe;
alter function public.is_auction_admin_or_above(uuid) parallel safe;
alter function public.current_user_auction_ids() parallel safe;
alter function public.current_user_admin_auction_ids() parallel safe;
alter function public.current_user_co_member_ids() parallel safe;
alter function public.member_auction_ids() parallel safe;
alter function public.admin_auction_ids() parallel safe;
alter function public.current_user_assigned_location_ids() parallel safe;
alter function public.current_user_hidden_channel_ids() parallel safe;
alter function public.display_name(text, text) parallel safe;

-- As 0012's, but the hourly rollup is read only where the days do not cover: per auction, [lo, first day) and
-- [end day, hi) when it has whole days, else [lo, hi).
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
  select (x.at at time zone z.tz)::date as day, c.id, c.name, sum(x.n)::integer
  from counted x
  join z on z.id = x.auction_id
  join public.defect_categories c on c.id = x.category_id
  group by 1, c.id, c.name
  having sum(x.n) > 0
  order by 1, 4 desc, c.name
$$;

-- As 0015's, with the read point's UTC day (`day`) and its end (`day_end`) computed once per channel as plain
-- expressions: key bounds for the rollups, an index range for the rows.
create or replace function public.get_unread_counts(p_auction_id uuid)
returns table (channel_id uuid, unread_count integer)
language sql stable security invoker set search_path = '' as $$
  select c.id, (
    coalesce((select sum(d.messages) from analytics.channel_message_days d
              where d.channel_id = c.id and d.day > r.day), 0)
    - coalesce((select sum(o.messages) from analytics.channel_author_days o
                where o.channel_id = c.id and o.user_id = me.id and o.day > r.day), 0)
    + (select count(*) from public.messages m
       where m.channel_id = c.id and m.created_at > r.at and m.created_at < r.day_end
         and not m.is_deleted and m.user_id is distinct from me.id)
  )::integer
  from (select auth.uid() as id) me
  cross join public.channels c
  left join public.channel_read_state rs on rs.channel_id = c.id and rs.user_id = me.id
  left join public.auction_members am on am.auction_id = c.auction_id and am.user_id = me.id
  cross join lateral (select coalesce(rs.last_read_at, am.joined_at, '-infinity'::timestamptz) as at) p
  -- offset 0 keeps r a row of its own, so the counts above see its columns as plain parameters: inlined, the
  -- coalesce would make their conditions count as leaky under row-level security, and no leaky condition is
  -- used as an index bound before the policy's own.
  cross join lateral (select p.at, (p.at at time zone 'UTC')::date as day,
    ((p.at at time zone 'UTC')::date + 1)::timestamp at time zone 'UTC' as day_end offset 0) r
  where c.auction_id = p_auction_id and not c.is_archived
  order by c.name
$$;

-- The rollup writers of 0012 as PL/pgSQL, same statements: a SQL function with a SET clause is neither inlined
-- nor keeps its plans, so every write planned these upserts again (a defect insert cost 1.6x with the rollups).
-- PL/pgSQL keeps each statement's plan for the session. The days upsert reads the auction's zone in a join
-- instead of calling analytics.local_day per row.
create or replace function analytics.add_submission_hours(p_location uuid[], p_hour timestamptz[], p_auction uuid[],
  p_submissions integer[], p_cars bigint[]) returns void
language plpgsql volatile set search_path = '' as $$
begin
  insert into analytics.submission_hours as h (location_id, hour, auction_id, submissions, cars)
  select l, hr, a, n, c from unnest(p_location, p_hour, p_auction, p_submissions, p_cars) as d(l, hr, a, n, c)
  where (n <> 0 or c <> 0) and exists (select from public.locations x where x.id = l)
  order by l, hr
  on conflict (location_id, hour) do update
    set submissions = h.submissions + excluded.submissions, cars = h.cars + excluded.cars;
end $$;

create or replace function analytics.add_submission_type_hours(p_location uuid[], p_hour timestamptz[], p_type uuid[],
  p_auction uuid[], p_entries integer[], p_cars bigint[]) returns void
language plpgsql volatile set search_path = '' as $$
begin
  insert into analytics.submission_type_hours as h (location_id, hour, submission_type_id, auction_id, entries, cars)
  select l, hr, t, a, n, c from unnest(p_location, p_hour, p_type, p_auction, p_entries, p_cars) as d(l, hr, t, a, n, c)
  where (n <> 0 or c <> 0) and exists (select from public.locations x where x.id = l)
  order by l, hr, t
  on conflict (location_id, hour, submission_type_id) do update
    set entries = h.entries + excluded.entries, cars = h.cars + excluded.cars;
end $$;

create or replace function analytics.add_defect_hours(p_location uuid[], p_hour timestamptz[], p_category uuid[],
  p_user uuid[], p_auction uuid[], p_defects integer[]) returns void
language plpgsql volatile set search_path = '' as $$
begin
  insert into analytics.defect_hours as h (location_id, hour, category_id, user_id, auction_id, defects)
  select l, hr, c, u, a, n from unnest(p_location, p_hour, p_category, p_user, p_auction, p_defects) as d(l, hr, c, u, a, n)
  where n <> 0 and exists (select from public.locations x where x.id = l)
  order by l, hr, c, u
  on conflict (location_id, hour, category_id, user_id) do update set defects = h.defects + excluded.defects;
  insert into analytics.defect_days as h (location_id, day, category_id, user_id, auction_id, defects)
  select d.l, (d.hr at time zone coalesce(nullif(x.settings ->> 'timezone', ''), 'UTC'))::date, d.c, d.u, d.a,
    sum(d.n)::integer
  from unnest(p_location, p_hour, p_category, p_user, p_auction, p_defects) as d(l, hr, c, u, a, n)
  join public.auctions x on x.id = d.a
  where d.n <> 0 and exists (select from public.locations y where y.id = d.l)
  group by d.l, 2, d.c, d.u, d.a
  order by d.l, 2, d.c, d.u
  on conflict (location_id, day, category_id, user_id) do update set defects = h.defects + excluded.defects;
end $$;

create or replace function analytics.apply_entries(p_submission uuid[], p_type uuid[], p_cars bigint[], p_sign integer[])
returns void language plpgsql volatile set search_path = '' as $$
begin
  -- Hour rows first: every writer locks hour rows before type rows.
  perform analytics.add_submission_hours(array_agg(location_id), array_agg(hr), array_agg(auction_id),
    array_agg(0), array_agg(c))
  from (
    select s.location_id, analytics.hour_of(s.submitted_at) as hr, s.auction_id, sum(e.sign * e.cars)::bigint as c
    from unnest(p_submission, p_cars, p_sign) as e(sub, cars, sign)
    join public.lot_submissions s on s.id = e.sub
    group by 1, 2, 3) d;
  perform analytics.add_submission_type_hours(array_agg(location_id), array_agg(hr), array_agg(t), array_agg(auction_id),
    array_agg(n), array_agg(c))
  from (
    select s.location_id, analytics.hour_of(s.submitted_at) as hr, e.t, s.auction_id,
      sum(e.sign)::integer as n, sum(e.sign * e.cars)::bigint as c
    from unnest(p_submission, p_type, p_cars, p_sign) as e(sub, t, cars, sign)
    join public.lot_submissions s on s.id = e.sub
    group by 1, 2, 3, 4) d;
end $$;

create or replace function analytics.apply_defects(p_inspection uuid[], p_category uuid[], p_sign integer[])
returns void language plpgsql volatile set search_path = '' as $$
begin
  perform analytics.add_defect_hours(array_agg(location_id), array_agg(hr), array_agg(c), array_agg(user_id),
    array_agg(auction_id), array_agg(n))
  from (
    select i.location_id, analytics.hour_of(i.submitted_at) as hr, d.c, i.user_id, i.auction_id,
      sum(d.sign)::integer as n
    from unnest(p_inspection, p_category, p_sign) as d(insp, c, sign)
    join public.quality_inspections i on i.id = d.insp
    group by 1, 2, 3, 4, 5) x;
end $$;
