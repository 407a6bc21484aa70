-- get_defect_trends over a long range cost PostgreSQL time in proportion to the range, whatever the data: to find
-- the hours a local midnight cuts in two it walks every day of the range for every auction the caller sees (2000 to
-- 2100 as an auction admin on the demo seed: 0.6 to 1.1 s of CPU, for any member to ask for). A range over 400 days
-- asked under row-level security is now first cut to the whole UTC years in which the caller's auctions have
-- inspections, a day more at each end. The auctions the function reads are the ones the caller sees, which are
-- theirs (member, or every auction for a super admin): every row the range could count lies inside the cut, so the
-- answer is the same, and the work follows the data. Roles that bypass row-level security (the service role) are
-- trusted and not cut.
--
-- The function itself is kept, moved and renamed (its body unchanged, not restated here): `public.get_defect_trends`
-- is the cut around it, with the same signature and grants.
alter function public.get_defect_trends(timestamptz, timestamptz, uuid) set schema analytics;
alter function analytics.get_defect_trends(timestamptz, timestamptz, uuid) rename to defect_trends;

-- The span of the inspections of the caller's auctions (member or super admin), widened to whole UTC years and a day.
-- Definer: it reads each auction's first and last inspection by index, whoever may see which rows, and tells the
-- caller no more than the years in which their own auctions inspected. Null when they have no inspection.
create function analytics.inspection_years(out lo timestamptz, out hi timestamptz)
language sql stable security definer set search_path = '' as $$
  select pg_catalog.date_trunc('year', min(s.first), 'UTC') - interval '1 day',
         pg_catalog.date_trunc('year', max(s.last), 'UTC') + interval '1 year 1 day'
  from public.member_auction_ids() m(id),
    lateral (select min(i.submitted_at) as first, max(i.submitted_at) as last
             from public.quality_inspections i where i.auction_id = m.id) s
$$;
revoke all on function analytics.inspection_years() from public, anon;
grant execute on function analytics.inspection_years() to authenticated;

create function public.get_defect_trends(p_start_date timestamptz, p_end_date timestamptz,
  p_location_id uuid default null)
returns table (day date, category_id uuid, category text, defect_count integer)
language plpgsql stable set search_path = '' as $$
declare
  v_start timestamptz := p_start_date;
  v_end timestamptz := p_end_date;
  v_years record;
begin
  if p_end_date - p_start_date > interval '400 days' and pg_catalog.row_security_active('public.auctions') then
    select * into v_years from analytics.inspection_years();
    if v_years.lo is null then
      return;
    end if;
    v_start := greatest(p_start_date, v_years.lo);
    v_end := least(p_end_date, v_years.hi);
  end if;
  return query select * from analytics.defect_trends(v_start, v_end, p_location_id);
end $$;
revoke all on function public.get_defect_trends(timestamptz, timestamptz, uuid) from public, anon;
grant execute on function public.get_defect_trends(timestamptz, timestamptz, uuid) to authenticated, service_role;
