-- Analytics RPCs: per-location and dashboard statistics, defect trends by day in the auction's time zone, and
-- locations overdue for a submission inside their operating hours. All SECURITY INVOKER: row-level security
-- limits them to what the caller can read (the service role, used by check-pending-submissions, sees all).
-- Date ranges are inclusive timestamps.

-- The IANA zone of an auction (settings.timezone, default UTC). Invoker: callers only learn their own auctions' zone.
create function public.auction_timezone(p_auction_id uuid) returns text
language sql stable set search_path = '' as $$
  select coalesce(nullif(settings ->> 'timezone', ''), 'UTC') from public.auctions where id = p_auction_id
$$;
revoke execute on function public.auction_timezone(uuid) from public;
grant execute on function public.auction_timezone(uuid) to authenticated, service_role;

create function public.get_location_stats(p_location_id uuid, p_start_date timestamptz, p_end_date timestamptz)
returns jsonb language plpgsql stable security invoker set search_path = '' as $$
declare
  v_total integer;
  v_cars integer;
begin
  if not exists (select 1 from public.locations where id = p_location_id) then
    raise exception 'location not found or not accessible' using errcode = '42501';
  end if;
  select count(distinct s.id), coalesce(sum(e.car_count), 0)
  into v_total, v_cars
  from public.lot_submissions s
  left join public.lot_submission_entries e on e.submission_id = s.id
  where s.location_id = p_location_id and s.submitted_at between p_start_date and p_end_date;
  return jsonb_build_object(
    'total_submissions', v_total,
    'total_car_count', v_cars,
    'average_car_count', case when v_total = 0 then 0 else round(v_cars::numeric / v_total, 2) end,
    'by_type', coalesce((
      select jsonb_agg(jsonb_build_object('type_name', t.name, 'count', t.cars) order by t.cars desc, t.name)
      from (
        select st.id, st.name, sum(e.car_count)::integer as cars
        from public.lot_submissions s
        join public.lot_submission_entries e on e.submission_id = s.id
        join public.submission_types st on st.id = e.submission_type_id
        where s.location_id = p_location_id and s.submitted_at between p_start_date and p_end_date
        group by st.id, st.name) t), '[]'::jsonb));
end $$;

create function public.get_all_locations_stats(p_start_date timestamptz, p_end_date timestamptz)
returns table (location_id uuid, location_name text, auction_id uuid, total_submissions integer,
               total_car_count integer, average_car_count numeric, last_submitted_at timestamptz)
language sql stable security invoker set search_path = '' as $$
  select l.id, l.name, l.auction_id,
    coalesce(agg.n, 0)::integer, coalesce(agg.cars, 0)::integer,
    case when coalesce(agg.n, 0) = 0 then 0 else round(agg.cars::numeric / agg.n, 2) end,
    (select max(s.submitted_at) from public.lot_submissions s where s.location_id = l.id)
  from public.locations l
  left join lateral (
    select count(*) as n, sum(x.cars) as cars
    from (
      select s.id, (select coalesce(sum(e.car_count), 0) from public.lot_submission_entries e where e.submission_id = s.id) as cars
      from public.lot_submissions s
      where s.location_id = l.id and s.submitted_at between p_start_date and p_end_date) x
  ) agg on true
  order by l.name, l.id
$$;

-- Defects per day (in the auction's time zone) and category, by inspection time.
create function public.get_defect_trends(p_start_date timestamptz, p_end_date timestamptz, p_location_id uuid default null)
returns table (day date, category_id uuid, category text, defect_count integer)
language sql stable security invoker set search_path = '' as $$
  select (i.submitted_at at time zone coalesce(nullif(a.settings ->> 'timezone', ''), 'UTC'))::date as day,
    c.id, c.name, count(*)::integer
  from public.quality_defects d
  join public.quality_inspections i on i.id = d.inspection_id
  join public.auctions a on a.id = i.auction_id
  join public.defect_categories c on c.id = d.category_id
  where i.submitted_at between p_start_date and p_end_date
    and (p_location_id is null or i.location_id = p_location_id)
  group by 1, c.id, c.name
  order by 1, 4 desc, c.name
$$;

-- Active locations inside their operating hours (auction time zone; a window whose end is before its start spans
-- midnight; no hours or equal start and end mean always open) whose last submission is older than their frequency. minutes_overdue is
-- counted from the last submission, or from the start of the current operating window when there is none.
-- p_now exists for tests and simulations; clients call it without arguments.
create function public.get_pending_submissions(p_now timestamptz default now())
returns table (location_id uuid, location_name text, auction_id uuid, last_submitted_at timestamptz,
               submission_frequency_minutes integer, minutes_overdue integer)
language sql stable security invoker set search_path = '' as $$
  with l as (
    select l.*, (p_now at time zone public.auction_timezone(l.auction_id)) as local_now,
      public.auction_timezone(l.auction_id) as tz,
      (select max(s.submitted_at) from public.lot_submissions s
       where s.location_id = l.id and s.submitted_at <= p_now) as last_at
    from public.locations l
    where l.is_active
  ), open_now as (
    select l.*,
      case
        when operating_hours_start is null or operating_hours_end is null then true
        when operating_hours_start = operating_hours_end then true
        when operating_hours_start < operating_hours_end
          then local_now::time >= operating_hours_start and local_now::time < operating_hours_end
        else local_now::time >= operating_hours_start or local_now::time < operating_hours_end
      end as is_open,
      case
        when operating_hours_start is null or operating_hours_end is null then null
        when operating_hours_start < operating_hours_end or local_now::time >= operating_hours_start
          then (local_now::date + operating_hours_start) at time zone tz
        else ((local_now::date - 1) + operating_hours_start) at time zone tz
      end as window_start
    from l
  )
  select o.id, o.name, o.auction_id, o.last_at, o.submission_frequency_minutes,
    greatest(0, floor(extract(epoch from p_now - coalesce(o.last_at, o.window_start, o.created_at)) / 60)
      - o.submission_frequency_minutes)::integer
  from open_now o
  where o.is_open
    and (o.last_at is null or o.last_at < p_now - make_interval(mins => o.submission_frequency_minutes))
  order by 6 desc, o.name
$$;

revoke execute on function public.get_location_stats(uuid, timestamptz, timestamptz),
  public.get_all_locations_stats(timestamptz, timestamptz), public.get_defect_trends(timestamptz, timestamptz, uuid),
  public.get_pending_submissions(timestamptz) from public;
grant execute on function public.get_location_stats(uuid, timestamptz, timestamptz),
  public.get_all_locations_stats(timestamptz, timestamptz), public.get_defect_trends(timestamptz, timestamptz, uuid),
  public.get_pending_submissions(timestamptz) to authenticated, service_role;
