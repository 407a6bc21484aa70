-- get_pending_submissions counted a location overdue from its last submission even when that was before today's
-- opening: a lot closed overnight showed the whole night as overdue at opening. Time now runs from the later of
-- the last submission and the start of the current operating window, for the listing and for minutes_overdue.
create or replace function public.get_pending_submissions(p_now timestamptz default now())
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
  order by 6 desc, d.name
$$;
