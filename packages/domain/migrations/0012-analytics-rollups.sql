-- Rollups behind the analytics RPCs, so that their cost follows the number of buckets instead of rows: cars and
-- submissions per location, UTC hour and submission type; defects per location, UTC hour and category. Triggers
-- keep them in the transaction of each write (insert, edit, move, delete); get_location_stats,
-- get_all_locations_stats and get_defect_trends read whole hours from them and only the partial hours at the
-- range's edges from the base rows, so their results are the same as 0007's.
--
-- Local days from UTC hours: an auction's day is the set of UTC hours whose start falls on that local date. That
-- is exact for every zone whose offset is a whole number of hours, DST included (transitions happen on the hour).
-- Zones with a half- or quarter-hour offset (Asia/Kolkata, Asia/Kathmandu, Australia/Adelaide, ...) have one UTC
-- hour per day that a local midnight cuts in two; get_defect_trends counts those hours from the base rows
-- (analytics.split_hours), so their days are exact too. The zone is read at query time: changing an auction's
-- zone needs no rebuild.
create schema analytics;
grant usage on schema analytics to authenticated, service_role;

-- No foreign keys: a cascade (location or auction deleted) would have the rollup rows checked against a parent
-- that is going away; rows of deleted locations are removed by the trigger on locations below.
create table analytics.submission_hours (
  location_id uuid not null,
  hour timestamptz not null,
  auction_id uuid not null,
  submissions integer not null default 0,
  cars bigint not null default 0,
  primary key (location_id, hour)
);
create table analytics.submission_type_hours (
  location_id uuid not null,
  hour timestamptz not null,
  submission_type_id uuid not null,
  auction_id uuid not null,
  entries integer not null default 0, -- a type is listed while it has entries, even of zero cars
  cars bigint not null default 0,
  primary key (location_id, hour, submission_type_id)
);
-- Per inspector too: a team member also sees their own inspections at locations they are not assigned to (0009),
-- so the rollup rows they may read are those of their locations plus their own, exactly as for the base rows.
create table analytics.defect_hours (
  location_id uuid not null,
  hour timestamptz not null,
  category_id uuid not null,
  user_id uuid, -- the inspector; null once the user is deleted
  auction_id uuid not null,
  defects integer not null default 0,
  unique nulls not distinct (location_id, hour, category_id, user_id)
);
create index defect_hours_auction_idx on analytics.defect_hours (auction_id, hour);
-- The same per local day of the auction's zone: a 90-day trend reads days, not hours (at 100 defects an hour per
-- location, hourly buckets by category and inspector hardly compress). Rebuilt when the auction's zone changes.
create table analytics.defect_days (
  location_id uuid not null,
  day date not null,
  category_id uuid not null,
  user_id uuid,
  auction_id uuid not null,
  defects integer not null default 0,
  unique nulls not distinct (location_id, day, category_id, user_id)
);
create index defect_days_auction_idx on analytics.defect_days (auction_id, day);

-- A rollup row is readable with its location (whose readers can read all its submissions and defects), and a
-- defect row by its inspector too: the same rule as the rows they summarise.
do $$
declare t text;
begin
  foreach t in array array['submission_hours', 'submission_type_hours', 'defect_hours', 'defect_days'] loop
    execute format('alter table analytics.%I enable row level security', t);
    execute format('grant select on analytics.%I to authenticated', t);
    execute format('grant all on analytics.%I to service_role', t);
  end loop;
end $$;
create policy submission_hours_select on analytics.submission_hours for select to authenticated
  using (location_id in (select l.id from public.locations l));
create policy submission_type_hours_select on analytics.submission_type_hours for select to authenticated
  using (location_id in (select l.id from public.locations l));
create policy defect_hours_select on analytics.defect_hours for select to authenticated
  using (location_id in (select l.id from public.locations l)
    or (user_id = (select auth.uid()) and auction_id in (select public.current_user_auction_ids())));
create policy defect_days_select on analytics.defect_days for select to authenticated
  using (location_id in (select l.id from public.locations l)
    or (user_id = (select auth.uid()) and auction_id in (select public.current_user_auction_ids())));

-- The local day of a UTC hour in an auction's zone.
create function analytics.local_day(p_hour timestamptz, p_auction_id uuid) returns date
language sql stable set search_path = '' as $$
  select (p_hour at time zone coalesce(nullif(a.settings ->> 'timezone', ''), 'UTC'))::date
  from public.auctions a where a.id = p_auction_id
$$;

create function analytics.hour_of(p_at timestamptz) returns timestamptz
language sql immutable set search_path = '' as $$ select pg_catalog.date_trunc('hour', p_at, 'UTC') $$;

-- The whole UTC hours [lo, hi) inside an inclusive range; lo = hi = p_start when there are none, so that
-- [p_start, lo) and [hi, p_end] always cover exactly the rest.
create function analytics.whole_hours(p_start timestamptz, p_end timestamptz, out lo timestamptz, out hi timestamptz)
language sql immutable set search_path = '' as $$
  select case when a < b then a else p_start end, case when a < b then b else p_start end
  from (select case when analytics.hour_of(p_start) = p_start then p_start
                    else analytics.hour_of(p_start) + interval '1 hour' end as a,
               analytics.hour_of(p_end + interval '1 microsecond') as b) x
$$;

-- UTC hours in [p_lo, p_hi) that a local midnight of p_tz falls strictly inside (none for whole-hour offsets).
create function analytics.split_hours(p_tz text, p_lo timestamptz, p_hi timestamptz) returns setof timestamptz
language sql stable rows 10 set search_path = '' as $$
  select analytics.hour_of(m.at)
  from generate_series((p_lo at time zone p_tz)::date, (p_hi at time zone p_tz)::date, interval '1 day') d
  cross join lateral (select (d::date::timestamp at time zone p_tz) as at) m
  where m.at <> analytics.hour_of(m.at) and analytics.hour_of(m.at) >= p_lo and analytics.hour_of(m.at) < p_hi
$$;

-- Adding deltas: one upsert in key order, so concurrent writers lock rows in the same order (no deadlock) and
-- never lose an update (ON CONFLICT DO UPDATE adds to the committed value). Deltas of a location (or auction) that
-- is being deleted are dropped: its rows go with it (location_deleted), and a cascade from a deleted auction may
-- remove the children after the auction, when its time zone can no longer be read.
create function analytics.add_submission_hours(p_location uuid[], p_hour timestamptz[], p_auction uuid[],
  p_submissions integer[], p_cars bigint[]) returns void
language sql volatile set search_path = '' as $$
  insert into analytics.submission_hours as h (location_id, hour, auction_id, submissions, cars)
  select l, hr, a, n, c from unnest(p_location, p_hour, p_auction, p_submissions, p_cars) as d(l, hr, a, n, c)
  where (n <> 0 or c <> 0) and exists (select from public.locations x where x.id = l)
  order by l, hr
  on conflict (location_id, hour) do update
    set submissions = h.submissions + excluded.submissions, cars = h.cars + excluded.cars
$$;
create function analytics.add_submission_type_hours(p_location uuid[], p_hour timestamptz[], p_type uuid[],
  p_auction uuid[], p_entries integer[], p_cars bigint[]) returns void
language sql volatile set search_path = '' as $$
  insert into analytics.submission_type_hours as h (location_id, hour, submission_type_id, auction_id, entries, cars)
  select l, hr, t, a, n, c from unnest(p_location, p_hour, p_type, p_auction, p_entries, p_cars) as d(l, hr, t, a, n, c)
  where (n <> 0 or c <> 0) and exists (select from public.locations x where x.id = l)
  order by l, hr, t
  on conflict (location_id, hour, submission_type_id) do update
    set entries = h.entries + excluded.entries, cars = h.cars + excluded.cars
$$;
create function analytics.add_defect_hours(p_location uuid[], p_hour timestamptz[], p_category uuid[],
  p_user uuid[], p_auction uuid[], p_defects integer[]) returns void
language sql volatile set search_path = '' as $$
  insert into analytics.defect_hours as h (location_id, hour, category_id, user_id, auction_id, defects)
  select l, hr, c, u, a, n from unnest(p_location, p_hour, p_category, p_user, p_auction, p_defects) as d(l, hr, c, u, a, n)
  where n <> 0 and exists (select from public.locations x where x.id = l)
  order by l, hr, c, u
  on conflict (location_id, hour, category_id, user_id) do update set defects = h.defects + excluded.defects;
  insert into analytics.defect_days as h (location_id, day, category_id, user_id, auction_id, defects)
  select l, analytics.local_day(hr, a), c, u, a, sum(n)::integer
  from unnest(p_location, p_hour, p_category, p_user, p_auction, p_defects) as d(l, hr, c, u, a, n)
  where n <> 0 and exists (select from public.locations x where x.id = l)
    and exists (select from public.auctions x where x.id = a)
  group by l, 2, c, u, a
  order by l, 2, c, u
  on conflict (location_id, day, category_id, user_id) do update set defects = h.defects + excluded.defects;
$$;

-- Entries (and their submissions) as signed deltas, bucketed by the submission's current location and hour. An
-- entry whose submission is gone was deleted with it, and the submission's own trigger already took it out.
create function analytics.apply_entries(p_submission uuid[], p_type uuid[], p_cars bigint[], p_sign integer[])
returns void language sql volatile set search_path = '' as $$
  -- Hour rows first: every writer locks hour rows before type rows.
  select analytics.add_submission_hours(array_agg(location_id), array_agg(hr), array_agg(auction_id),
    array_agg(0), array_agg(c))
  from (
    select s.location_id, analytics.hour_of(s.submitted_at) as hr, s.auction_id, sum(e.sign * e.cars)::bigint as c
    from unnest(p_submission, p_cars, p_sign) as e(sub, cars, sign)
    join public.lot_submissions s on s.id = e.sub
    group by 1, 2, 3) d;
  select analytics.add_submission_type_hours(array_agg(location_id), array_agg(hr), array_agg(t), array_agg(auction_id),
    array_agg(n), array_agg(c))
  from (
    select s.location_id, analytics.hour_of(s.submitted_at) as hr, e.t, s.auction_id,
      sum(e.sign)::integer as n, sum(e.sign * e.cars)::bigint as c
    from unnest(p_submission, p_type, p_cars, p_sign) as e(sub, t, cars, sign)
    join public.lot_submissions s on s.id = e.sub
    group by 1, 2, 3, 4) d;
$$;

create function analytics.entries_changed() returns trigger
language plpgsql security definer set search_path = '' as $$
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
end $$;

create function analytics.submissions_changed() returns trigger
language plpgsql security definer set search_path = '' as $$
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
end $$;

-- Before the row goes, while its entries are still there (the cascade removes them after the parent).
create function analytics.submission_deleting() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  perform analytics.add_submission_hours(array[old.location_id], array[analytics.hour_of(old.submitted_at)],
    array[old.auction_id], array[-1],
    array[-(select coalesce(sum(e.car_count), 0) from public.lot_submission_entries e where e.submission_id = old.id)]);
  perform analytics.add_submission_type_hours(array_agg(old.location_id), array_agg(analytics.hour_of(old.submitted_at)),
    array_agg(t), array_agg(old.auction_id), array_agg(-n), array_agg(-c))
  from (select e.submission_type_id as t, count(*)::integer as n, sum(e.car_count)::bigint as c
        from public.lot_submission_entries e where e.submission_id = old.id group by 1) d;
  return old;
end $$;

-- Defects, bucketed by their inspection's current location and hour; as for entries.
create function analytics.apply_defects(p_inspection uuid[], p_category uuid[], p_sign integer[])
returns void language sql volatile set search_path = '' as $$
  select analytics.add_defect_hours(array_agg(location_id), array_agg(hr), array_agg(c), array_agg(user_id),
    array_agg(auction_id), array_agg(n))
  from (
    select i.location_id, analytics.hour_of(i.submitted_at) as hr, d.c, i.user_id, i.auction_id,
      sum(d.sign)::integer as n
    from unnest(p_inspection, p_category, p_sign) as d(insp, c, sign)
    join public.quality_inspections i on i.id = d.insp
    group by 1, 2, 3, 4, 5) x
$$;

create function analytics.defects_changed() returns trigger
language plpgsql security definer set search_path = '' as $$
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
end $$;

create function analytics.inspections_moved() returns trigger
language plpgsql security definer set search_path = '' as $$
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
end $$;

create function analytics.inspection_deleting() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  perform analytics.add_defect_hours(array_agg(old.location_id), array_agg(analytics.hour_of(old.submitted_at)),
    array_agg(c), array_agg(old.user_id), array_agg(old.auction_id), array_agg(-n))
  from (select d.category_id as c, count(*)::integer as n from public.quality_defects d
        where d.inspection_id = old.id group by 1) x;
  return old;
end $$;

create function analytics.location_deleted() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  delete from analytics.submission_hours where location_id = old.id;
  delete from analytics.submission_type_hours where location_id = old.id;
  delete from analytics.defect_hours where location_id = old.id;
  delete from analytics.defect_days where location_id = old.id;
  return null;
end $$;

-- Transition tables allow one event per trigger, hence a trigger per event. The BEFORE DELETE triggers are named
-- to run after the other BEFORE triggers, so one that cancels the delete runs first.
create trigger rollup_entries_insert after insert on public.lot_submission_entries
  referencing new table as new_rows for each statement execute function analytics.entries_changed();
create trigger rollup_entries_update after update on public.lot_submission_entries
  referencing old table as old_rows new table as new_rows for each statement execute function analytics.entries_changed();
create trigger rollup_entries_delete after delete on public.lot_submission_entries
  referencing old table as old_rows for each statement execute function analytics.entries_changed();
create trigger rollup_submissions_insert after insert on public.lot_submissions
  referencing new table as new_rows for each statement execute function analytics.submissions_changed();
create trigger rollup_submissions_update after update on public.lot_submissions
  referencing old table as old_rows new table as new_rows for each statement execute function analytics.submissions_changed();
create trigger zz_rollup_submission_delete before delete on public.lot_submissions
  for each row execute function analytics.submission_deleting();
create trigger rollup_defects_insert after insert on public.quality_defects
  referencing new table as new_rows for each statement execute function analytics.defects_changed();
create trigger rollup_defects_update after update on public.quality_defects
  referencing old table as old_rows new table as new_rows for each statement execute function analytics.defects_changed();
create trigger rollup_defects_delete after delete on public.quality_defects
  referencing old table as old_rows for each statement execute function analytics.defects_changed();
create trigger rollup_inspections_update after update on public.quality_inspections
  referencing old table as old_rows new table as new_rows for each statement execute function analytics.inspections_moved();
create trigger zz_rollup_inspection_delete before delete on public.quality_inspections
  for each row execute function analytics.inspection_deleting();
create trigger rollup_location_delete after delete on public.locations
  for each row execute function analytics.location_deleted();

-- The rollups as the base rows say they should be (for one auction, or all with null).
create function analytics.expected_submission_hours(p_auction_id uuid)
returns table (location_id uuid, hour timestamptz, auction_id uuid, submissions integer, cars bigint)
language sql stable set search_path = '' as $$
  select s.location_id, analytics.hour_of(s.submitted_at), s.auction_id, count(*)::integer,
    coalesce(sum((select sum(e.car_count) from public.lot_submission_entries e where e.submission_id = s.id)), 0)::bigint
  from public.lot_submissions s where p_auction_id is null or s.auction_id = p_auction_id
  group by 1, 2, 3
$$;
create function analytics.expected_submission_type_hours(p_auction_id uuid)
returns table (location_id uuid, hour timestamptz, submission_type_id uuid, auction_id uuid, entries integer, cars bigint)
language sql stable set search_path = '' as $$
  select s.location_id, analytics.hour_of(s.submitted_at), e.submission_type_id, s.auction_id, count(*)::integer,
    sum(e.car_count)::bigint
  from public.lot_submissions s join public.lot_submission_entries e on e.submission_id = s.id
  where p_auction_id is null or s.auction_id = p_auction_id
  group by 1, 2, 3, 4
$$;
create function analytics.expected_defect_hours(p_auction_id uuid)
returns table (location_id uuid, hour timestamptz, category_id uuid, user_id uuid, auction_id uuid, defects integer)
language sql stable set search_path = '' as $$
  select i.location_id, analytics.hour_of(i.submitted_at), d.category_id, i.user_id, i.auction_id, count(*)::integer
  from public.quality_inspections i join public.quality_defects d on d.inspection_id = i.id
  where p_auction_id is null or i.auction_id = p_auction_id
  group by 1, 2, 3, 4, 5
$$;

create function analytics.expected_defect_days(p_auction_id uuid)
returns table (location_id uuid, day date, category_id uuid, user_id uuid, auction_id uuid, defects integer)
language sql stable set search_path = '' as $$
  select x.location_id, analytics.local_day(x.hour, x.auction_id), x.category_id, x.user_id, x.auction_id,
    sum(x.defects)::integer
  from analytics.expected_defect_hours(p_auction_id) x
  group by 1, 2, 3, 4, 5
$$;

-- Every bucket whose stored value differs from its base rows (rows of zeros count as absent), as the rollup's
-- name, the bucket's key and both values (null where the bucket is missing).
create function analytics.differences(p_auction_id uuid default null)
returns table (rollup text, location_id uuid, bucket jsonb, stored jsonb, expected jsonb)
language sql stable set search_path = '' set timezone = 'UTC' as $$ -- hours as text in keys, the same everywhere
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
$$;

-- Recomputes the rollups from the base rows. Writers wait (SHARE locks) so nothing changes halfway; reads go on.
create function analytics.rebuild(p_auction_id uuid default null) returns void
language plpgsql volatile set search_path = '' as $$
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
end $$;

-- Another zone regroups the auction's days. Writers wait (SHARE) so that none adds a day of the old zone after.
create function analytics.auction_zone_changed() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  lock table analytics.defect_hours in share mode;
  delete from analytics.defect_days where auction_id = new.id;
  insert into analytics.defect_days
  select location_id, analytics.local_day(hour, auction_id), category_id, user_id, auction_id, sum(defects)::integer
  from analytics.defect_hours where auction_id = new.id
  group by 1, 2, 3, 4, 5;
  return null;
end $$;
create trigger rollup_auction_zone after update of settings on public.auctions
  for each row when (old.settings ->> 'timezone' is distinct from new.settings ->> 'timezone')
  execute function analytics.auction_zone_changed();

revoke execute on all functions in schema analytics from public;
grant execute on function analytics.hour_of(timestamptz), analytics.whole_hours(timestamptz, timestamptz),
  analytics.split_hours(text, timestamptz, timestamptz) to authenticated, service_role;
grant execute on function analytics.differences(uuid), analytics.rebuild(uuid), analytics.expected_submission_hours(uuid),
  analytics.expected_submission_type_hours(uuid), analytics.expected_defect_hours(uuid),
  analytics.expected_defect_days(uuid), analytics.local_day(timestamptz, uuid) to service_role;

select analytics.rebuild(null);

-- The analytics RPCs of 0007, same signatures and results, reading whole hours from the rollups.
create or replace function public.get_location_stats(p_location_id uuid, p_start_date timestamptz, p_end_date timestamptz)
returns jsonb language plpgsql stable security invoker set search_path = '' as $$
declare
  v_lo timestamptz;
  v_hi timestamptz;
  v_total integer;
  v_cars integer;
begin
  if not exists (select 1 from public.locations where id = p_location_id) then
    raise exception 'location not found or not accessible' using errcode = '42501';
  end if;
  select lo, hi into v_lo, v_hi from analytics.whole_hours(p_start_date, p_end_date);
  select coalesce(sum(n), 0), coalesce(sum(c), 0) into v_total, v_cars from (
    select h.submissions as n, h.cars as c from analytics.submission_hours h
    where h.location_id = p_location_id and h.hour >= v_lo and h.hour < v_hi
    union all
    select 1, (select coalesce(sum(e.car_count), 0) from public.lot_submission_entries e where e.submission_id = s.id)
    from public.lot_submissions s
    where s.location_id = p_location_id
      and (s.submitted_at >= p_start_date and s.submitted_at < v_lo or s.submitted_at >= v_hi and s.submitted_at <= p_end_date)
  ) x;
  return jsonb_build_object(
    'total_submissions', v_total,
    'total_car_count', v_cars,
    'average_car_count', case when v_total = 0 then 0 else round(v_cars::numeric / v_total, 2) end,
    'by_type', coalesce((
      select jsonb_agg(jsonb_build_object('type_name', t.name, 'count', t.cars) order by t.cars desc, t.name)
      from (
        select st.id, st.name, sum(x.c)::integer as cars
        from (
          select h.submission_type_id as t, h.entries as n, h.cars as c from analytics.submission_type_hours h
          where h.location_id = p_location_id and h.hour >= v_lo and h.hour < v_hi
          union all
          select e.submission_type_id, 1, e.car_count
          from public.lot_submissions s join public.lot_submission_entries e on e.submission_id = s.id
          where s.location_id = p_location_id
            and (s.submitted_at >= p_start_date and s.submitted_at < v_lo or s.submitted_at >= v_hi and s.submitted_at <= p_end_date)
        ) x
        join public.submission_types st on st.id = x.t
        group by st.id, st.name
        having sum(x.n) > 0) t), '[]'::jsonb));
end $$;

create or replace function public.get_all_locations_stats(p_start_date timestamptz, p_end_date timestamptz)
returns table (location_id uuid, location_name text, auction_id uuid, total_submissions integer,
               total_car_count integer, average_car_count numeric, last_submitted_at timestamptz)
language sql stable security invoker set search_path = '' as $$
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
  order by l.name, l.id
$$;

-- Whole hours come from the rollups, the range's partial edge hours and the hours a local midnight splits
-- (half-hour zones) from base rows; row-level security picks the same rows in both. Each branch names the caller's
-- auctions (z) so that it reads an (auction_id, time) index.
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
    from analytics.defect_hours h cross join r left join w on w.auction_id = h.auction_id
    where h.auction_id in (select z.id from z) and h.hour >= r.lo and h.hour < r.hi
      and (w.auction_id is null or h.hour < w.ds or h.hour >= w.de)
      and (p_location_id is null or h.location_id = p_location_id)
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
