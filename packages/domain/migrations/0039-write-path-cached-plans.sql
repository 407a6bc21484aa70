-- The helpers every chat message, inspection, submission and report runs through, as PL/pgSQL with the same
-- statements: as SQL functions with a SET clause (their search_path) they planned their statements again at every
-- call (0021 and 0037 did the same for the read policies' helpers and two dashboard RPCs). On the demo seed, a
-- POST /rest/v1/messages cost PostgreSQL 4.1 ms, of which the message rollups took 1.3 ms and emit_event 1.0 ms,
-- mostly planning. The two one-expression helpers lose the clause instead, so that PostgreSQL inlines them into the
-- statements that call them per row (their bodies name everything by schema).

create or replace function analytics.add_message_days(p_channel uuid[], p_user uuid[], p_at timestamptz[],
  p_auction uuid[], p_sign integer[])
returns void language plpgsql set search_path = '' as $$
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
end $$;

create or replace function domain.emit_event(p_auction_id uuid, p_event_type text, p_data jsonb) returns uuid
language plpgsql security definer set search_path = '' as $$
declare
  v_id uuid;
begin
  insert into public.event_outbox (auction_id, event_type, data) values (p_auction_id, p_event_type, p_data)
  returning id into v_id;
  return v_id;
end $$;

create or replace function public.user_display_name(p_user_id uuid) returns text
language plpgsql stable security definer set search_path = '' as $$
begin
  return (select public.display_name(full_name, email) from public.users where id = p_user_id);
end $$;

create or replace function public.user_ref(p_user_id uuid) returns jsonb
language plpgsql stable security definer set search_path = '' as $$
begin
  if p_user_id is null then
    return null;
  end if;
  return jsonb_build_object('id', p_user_id, 'name', coalesce(public.user_display_name(p_user_id), 'Deleted user'));
end $$;

create or replace function domain.inspection_event_data(p_inspection_id uuid) returns jsonb
language plpgsql stable security definer set search_path = '' as $$
begin
  return (
    select jsonb_build_object(
      'id', r.id, 'location_id', r.location_id, 'location_name', r.location_name, 'user_id', r.user_id,
      'inspector_name', r.inspector_name, 'vin_number', r.vin_number, 'barcode', r.barcode,
      'submitted_at', r.submitted_at, 'defect_count', r.defect_count,
      'defects', coalesce((
        select jsonb_agg(jsonb_build_object('category', c.name, 'notes', d.notes) order by d.created_at, d.id)
        from public.quality_defects d join public.defect_categories c on c.id = d.category_id
        where d.inspection_id = r.id), '[]'::jsonb))
    from public.recent_quality_inspections r where r.id = p_inspection_id);
end $$;

create or replace function domain.submission_event_data(p_submission_id uuid) returns jsonb
language plpgsql stable security definer set search_path = '' as $$
begin
  return (
    select (to_jsonb(r) - 'auction_id' - 'entry_count') || jsonb_build_object('entries', coalesce((
        select jsonb_agg(jsonb_build_object('type_id', en.submission_type_id, 'type_name', t.name,
          'car_count', en.car_count, 'image_url', en.image_url) order by lst.display_order nulls last, t.name)
        from public.lot_submission_entries en
        join public.submission_types t on t.id = en.submission_type_id
        left join public.location_submission_types lst
          on lst.location_id = r.location_id and lst.submission_type_id = en.submission_type_id
        where en.submission_id = r.id), '[]'::jsonb))
    from public.recent_submissions r where r.id = p_submission_id);
end $$;

create or replace function domain.problem_event_data(p_problem_id uuid) returns jsonb
language plpgsql stable security definer set search_path = '' as $$
begin
  return (
    select jsonb_build_object(
      'id', p.id, 'issue_name', p.issue_name, 'area', p.area, 'location_id', p.location_id,
      'location_name', v.location_name, 'status', p.status,
      'prepared_by', public.user_ref(p.prepared_by), 'assigned_to', public.user_ref(p.assigned_to),
      'action_count', v.action_count, 'completed_action_count', v.completed_action_count,
      'submitted_at', p.submitted_at, 'updated_at', p.updated_at)
    from public.problem_reports p join public.active_problem_reports v on v.id = p.id where p.id = p_problem_id);
end $$;

-- The checks of the insert and update policies of messages and of the rows under a submission, an inspection or a
-- report (entries, defects, facts, causes, actions): once per written row.
create or replace function public.channel_is_open(p_channel_id uuid) returns boolean
language plpgsql stable set search_path = '' as $$
begin
  return exists (select 1 from public.channels where id = p_channel_id and not is_archived);
end $$;

create or replace function public.can_write_submission(p_submission_id uuid) returns boolean
language plpgsql stable security definer set search_path = '' as $$
begin
  return exists (
    select 1 from public.lot_submissions s
    where s.id = p_submission_id
      and (s.auction_id in (select public.admin_auction_ids())
        or (s.user_id = auth.uid() and s.auction_id in (select public.member_auction_ids()))));
end $$;

create or replace function public.can_write_inspection(p_inspection_id uuid) returns boolean
language plpgsql stable security definer set search_path = '' as $$
begin
  return exists (
    select 1 from public.quality_inspections i
    where i.id = p_inspection_id
      and (i.auction_id in (select public.admin_auction_ids())
        or (i.user_id = auth.uid() and i.auction_id in (select public.member_auction_ids()))));
end $$;

create or replace function public.can_write_problem(p_problem_id uuid) returns boolean
language plpgsql stable security definer set search_path = '' as $$
begin
  return exists (
    select 1 from public.problem_reports p
    where p.id = p_problem_id
      and (p.auction_id in (select public.admin_auction_ids())
        or (p.auction_id in (select public.member_auction_ids())
            and auth.uid() in (p.prepared_by, p.assigned_to))));
end $$;

alter function analytics.hour_of(timestamptz) reset search_path;
alter function analytics.utc_day(timestamptz) reset search_path;
