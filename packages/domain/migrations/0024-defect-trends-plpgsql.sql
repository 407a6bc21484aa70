-- get_defect_trends as PL/pgSQL, and summed per day and category before the categories are joined (under row-level
-- security the planner's estimates of the summed rows are small, and it joined the categories to every rollup row
-- in a nested loop); otherwise 0020's statement. A SQL function with a SET clause (its search_path) is
-- neither inlined nor keeps its plan: every call planned the statement again, and under row-level security the
-- planning costs more (the read policy of every table it joins is expanded and planned with it: categories,
-- auctions, locations, the rollups, inspections, defects). PL/pgSQL keeps the plan for the session, as for the
-- rollup writers (0020) and the policy helpers (0021): at scale 100 the owner's 90-day trend went from 1.2x the
-- service role's CPU time to 1.1x, and both got faster. `use_column`: the names of the result columns (day,
-- category_id) are also columns of the tables read, and mean those.
create or replace function public.get_defect_trends(p_start_date timestamptz, p_end_date timestamptz,
  p_location_id uuid default null)
returns table (day date, category_id uuid, category text, defect_count integer)
language plpgsql stable security invoker set search_path = '' as $$
#variable_conflict use_column
begin
  return query
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
  order by 1, 4 desc, c.name;
end
$$;
