-- Rock reports (A3 problem reports): the report with its status workflow, 5W2H facts, potential causes,
-- actions, the active_problem_reports view and the problem events.

create table public.problem_reports (
  id uuid primary key default gen_random_uuid(),
  auction_id uuid not null references public.auctions (id) on delete cascade,
  issue_name text not null check (length(trim(issue_name)) > 0),
  area text,
  location_id uuid references public.locations (id) on delete set null,
  prepared_by uuid references public.users (id) on delete set null default auth.uid(),
  assigned_to uuid references public.users (id) on delete set null,
  status text not null default 'open' check (status in ('open', 'in_progress', 'closed')),
  submitted_at timestamptz not null default now(),
  closed_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index problem_reports_auction_idx on public.problem_reports (auction_id, status, submitted_at desc);
create index problem_reports_location_idx on public.problem_reports (location_id);
create index problem_reports_assigned_idx on public.problem_reports (assigned_to);
create index problem_reports_prepared_idx on public.problem_reports (prepared_by);

create table public.problem_facts (
  id uuid primary key default gen_random_uuid(),
  auction_id uuid not null references public.auctions (id) on delete cascade,
  problem_id uuid not null unique references public.problem_reports (id) on delete cascade,
  who text, what text, where_field text, when_field text, how_many text, how_much text,
  created_by uuid references public.users (id) on delete set null default auth.uid(),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

create table public.potential_causes (
  id uuid primary key default gen_random_uuid(),
  auction_id uuid not null references public.auctions (id) on delete cascade,
  problem_id uuid not null references public.problem_reports (id) on delete cascade,
  cause_text text not null check (length(trim(cause_text)) > 0),
  order_number integer not null default 0,
  created_by uuid references public.users (id) on delete set null default auth.uid(),
  created_at timestamptz not null default now()
);
create index potential_causes_problem_idx on public.potential_causes (problem_id, order_number);

create table public.problem_actions (
  id uuid primary key default gen_random_uuid(),
  auction_id uuid not null references public.auctions (id) on delete cascade,
  problem_id uuid not null references public.problem_reports (id) on delete cascade,
  issue text,
  countermeasure text,
  responsible_person text,
  completion_date date,
  status text not null default 'pending' check (status in ('pending', 'in_progress', 'complete')),
  completed_at timestamptz,
  created_by uuid references public.users (id) on delete set null default auth.uid(),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index problem_actions_problem_idx on public.problem_actions (problem_id);

create trigger problem_reports_updated_at before update on public.problem_reports
  for each row execute function public.set_updated_at();
create trigger problem_facts_updated_at before update on public.problem_facts
  for each row execute function public.set_updated_at();

-- Parent checks and the status workflow: open <-> in_progress, any -> closed,
-- closed -> open for admins and above (reopening). Anything else is P0001 with a clear message.
create function public.problem_reports_check() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  if tg_op = 'UPDATE' then
    new.auction_id := old.auction_id;
    new.prepared_by := old.prepared_by;
    new.submitted_at := old.submitted_at;
  end if;
  if new.location_id is not null
     and not exists (select 1 from public.locations where id = new.location_id and auction_id = new.auction_id) then
    raise exception 'location belongs to another auction' using errcode = '23503';
  end if;
  if new.assigned_to is not null and (tg_op = 'INSERT' or new.assigned_to is distinct from old.assigned_to)
     and not exists (select 1 from public.auction_members where auction_id = new.auction_id and user_id = new.assigned_to) then
    raise exception 'a report can only be assigned to a member of the auction' using errcode = 'P0001';
  end if;
  if tg_op = 'INSERT' then
    if new.status <> 'open' then
      raise exception 'a new report starts open' using errcode = 'P0001';
    end if;
    return new;
  end if;
  if new.status is distinct from old.status then
    if not (
      (old.status = 'open' and new.status = 'in_progress')
      or (old.status = 'in_progress' and new.status = 'open')
      or new.status = 'closed'
      or (old.status = 'closed' and new.status = 'open')) then
      raise exception 'a report cannot move from % to %', old.status, new.status
        using errcode = 'P0001', hint = 'allowed: open -> in_progress, in_progress -> open, any -> closed, closed -> open';
    end if;
    if old.status = 'closed' and not (public.is_super_admin() or auth.role() = 'service_role'
                                      or public.is_auction_admin_or_above(new.auction_id)) then
      raise exception 'only auction admins and owners can reopen a closed report' using errcode = '42501';
    end if;
    new.closed_at := case when new.status = 'closed' then now() end;
  end if;
  return new;
end $$;
create trigger problem_reports_check before insert or update on public.problem_reports
  for each row execute function public.problem_reports_check();

create function public.problem_children_fill() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  select auction_id into new.auction_id from public.problem_reports where id = new.problem_id;
  if tg_table_name = 'problem_actions' then
    if new.status = 'complete' and (tg_op = 'INSERT' or old.status is distinct from 'complete') then
      new.completed_at := now();
    elsif new.status <> 'complete' then
      new.completed_at := null;
    end if;
    if tg_op = 'UPDATE' then
      new.updated_at := now();
    end if;
  end if;
  return new;
end $$;
create trigger problem_facts_fill before insert or update on public.problem_facts
  for each row execute function public.problem_children_fill();
create trigger potential_causes_fill before insert or update on public.potential_causes
  for each row execute function public.problem_children_fill();
create trigger problem_actions_fill before insert or update on public.problem_actions
  for each row execute function public.problem_children_fill();

create view public.active_problem_reports with (security_invoker = true) as
select
  p.id, p.auction_id, p.issue_name, p.area, l.name as location_name, p.status,
  public.display_name(pu.full_name, pu.email) as prepared_by_name,
  case when p.assigned_to is not null
    then public.display_name(au.full_name, au.email) end as assigned_to_name,
  coalesce(a.action_count, 0)::integer as action_count,
  coalesce(a.completed_action_count, 0)::integer as completed_action_count,
  p.submitted_at
from public.problem_reports p
left join public.locations l on l.id = p.location_id
left join public.users pu on pu.id = p.prepared_by
left join public.users au on au.id = p.assigned_to
left join lateral (
  select count(*) as action_count, count(*) filter (where pa.status = 'complete') as completed_action_count
  from public.problem_actions pa where pa.problem_id = p.id
) a on true;

-- Row-level security ---------------------------------------------------------------------------------------
alter table public.problem_reports enable row level security;
alter table public.problem_facts enable row level security;
alter table public.potential_causes enable row level security;
alter table public.problem_actions enable row level security;

grant select, insert, update, delete on public.problem_reports, public.problem_facts, public.potential_causes,
  public.problem_actions to authenticated;
grant all on public.problem_reports, public.problem_facts, public.potential_causes, public.problem_actions to service_role;
grant select on public.active_problem_reports to authenticated, service_role;

-- Members write reports they prepared or are assigned to; admins write every report of the auction.
create policy problem_reports_select on public.problem_reports for select to authenticated
  using (auction_id in (select public.member_auction_ids()));
create policy problem_reports_insert on public.problem_reports for insert to authenticated with check (
  auction_id in (select public.admin_auction_ids())
  or (auction_id in (select public.current_user_auction_ids()) and prepared_by = (select auth.uid())));
create policy problem_reports_update on public.problem_reports for update to authenticated
  using (auction_id in (select public.admin_auction_ids())
    or (auction_id in (select public.current_user_auction_ids())
        and (prepared_by = (select auth.uid()) or assigned_to = (select auth.uid()))))
  with check (auction_id in (select public.member_auction_ids()));
create policy problem_reports_delete on public.problem_reports for delete to authenticated
  using (auction_id in (select public.admin_auction_ids())
    or (auction_id in (select public.current_user_auction_ids()) and prepared_by = (select auth.uid())));

create function public.can_write_problem(p_problem_id uuid) returns boolean
language sql stable security definer set search_path = '' as $$
  select exists (
    select 1 from public.problem_reports p
    where p.id = p_problem_id
      and (p.auction_id in (select public.admin_auction_ids())
        or (p.auction_id in (select public.member_auction_ids())
            and auth.uid() in (p.prepared_by, p.assigned_to))))
$$;
grant execute on function public.can_write_problem(uuid) to authenticated, service_role;

create policy problem_facts_select on public.problem_facts for select to authenticated
  using (auction_id in (select public.member_auction_ids()));
create policy problem_facts_insert on public.problem_facts for insert to authenticated
  with check (public.can_write_problem(problem_id));
create policy problem_facts_update on public.problem_facts for update to authenticated
  using (public.can_write_problem(problem_id))
  with check (public.can_write_problem(problem_id));
create policy problem_facts_delete on public.problem_facts for delete to authenticated
  using (public.can_write_problem(problem_id));
create policy potential_causes_select on public.potential_causes for select to authenticated
  using (auction_id in (select public.member_auction_ids()));
create policy potential_causes_insert on public.potential_causes for insert to authenticated
  with check (public.can_write_problem(problem_id));
create policy potential_causes_update on public.potential_causes for update to authenticated
  using (public.can_write_problem(problem_id))
  with check (public.can_write_problem(problem_id));
create policy potential_causes_delete on public.potential_causes for delete to authenticated
  using (public.can_write_problem(problem_id));
create policy problem_actions_select on public.problem_actions for select to authenticated
  using (auction_id in (select public.member_auction_ids()));
create policy problem_actions_insert on public.problem_actions for insert to authenticated
  with check (public.can_write_problem(problem_id));
create policy problem_actions_update on public.problem_actions for update to authenticated
  using (public.can_write_problem(problem_id))
  with check (public.can_write_problem(problem_id));
create policy problem_actions_delete on public.problem_actions for delete to authenticated
  using (public.can_write_problem(problem_id));

-- Events ---------------------------------------------------------------------------------------------------
create function public.problem_event_data(p_problem_id uuid) returns jsonb
language sql stable security definer set search_path = '' as $$
  select jsonb_build_object(
    'id', p.id, 'issue_name', p.issue_name, 'area', p.area, 'location_id', p.location_id,
    'location_name', v.location_name, 'status', p.status,
    'prepared_by', public.user_ref(p.prepared_by), 'assigned_to', public.user_ref(p.assigned_to),
    'action_count', v.action_count, 'completed_action_count', v.completed_action_count,
    'submitted_at', p.submitted_at, 'updated_at', p.updated_at)
  from public.problem_reports p join public.active_problem_reports v on v.id = p.id where p.id = p_problem_id
$$;
revoke execute on function public.problem_event_data(uuid) from public;

create function public.problem_reports_events() returns trigger
language plpgsql security definer set search_path = '' as $$
declare
  v jsonb := public.problem_event_data(new.id);
begin
  if tg_op = 'INSERT' then
    perform public.emit_event(new.auction_id, 'problem.created', v);
    if new.assigned_to is not null then
      perform public.emit_event(new.auction_id, 'problem.assigned',
        (v - 'action_count' - 'completed_action_count') || jsonb_build_object(
          'previous_assigned_to', null, 'assigned_by', public.user_ref(auth.uid())));
    end if;
    return null;
  end if;
  if new.status is distinct from old.status then
    perform public.emit_event(new.auction_id, 'problem.status_changed',
      (v - 'status' - 'submitted_at') || jsonb_build_object('previous_status', old.status, 'new_status', new.status));
  end if;
  if new.assigned_to is distinct from old.assigned_to and new.assigned_to is not null then
    perform public.emit_event(new.auction_id, 'problem.assigned',
      (v - 'action_count' - 'completed_action_count') || jsonb_build_object(
        'previous_assigned_to', public.user_ref(old.assigned_to), 'assigned_by', public.user_ref(auth.uid())));
  end if;
  return null;
end $$;
create trigger problem_reports_events after insert or update on public.problem_reports
  for each row execute function public.problem_reports_events();

create function public.problem_actions_completed_event() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  if new.status = 'complete' and (tg_op = 'INSERT' or old.status is distinct from 'complete') then
    perform public.emit_event(new.auction_id, 'problem.action_completed', (
      select jsonb_build_object(
        'id', new.id, 'problem_id', new.problem_id, 'issue_name', v.issue_name, 'location_id', p.location_id,
        'location_name', v.location_name, 'issue', new.issue, 'countermeasure', new.countermeasure,
        'responsible_person', new.responsible_person, 'completion_date', new.completion_date,
        'completed_at', new.completed_at, 'completed_by', public.user_ref(auth.uid()),
        'action_count', v.action_count, 'completed_action_count', v.completed_action_count)
      from public.problem_reports p join public.active_problem_reports v on v.id = p.id where p.id = new.problem_id));
  end if;
  return null;
end $$;
create trigger problem_actions_completed_event after insert or update of status on public.problem_actions
  for each row execute function public.problem_actions_completed_event();
