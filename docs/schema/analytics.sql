-- Generated from the migrations by apps/server/test/schema-snapshot.test.ts (`pnpm schema:snapshot`): do not
-- edit. Read the schema in force here; change it in a new migration (packages/*/migrations*).

-- object: schema analytics
create schema analytics;
grant usage on schema analytics to authenticated;
grant usage on schema analytics to service_role;

-- object: function analytics.add_defect_hours(uuid[],timestamp with time zone[],uuid[],uuid[],uuid[],integer[])
CREATE OR REPLACE FUNCTION analytics.add_defect_hours(p_location uuid[], p_hour timestamp with time zone[], p_category uuid[], p_user uuid[], p_auction uuid[], p_defects integer[])
 RETURNS void
 LANGUAGE plpgsql
 SET search_path TO ''
AS $function$
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
end $function$;

-- object: function analytics.add_message_days(uuid[],uuid[],timestamp with time zone[],uuid[],integer[])
CREATE OR REPLACE FUNCTION analytics.add_message_days(p_channel uuid[], p_user uuid[], p_at timestamp with time zone[], p_auction uuid[], p_sign integer[])
 RETURNS void
 LANGUAGE plpgsql
 SET search_path TO ''
AS $function$
begin
  insert into analytics.channel_message_days as h (channel_id, day, auction_id, messages)
  select c, analytics.utc_day(at), a, sum(n)::integer from unnest(p_channel, p_at, p_auction, p_sign) as d(c, at, a, n)
  where exists (select from public.channels x where x.id = c)
  group by 1, 2, 3 having sum(n) <> 0
  order by 1, 2
  on conflict (channel_id, day) do update set messages = h.messages + excluded.messages;
  insert into analytics.channel_author_days as h (channel_id, user_id, day, auction_id, messages)
  select c, u, analytics.utc_day(at), a, sum(n)::integer
  from unnest(p_channel, p_user, p_at, p_auction, p_sign) as d(c, u, at, a, n)
  where u is not null and exists (select from public.channels x where x.id = c)
  group by 1, 2, 3, 4 having sum(n) <> 0
  order by 1, 2, 3
  on conflict (channel_id, user_id, day) do update set messages = h.messages + excluded.messages;
end $function$;

-- object: function analytics.add_submission_hours(uuid[],timestamp with time zone[],uuid[],integer[],bigint[])
CREATE OR REPLACE FUNCTION analytics.add_submission_hours(p_location uuid[], p_hour timestamp with time zone[], p_auction uuid[], p_submissions integer[], p_cars bigint[])
 RETURNS void
 LANGUAGE plpgsql
 SET search_path TO ''
AS $function$
begin
  insert into analytics.submission_hours as h (location_id, hour, auction_id, submissions, cars)
  select l, hr, a, n, c from unnest(p_location, p_hour, p_auction, p_submissions, p_cars) as d(l, hr, a, n, c)
  where (n <> 0 or c <> 0) and exists (select from public.locations x where x.id = l)
  order by l, hr
  on conflict (location_id, hour) do update
    set submissions = h.submissions + excluded.submissions, cars = h.cars + excluded.cars;
end $function$;

-- object: function analytics.add_submission_type_hours(uuid[],timestamp with time zone[],uuid[],uuid[],integer[],bigint[])
CREATE OR REPLACE FUNCTION analytics.add_submission_type_hours(p_location uuid[], p_hour timestamp with time zone[], p_type uuid[], p_auction uuid[], p_entries integer[], p_cars bigint[])
 RETURNS void
 LANGUAGE plpgsql
 SET search_path TO ''
AS $function$
begin
  insert into analytics.submission_type_hours as h (location_id, hour, submission_type_id, auction_id, entries, cars)
  select l, hr, t, a, n, c from unnest(p_location, p_hour, p_type, p_auction, p_entries, p_cars) as d(l, hr, t, a, n, c)
  where (n <> 0 or c <> 0) and exists (select from public.locations x where x.id = l)
  order by l, hr, t
  on conflict (location_id, hour, submission_type_id) do update
    set entries = h.entries + excluded.entries, cars = h.cars + excluded.cars;
end $function$;

-- object: function analytics.apply_defects(uuid[],uuid[],integer[])
CREATE OR REPLACE FUNCTION analytics.apply_defects(p_inspection uuid[], p_category uuid[], p_sign integer[])
 RETURNS void
 LANGUAGE plpgsql
 SET search_path TO ''
AS $function$
begin
  perform analytics.add_defect_hours(array_agg(location_id), array_agg(hr), array_agg(c), array_agg(user_id),
    array_agg(auction_id), array_agg(n))
  from (
    select i.location_id, analytics.hour_of(i.submitted_at) as hr, d.c, i.user_id, i.auction_id,
      sum(d.sign)::integer as n
    from unnest(p_inspection, p_category, p_sign) as d(insp, c, sign)
    join public.quality_inspections i on i.id = d.insp
    group by 1, 2, 3, 4, 5) x;
end $function$;

-- object: function analytics.apply_entries(uuid[],uuid[],bigint[],integer[])
CREATE OR REPLACE FUNCTION analytics.apply_entries(p_submission uuid[], p_type uuid[], p_cars bigint[], p_sign integer[])
 RETURNS void
 LANGUAGE plpgsql
 SET search_path TO ''
AS $function$
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
end $function$;

-- object: function analytics.auction_zone_changed()
CREATE OR REPLACE FUNCTION analytics.auction_zone_changed()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  lock table analytics.defect_hours in share mode;
  delete from analytics.defect_days where auction_id = new.id;
  insert into analytics.defect_days
  select location_id, analytics.local_day(hour, auction_id), category_id, user_id, auction_id, sum(defects)::integer
  from analytics.defect_hours where auction_id = new.id
  group by 1, 2, 3, 4, 5;
  return null;
end $function$;

-- object: function analytics.channel_deleted()
CREATE OR REPLACE FUNCTION analytics.channel_deleted()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  delete from analytics.channel_message_days where channel_id = old.id;
  delete from analytics.channel_author_days where channel_id = old.id;
  return null;
end $function$;

-- object: function analytics.chat_differences(uuid)
CREATE OR REPLACE FUNCTION analytics.chat_differences(p_auction_id uuid)
 RETURNS TABLE(rollup text, location_id uuid, bucket jsonb, stored jsonb, expected jsonb)
 LANGUAGE sql
 STABLE
 SET search_path TO ''
AS $function$
  with stored as (
    select 'channel_message_days' as rollup, to_jsonb(h) as r from analytics.channel_message_days h
    where h.messages <> 0 and (p_auction_id is null or h.auction_id = p_auction_id)
    union all
    select 'channel_author_days', to_jsonb(h) from analytics.channel_author_days h
    where h.messages <> 0 and (p_auction_id is null or h.auction_id = p_auction_id)
  ), wanted as (
    select 'channel_message_days' as rollup, to_jsonb(x) as r from analytics.expected_channel_message_days(p_auction_id) x
    union all
    select 'channel_author_days', to_jsonb(x) from analytics.expected_channel_author_days(p_auction_id) x
  )
  select coalesce(s.rollup, e.rollup), null::uuid, coalesce(s.r, e.r) - 'messages' - 'auction_id',
    s.r -> 'messages', e.r -> 'messages'
  from stored s full join wanted e on e.rollup = s.rollup and e.r - 'messages' = s.r - 'messages'
  where s.r is distinct from e.r
  order by 1, 3
$function$;
grant execute on function analytics.chat_differences(uuid) to service_role;

-- object: function analytics.defect_trends(timestamp with time zone,timestamp with time zone,uuid)
CREATE OR REPLACE FUNCTION analytics.defect_trends(p_start_date timestamp with time zone, p_end_date timestamp with time zone, p_location_id uuid DEFAULT NULL::uuid)
 RETURNS TABLE(day date, category_id uuid, category text, defect_count integer)
 LANGUAGE plpgsql
 STABLE
 SET search_path TO ''
AS $function$
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
$function$;
grant execute on function analytics.defect_trends(timestamp with time zone,timestamp with time zone,uuid) to authenticated;
grant execute on function analytics.defect_trends(timestamp with time zone,timestamp with time zone,uuid) to service_role;

-- object: function analytics.defects_changed()
CREATE OR REPLACE FUNCTION analytics.defects_changed()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  v_insp uuid[] := '{}';
  v_cat uuid[] := '{}';
  v_sign integer[] := '{}';
begin
  if tg_op <> 'DELETE' then
    select coalesce(array_agg(inspection_id), '{}'), coalesce(array_agg(category_id), '{}'), coalesce(array_agg(1), '{}')
    into v_insp, v_cat, v_sign from new_rows;
  end if;
  if tg_op <> 'INSERT' then
    select v_insp || coalesce(array_agg(inspection_id), '{}'), v_cat || coalesce(array_agg(category_id), '{}'),
      v_sign || coalesce(array_agg(-1), '{}')
    into v_insp, v_cat, v_sign from old_rows;
  end if;
  perform analytics.apply_defects(v_insp, v_cat, v_sign);
  return null;
end $function$;

-- object: function analytics.differences(uuid)
CREATE OR REPLACE FUNCTION analytics.differences(p_auction_id uuid DEFAULT NULL::uuid)
 RETURNS TABLE(rollup text, location_id uuid, bucket jsonb, stored jsonb, expected jsonb)
 LANGUAGE sql
 STABLE
 SET search_path TO ''
AS $function$
  select * from analytics.measure_differences(p_auction_id)
  union all
  select * from analytics.chat_differences(p_auction_id)
$function$;
grant execute on function analytics.differences(uuid) to service_role;

-- object: function analytics.entries_changed()
CREATE OR REPLACE FUNCTION analytics.entries_changed()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  v_sub uuid[] := '{}';
  v_type uuid[] := '{}';
  v_cars bigint[] := '{}';
  v_sign integer[] := '{}';
begin
  if tg_op <> 'DELETE' then
    select coalesce(array_agg(submission_id), '{}'), coalesce(array_agg(submission_type_id), '{}'),
      coalesce(array_agg(car_count::bigint), '{}'), coalesce(array_agg(1), '{}')
    into v_sub, v_type, v_cars, v_sign from new_rows;
  end if;
  if tg_op <> 'INSERT' then
    select v_sub || coalesce(array_agg(submission_id), '{}'), v_type || coalesce(array_agg(submission_type_id), '{}'),
      v_cars || coalesce(array_agg(car_count::bigint), '{}'), v_sign || coalesce(array_agg(-1), '{}')
    into v_sub, v_type, v_cars, v_sign from old_rows;
  end if;
  perform analytics.apply_entries(v_sub, v_type, v_cars, v_sign);
  return null;
end $function$;

-- object: function analytics.expected_channel_author_days(uuid)
CREATE OR REPLACE FUNCTION analytics.expected_channel_author_days(p_auction_id uuid)
 RETURNS TABLE(channel_id uuid, user_id uuid, day date, auction_id uuid, messages integer)
 LANGUAGE sql
 STABLE
 SET search_path TO ''
AS $function$
  select m.channel_id, m.user_id, analytics.utc_day(m.created_at), m.auction_id, count(*)::integer
  from public.messages m
  where not m.is_deleted and m.user_id is not null and (p_auction_id is null or m.auction_id = p_auction_id)
  group by 1, 2, 3, 4
$function$;
grant execute on function analytics.expected_channel_author_days(uuid) to service_role;

-- object: function analytics.expected_channel_message_days(uuid)
CREATE OR REPLACE FUNCTION analytics.expected_channel_message_days(p_auction_id uuid)
 RETURNS TABLE(channel_id uuid, day date, auction_id uuid, messages integer)
 LANGUAGE sql
 STABLE
 SET search_path TO ''
AS $function$
  select m.channel_id, analytics.utc_day(m.created_at), m.auction_id, count(*)::integer
  from public.messages m where not m.is_deleted and (p_auction_id is null or m.auction_id = p_auction_id)
  group by 1, 2, 3
$function$;
grant execute on function analytics.expected_channel_message_days(uuid) to service_role;

-- object: function analytics.expected_defect_days(uuid)
CREATE OR REPLACE FUNCTION analytics.expected_defect_days(p_auction_id uuid)
 RETURNS TABLE(location_id uuid, day date, category_id uuid, user_id uuid, auction_id uuid, defects integer)
 LANGUAGE sql
 STABLE
 SET search_path TO ''
AS $function$
  select x.location_id, analytics.local_day(x.hour, x.auction_id), x.category_id, x.user_id, x.auction_id,
    sum(x.defects)::integer
  from analytics.expected_defect_hours(p_auction_id) x
  group by 1, 2, 3, 4, 5
$function$;
grant execute on function analytics.expected_defect_days(uuid) to service_role;

-- object: function analytics.expected_defect_hours(uuid)
CREATE OR REPLACE FUNCTION analytics.expected_defect_hours(p_auction_id uuid)
 RETURNS TABLE(location_id uuid, hour timestamp with time zone, category_id uuid, user_id uuid, auction_id uuid, defects integer)
 LANGUAGE sql
 STABLE
 SET search_path TO ''
AS $function$
  select i.location_id, analytics.hour_of(i.submitted_at), d.category_id, i.user_id, i.auction_id, count(*)::integer
  from public.quality_inspections i join public.quality_defects d on d.inspection_id = i.id
  where p_auction_id is null or i.auction_id = p_auction_id
  group by 1, 2, 3, 4, 5
$function$;
grant execute on function analytics.expected_defect_hours(uuid) to service_role;

-- object: function analytics.expected_submission_hours(uuid)
CREATE OR REPLACE FUNCTION analytics.expected_submission_hours(p_auction_id uuid)
 RETURNS TABLE(location_id uuid, hour timestamp with time zone, auction_id uuid, submissions integer, cars bigint)
 LANGUAGE sql
 STABLE
 SET search_path TO ''
AS $function$
  select s.location_id, analytics.hour_of(s.submitted_at), s.auction_id, count(*)::integer,
    coalesce(sum((select sum(e.car_count) from public.lot_submission_entries e where e.submission_id = s.id)), 0)::bigint
  from public.lot_submissions s where p_auction_id is null or s.auction_id = p_auction_id
  group by 1, 2, 3
$function$;
grant execute on function analytics.expected_submission_hours(uuid) to service_role;

-- object: function analytics.expected_submission_type_hours(uuid)
CREATE OR REPLACE FUNCTION analytics.expected_submission_type_hours(p_auction_id uuid)
 RETURNS TABLE(location_id uuid, hour timestamp with time zone, submission_type_id uuid, auction_id uuid, entries integer, cars bigint)
 LANGUAGE sql
 STABLE
 SET search_path TO ''
AS $function$
  select s.location_id, analytics.hour_of(s.submitted_at), e.submission_type_id, s.auction_id, count(*)::integer,
    sum(e.car_count)::bigint
  from public.lot_submissions s join public.lot_submission_entries e on e.submission_id = s.id
  where p_auction_id is null or s.auction_id = p_auction_id
  group by 1, 2, 3, 4
$function$;
grant execute on function analytics.expected_submission_type_hours(uuid) to service_role;

-- object: function analytics.hour_of(timestamp with time zone)
CREATE OR REPLACE FUNCTION analytics.hour_of(p_at timestamp with time zone)
 RETURNS timestamp with time zone
 LANGUAGE sql
 IMMUTABLE
AS $function$ select pg_catalog.date_trunc('hour', p_at, 'UTC') $function$;
grant execute on function analytics.hour_of(timestamp with time zone) to authenticated;
grant execute on function analytics.hour_of(timestamp with time zone) to service_role;

-- object: function analytics.inspection_deleting()
CREATE OR REPLACE FUNCTION analytics.inspection_deleting()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  perform analytics.add_defect_hours(array_agg(old.location_id), array_agg(analytics.hour_of(old.submitted_at)),
    array_agg(c), array_agg(old.user_id), array_agg(old.auction_id), array_agg(-n))
  from (select d.category_id as c, count(*)::integer as n from public.quality_defects d
        where d.inspection_id = old.id group by 1) x;
  return old;
end $function$;

-- object: function analytics.inspection_years()
CREATE OR REPLACE FUNCTION analytics.inspection_years(OUT lo timestamp with time zone, OUT hi timestamp with time zone)
 RETURNS record
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
  select pg_catalog.date_trunc('year', min(s.first), 'UTC') - interval '1 day',
         pg_catalog.date_trunc('year', max(s.last), 'UTC') + interval '1 year 1 day'
  from public.member_auction_ids() m(id),
    lateral (select min(i.submitted_at) as first, max(i.submitted_at) as last
             from public.quality_inspections i where i.auction_id = m.id) s
$function$;
grant execute on function analytics.inspection_years() to authenticated;

-- object: function analytics.inspections_moved()
CREATE OR REPLACE FUNCTION analytics.inspections_moved()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  perform analytics.add_defect_hours(array_agg(location_id), array_agg(hr), array_agg(c), array_agg(user_id),
      array_agg(auction_id), array_agg(n))
  from (
    select s.location_id, analytics.hour_of(s.submitted_at) as hr, d.category_id as c, s.user_id, s.auction_id,
      sum(s.sg)::integer as n
    from old_rows o join new_rows w on w.id = o.id
    cross join lateral (values (-1, o.location_id, o.submitted_at, o.user_id, o.auction_id),
      (1, w.location_id, w.submitted_at, w.user_id, w.auction_id)) s(sg, location_id, submitted_at, user_id, auction_id)
    join public.quality_defects d on d.inspection_id = o.id
    where o.location_id <> w.location_id or analytics.hour_of(o.submitted_at) <> analytics.hour_of(w.submitted_at)
      or o.user_id is distinct from w.user_id
    group by 1, 2, 3, 4, 5) x;
  return null;
end $function$;

-- object: function analytics.local_day(timestamp with time zone,uuid)
CREATE OR REPLACE FUNCTION analytics.local_day(p_hour timestamp with time zone, p_auction_id uuid)
 RETURNS date
 LANGUAGE sql
 STABLE
 SET search_path TO ''
AS $function$
  select (p_hour at time zone coalesce(nullif(a.settings ->> 'timezone', ''), 'UTC'))::date
  from public.auctions a where a.id = p_auction_id
$function$;
grant execute on function analytics.local_day(timestamp with time zone,uuid) to service_role;

-- object: function analytics.location_deleted()
CREATE OR REPLACE FUNCTION analytics.location_deleted()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  delete from analytics.submission_hours where location_id = old.id;
  delete from analytics.submission_type_hours where location_id = old.id;
  delete from analytics.defect_hours where location_id = old.id;
  delete from analytics.defect_days where location_id = old.id;
  return null;
end $function$;

-- object: function analytics.measure_differences(uuid)
CREATE OR REPLACE FUNCTION analytics.measure_differences(p_auction_id uuid DEFAULT NULL::uuid)
 RETURNS TABLE(rollup text, location_id uuid, bucket jsonb, stored jsonb, expected jsonb)
 LANGUAGE sql
 STABLE
 SET search_path TO ''
 SET "TimeZone" TO 'UTC'
AS $function$ -- hours as text in keys, the same everywhere
  with stored as (
    select 'submission_hours' as rollup, to_jsonb(h) as r from analytics.submission_hours h
    where h.submissions <> 0 or h.cars <> 0
    union all
    select 'submission_type_hours', to_jsonb(h) from analytics.submission_type_hours h where h.entries <> 0 or h.cars <> 0
    union all
    select 'defect_hours', to_jsonb(h) from analytics.defect_hours h where h.defects <> 0
    union all
    select 'defect_days', to_jsonb(h) from analytics.defect_days h where h.defects <> 0
  ), expected as (
    select 'submission_hours' as rollup, to_jsonb(x) as r from analytics.expected_submission_hours(p_auction_id) x
    union all
    select 'submission_type_hours', to_jsonb(x) from analytics.expected_submission_type_hours(p_auction_id) x
    union all
    select 'defect_hours', to_jsonb(x) from analytics.expected_defect_hours(p_auction_id) x
    union all
    select 'defect_days', to_jsonb(x) from analytics.expected_defect_days(p_auction_id) x
  ), keyed as ( -- a bucket's key is its row without the counted values
    select rollup, r - array['submissions', 'cars', 'entries', 'defects'] as k, r from stored
    where p_auction_id is null or (r ->> 'auction_id')::uuid = p_auction_id
  ), wanted as (
    select rollup, r - array['submissions', 'cars', 'entries', 'defects'] as k, r from expected
  )
  select coalesce(s.rollup, e.rollup), (coalesce(s.k, e.k) ->> 'location_id')::uuid,
    coalesce(s.k, e.k) - 'location_id' - 'auction_id', s.r - 'location_id' - 'auction_id' - 'hour' - 'day',
    e.r - 'location_id' - 'auction_id' - 'hour' - 'day'
  from keyed s full join wanted e on e.rollup = s.rollup and e.k = s.k
  where s.r is distinct from e.r
  order by 1, 2, 3
$function$;
grant execute on function analytics.measure_differences(uuid) to service_role;

-- object: function analytics.messages_deleted()
CREATE OR REPLACE FUNCTION analytics.messages_deleted()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  perform analytics.add_message_days(array_agg(channel_id), array_agg(user_id), array_agg(created_at),
    array_agg(auction_id), array_agg(-1))
  from old_rows where not is_deleted;
  return null;
end $function$;

-- object: function analytics.messages_inserted()
CREATE OR REPLACE FUNCTION analytics.messages_inserted()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  perform analytics.add_message_days(array_agg(channel_id), array_agg(user_id), array_agg(created_at),
    array_agg(auction_id), array_agg(1))
  from new_rows where not is_deleted;
  return null;
end $function$;

-- object: function analytics.messages_updated()
CREATE OR REPLACE FUNCTION analytics.messages_updated()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  perform analytics.add_message_days(array_agg(channel_id), array_agg(user_id), array_agg(created_at),
    array_agg(auction_id), array_agg(sg))
  from (
    select channel_id, user_id, created_at, auction_id, 1 as sg from new_rows where not is_deleted
    union all
    select channel_id, user_id, created_at, auction_id, -1 from old_rows where not is_deleted) d;
  return null;
end $function$;

-- object: function analytics.rebuild(uuid)
CREATE OR REPLACE FUNCTION analytics.rebuild(p_auction_id uuid DEFAULT NULL::uuid)
 RETURNS void
 LANGUAGE plpgsql
 SET search_path TO ''
AS $function$
begin
  perform analytics.rebuild_measures(p_auction_id);
  lock table public.messages in share mode;
  delete from analytics.channel_message_days where p_auction_id is null or auction_id = p_auction_id;
  delete from analytics.channel_author_days where p_auction_id is null or auction_id = p_auction_id;
  insert into analytics.channel_message_days select * from analytics.expected_channel_message_days(p_auction_id);
  insert into analytics.channel_author_days select * from analytics.expected_channel_author_days(p_auction_id);
end $function$;
grant execute on function analytics.rebuild(uuid) to service_role;

-- object: function analytics.rebuild_measures(uuid)
CREATE OR REPLACE FUNCTION analytics.rebuild_measures(p_auction_id uuid DEFAULT NULL::uuid)
 RETURNS void
 LANGUAGE plpgsql
 SET search_path TO ''
AS $function$
begin
  lock table public.lot_submissions, public.lot_submission_entries, public.quality_inspections,
    public.quality_defects in share mode;
  delete from analytics.submission_hours where p_auction_id is null or auction_id = p_auction_id;
  delete from analytics.submission_type_hours where p_auction_id is null or auction_id = p_auction_id;
  delete from analytics.defect_hours where p_auction_id is null or auction_id = p_auction_id;
  delete from analytics.defect_days where p_auction_id is null or auction_id = p_auction_id;
  insert into analytics.submission_hours select * from analytics.expected_submission_hours(p_auction_id);
  insert into analytics.submission_type_hours select * from analytics.expected_submission_type_hours(p_auction_id);
  insert into analytics.defect_hours select * from analytics.expected_defect_hours(p_auction_id);
  insert into analytics.defect_days select * from analytics.expected_defect_days(p_auction_id);
end $function$;
grant execute on function analytics.rebuild_measures(uuid) to service_role;

-- object: function analytics.split_hours(text,timestamp with time zone,timestamp with time zone)
CREATE OR REPLACE FUNCTION analytics.split_hours(p_tz text, p_lo timestamp with time zone, p_hi timestamp with time zone)
 RETURNS SETOF timestamp with time zone
 LANGUAGE sql
 STABLE ROWS 10
 SET search_path TO ''
AS $function$
  select analytics.hour_of(m.at)
  from generate_series((p_lo at time zone p_tz)::date, (p_hi at time zone p_tz)::date, interval '1 day') d
  cross join lateral (select (d::date::timestamp at time zone p_tz) as at) m
  where m.at <> analytics.hour_of(m.at) and analytics.hour_of(m.at) >= p_lo and analytics.hour_of(m.at) < p_hi
$function$;
grant execute on function analytics.split_hours(text,timestamp with time zone,timestamp with time zone) to authenticated;
grant execute on function analytics.split_hours(text,timestamp with time zone,timestamp with time zone) to service_role;

-- object: function analytics.submission_deleting()
CREATE OR REPLACE FUNCTION analytics.submission_deleting()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  perform analytics.add_submission_hours(array[old.location_id], array[analytics.hour_of(old.submitted_at)],
    array[old.auction_id], array[-1],
    array[-(select coalesce(sum(e.car_count), 0) from public.lot_submission_entries e where e.submission_id = old.id)]);
  perform analytics.add_submission_type_hours(array_agg(old.location_id), array_agg(analytics.hour_of(old.submitted_at)),
    array_agg(t), array_agg(old.auction_id), array_agg(-n), array_agg(-c))
  from (select e.submission_type_id as t, count(*)::integer as n, sum(e.car_count)::bigint as c
        from public.lot_submission_entries e where e.submission_id = old.id group by 1) d;
  return old;
end $function$;

-- object: function analytics.submissions_changed()
CREATE OR REPLACE FUNCTION analytics.submissions_changed()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  if tg_op = 'INSERT' then
    perform analytics.add_submission_hours(array_agg(location_id), array_agg(hr), array_agg(auction_id),
      array_agg(n), array_agg(0::bigint))
    from (select location_id, analytics.hour_of(submitted_at) as hr, auction_id, count(*)::integer as n
          from new_rows group by 1, 2, 3) d;
    return null;
  end if;
  -- UPDATE: submissions that changed location or hour take themselves and their entries' cars along.
  perform analytics.add_submission_hours(array_agg(location_id), array_agg(hr), array_agg(auction_id),
      array_agg(n), array_agg(c))
  from (
    select location_id, hr, auction_id, sum(n)::integer as n, sum(c)::bigint as c from (
      select o.location_id, analytics.hour_of(o.submitted_at) as hr, o.auction_id, -1 as n,
        -(select coalesce(sum(e.car_count), 0) from public.lot_submission_entries e where e.submission_id = o.id) as c
      from old_rows o join new_rows w on w.id = o.id
      where o.location_id <> w.location_id or analytics.hour_of(o.submitted_at) <> analytics.hour_of(w.submitted_at)
      union all
      select w.location_id, analytics.hour_of(w.submitted_at), w.auction_id, 1,
        (select coalesce(sum(e.car_count), 0) from public.lot_submission_entries e where e.submission_id = w.id)
      from old_rows o join new_rows w on w.id = o.id
      where o.location_id <> w.location_id or analytics.hour_of(o.submitted_at) <> analytics.hour_of(w.submitted_at)
    ) x group by 1, 2, 3) d;
  perform analytics.add_submission_type_hours(array_agg(location_id), array_agg(hr), array_agg(t), array_agg(auction_id),
      array_agg(n), array_agg(c))
  from (
    select location_id, hr, t, auction_id, sum(n)::integer as n, sum(c)::bigint as c from (
      select s.location_id, analytics.hour_of(s.submitted_at) as hr, e.submission_type_id as t, s.auction_id,
        sg * 1 as n, sg * e.car_count as c
      from old_rows o join new_rows w on w.id = o.id
      cross join lateral (values (-1, o.location_id, o.submitted_at, o.auction_id),
                                 (1, w.location_id, w.submitted_at, w.auction_id)) s(sg, location_id, submitted_at, auction_id)
      join public.lot_submission_entries e on e.submission_id = o.id
      where o.location_id <> w.location_id or analytics.hour_of(o.submitted_at) <> analytics.hour_of(w.submitted_at)
    ) x group by 1, 2, 3, 4) d;
  return null;
end $function$;

-- object: function analytics.utc_day(timestamp with time zone)
CREATE OR REPLACE FUNCTION analytics.utc_day(p_at timestamp with time zone)
 RETURNS date
 LANGUAGE sql
 IMMUTABLE
AS $function$ select (p_at at time zone 'UTC')::date $function$;
grant execute on function analytics.utc_day(timestamp with time zone) to authenticated;
grant execute on function analytics.utc_day(timestamp with time zone) to service_role;

-- object: function analytics.whole_hours(timestamp with time zone,timestamp with time zone)
CREATE OR REPLACE FUNCTION analytics.whole_hours(p_start timestamp with time zone, p_end timestamp with time zone, OUT lo timestamp with time zone, OUT hi timestamp with time zone)
 RETURNS record
 LANGUAGE sql
 IMMUTABLE
 SET search_path TO ''
AS $function$
  select case when a < b then a else p_start end, case when a < b then b else p_start end
  from (select case when analytics.hour_of(p_start) = p_start then p_start
                    else analytics.hour_of(p_start) + interval '1 hour' end as a,
               analytics.hour_of(p_end + interval '1 microsecond') as b) x
$function$;
grant execute on function analytics.whole_hours(timestamp with time zone,timestamp with time zone) to authenticated;
grant execute on function analytics.whole_hours(timestamp with time zone,timestamp with time zone) to service_role;

-- object: table analytics.channel_author_days
create table analytics.channel_author_days (
  channel_id uuid not null,
  user_id uuid not null,
  day date not null,
  auction_id uuid not null,
  messages integer not null default 0
);
alter table analytics.channel_author_days enable row level security;
alter table analytics.channel_author_days add constraint channel_author_days_pkey PRIMARY KEY (channel_id, user_id, day);
create policy channel_author_days_not_anonymous on analytics.channel_author_days as restrictive for all to authenticated
  using ((NOT ( SELECT public.is_anonymous_caller() AS is_anonymous_caller)))
  with check ((NOT ( SELECT public.is_anonymous_caller() AS is_anonymous_caller)));
create policy channel_author_days_select on analytics.channel_author_days as permissive for select to authenticated
  using ((auction_id = ANY (ARRAY( SELECT public.member_auction_ids() AS member_auction_ids))));
grant select on analytics.channel_author_days to authenticated;
grant delete, insert, references, select, trigger, truncate, update on analytics.channel_author_days to service_role;

-- object: table analytics.channel_message_days
create table analytics.channel_message_days (
  channel_id uuid not null,
  day date not null,
  auction_id uuid not null,
  messages integer not null default 0
);
alter table analytics.channel_message_days enable row level security;
alter table analytics.channel_message_days add constraint channel_message_days_pkey PRIMARY KEY (channel_id, day);
create policy channel_message_days_not_anonymous on analytics.channel_message_days as restrictive for all to authenticated
  using ((NOT ( SELECT public.is_anonymous_caller() AS is_anonymous_caller)))
  with check ((NOT ( SELECT public.is_anonymous_caller() AS is_anonymous_caller)));
create policy channel_message_days_select on analytics.channel_message_days as permissive for select to authenticated
  using ((auction_id = ANY (ARRAY( SELECT public.member_auction_ids() AS member_auction_ids))));
grant select on analytics.channel_message_days to authenticated;
grant delete, insert, references, select, trigger, truncate, update on analytics.channel_message_days to service_role;

-- object: table analytics.defect_days
create table analytics.defect_days (
  location_id uuid not null,
  day date not null,
  category_id uuid not null,
  user_id uuid,
  auction_id uuid not null,
  defects integer not null default 0
);
alter table analytics.defect_days enable row level security;
alter table analytics.defect_days add constraint defect_days_location_id_day_category_id_user_id_key UNIQUE NULLS NOT DISTINCT (location_id, day, category_id, user_id);
CREATE INDEX defect_days_auction_idx ON analytics.defect_days USING btree (auction_id, day);
create policy defect_days_select on analytics.defect_days as permissive for select to authenticated
  using (((location_id = ANY (ARRAY( SELECT l.id
   FROM public.locations l))) OR ((user_id = ( SELECT auth.uid() AS uid)) AND (auction_id = ANY (ARRAY( SELECT public.current_user_auction_ids() AS current_user_auction_ids))))));
grant select on analytics.defect_days to authenticated;
grant delete, insert, references, select, trigger, truncate, update on analytics.defect_days to service_role;

-- object: table analytics.defect_hours
create table analytics.defect_hours (
  location_id uuid not null,
  hour timestamp with time zone not null,
  category_id uuid not null,
  user_id uuid,
  auction_id uuid not null,
  defects integer not null default 0
);
alter table analytics.defect_hours enable row level security;
alter table analytics.defect_hours add constraint defect_hours_location_id_hour_category_id_user_id_key UNIQUE NULLS NOT DISTINCT (location_id, hour, category_id, user_id);
CREATE INDEX defect_hours_auction_idx ON analytics.defect_hours USING btree (auction_id, hour);
create policy defect_hours_select on analytics.defect_hours as permissive for select to authenticated
  using (((location_id = ANY (ARRAY( SELECT l.id
   FROM public.locations l))) OR ((user_id = ( SELECT auth.uid() AS uid)) AND (auction_id = ANY (ARRAY( SELECT public.current_user_auction_ids() AS current_user_auction_ids))))));
grant select on analytics.defect_hours to authenticated;
grant delete, insert, references, select, trigger, truncate, update on analytics.defect_hours to service_role;

-- object: table analytics.submission_hours
create table analytics.submission_hours (
  location_id uuid not null,
  hour timestamp with time zone not null,
  auction_id uuid not null,
  submissions integer not null default 0,
  cars bigint not null default 0
);
alter table analytics.submission_hours enable row level security;
alter table analytics.submission_hours add constraint submission_hours_pkey PRIMARY KEY (location_id, hour);
create policy submission_hours_select on analytics.submission_hours as permissive for select to authenticated
  using ((location_id = ANY (ARRAY( SELECT l.id
   FROM public.locations l))));
grant select on analytics.submission_hours to authenticated;
grant delete, insert, references, select, trigger, truncate, update on analytics.submission_hours to service_role;

-- object: table analytics.submission_type_hours
create table analytics.submission_type_hours (
  location_id uuid not null,
  hour timestamp with time zone not null,
  submission_type_id uuid not null,
  auction_id uuid not null,
  entries integer not null default 0,
  cars bigint not null default 0
);
alter table analytics.submission_type_hours enable row level security;
alter table analytics.submission_type_hours add constraint submission_type_hours_pkey PRIMARY KEY (location_id, hour, submission_type_id);
create policy submission_type_hours_select on analytics.submission_type_hours as permissive for select to authenticated
  using ((location_id = ANY (ARRAY( SELECT l.id
   FROM public.locations l))));
grant select on analytics.submission_type_hours to authenticated;
grant delete, insert, references, select, trigger, truncate, update on analytics.submission_type_hours to service_role;
