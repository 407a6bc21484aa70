-- Two dashboard RPCs that every admin refresh calls, made cheaper for Postgres (issue 57). A SQL function with a
-- SET clause is never inlined, and Postgres plans its body again at every call; PL/pgSQL keeps the plan for the
-- session. get_pending_submissions also looked the auction's time zone up through public.auction_timezone() twice
-- per location, a function call with its own row-level security check each time: the zone now comes from one join.
-- Measured as an auction admin on the demo seed (scale 5, 30 days): get_pending_submissions 3.5 -> 0.6 ms a call,
-- get_all_locations_stats 2.2 -> 0.9 ms. The answers are the same, row for row (packages/domain/test/analytics.test.ts
-- and analytics-rollups.test.ts hold them).

create or replace function public.get_pending_submissions(p_now timestamptz default now())
returns table(location_id uuid, location_name text, auction_id uuid, last_submitted_at timestamptz,
              submission_frequency_minutes integer, minutes_overdue integer)
language plpgsql stable set search_path = '' as $$
begin
  return query
  with l as (
    select l.*, (p_now at time zone z.tz) as local_now, z.tz,
      (select max(s.submitted_at) from public.lot_submissions s
       where s.location_id = l.id and s.submitted_at <= p_now) as last_at
    from public.locations l
    -- As auction_timezone(): the auction's zone, UTC when it has none, null when the caller cannot see the auction.
    left join lateral (select coalesce(nullif(a.settings ->> 'timezone', ''), 'UTC') as tz
                       from public.auctions a where a.id = l.auction_id) z on true
    where l.is_active
  ), open_now as (
    select l.*,
      case
        when l.operating_hours_start is null or l.operating_hours_end is null then true
        when l.operating_hours_start = l.operating_hours_end then true
        when l.operating_hours_start < l.operating_hours_end
          then l.local_now::time >= l.operating_hours_start and l.local_now::time < l.operating_hours_end
        else l.local_now::time >= l.operating_hours_start or l.local_now::time < l.operating_hours_end
      end as is_open,
      case
        when l.operating_hours_start is null or l.operating_hours_end is null then null
        when l.operating_hours_start < l.operating_hours_end or l.local_now::time >= l.operating_hours_start
          then (l.local_now::date + l.operating_hours_start) at time zone l.tz
        else ((l.local_now::date - 1) + l.operating_hours_start) at time zone l.tz
      end as window_start
    from l
  ), due as (
    -- greatest() skips nulls: no submission yet, or no operating hours, leaves the other; neither, the creation.
    select o.*, coalesce(greatest(o.last_at, o.window_start), o.created_at) as since
    from open_now o
    where o.is_open
  )
  select d.id, d.name, d.auction_id, d.last_at, d.submission_frequency_minutes,
    greatest(0, floor(extract(epoch from p_now - d.since) / 60) - d.submission_frequency_minutes)::integer
  from due d
  where d.since < p_now - make_interval(mins => d.submission_frequency_minutes)
  order by 6 desc, d.name;
end $$;

create or replace function public.get_all_locations_stats(p_start_date timestamptz, p_end_date timestamptz)
returns table(location_id uuid, location_name text, auction_id uuid, total_submissions integer,
              total_car_count integer, average_car_count numeric, last_submitted_at timestamptz)
language plpgsql stable set search_path = '' as $$
#variable_conflict use_column
begin
  return query
  select l.id, l.name, l.auction_id,
    coalesce(agg.n, 0)::integer, coalesce(agg.cars, 0)::integer,
    case when coalesce(agg.n, 0) = 0 then 0 else round(agg.cars::numeric / agg.n, 2) end,
    (select max(s.submitted_at) from public.lot_submissions s where s.location_id = l.id)
  from public.locations l
  cross join analytics.whole_hours(p_start_date, p_end_date) r
  left join lateral (
    select sum(x.n) as n, sum(x.cars) as cars
    from (
      select h.submissions as n, h.cars from analytics.submission_hours h
      where h.location_id = l.id and h.hour >= r.lo and h.hour < r.hi
      union all
      select 1, (select coalesce(sum(e.car_count), 0) from public.lot_submission_entries e where e.submission_id = s.id)
      from public.lot_submissions s
      where s.location_id = l.id
        and (s.submitted_at >= p_start_date and s.submitted_at < r.lo or s.submitted_at >= r.hi and s.submitted_at <= p_end_date)
    ) x
  ) agg on true
  order by l.name, l.id;
end $$;
