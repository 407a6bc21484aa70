-- Assigned locations: a team member works at the locations assigned to them. They read those locations and the
-- submissions and inspections made there (plus their own anywhere), submit and inspect only there, and see the
-- channels tied to those locations (channels without a location stay auction-wide). Admins and owners see all.
create table public.location_assignments (
  id uuid primary key default gen_random_uuid(),
  auction_id uuid not null references public.auctions (id) on delete cascade,
  location_id uuid not null references public.locations (id) on delete cascade,
  user_id uuid not null references public.users (id) on delete cascade,
  created_by uuid references public.users (id) on delete set null default auth.uid(),
  created_at timestamptz not null default now(),
  constraint location_assignments_unique unique (location_id, user_id)
);
create index location_assignments_user_idx on public.location_assignments (user_id);

-- The tenant key comes from the location; the assignee must be a member of that auction.
create function public.location_assignments_fill() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  select l.auction_id into new.auction_id from public.locations l where l.id = new.location_id;
  if new.auction_id is null then
    raise exception 'location not found' using errcode = '23503';
  end if;
  if not exists (select 1 from public.auction_members m where m.auction_id = new.auction_id and m.user_id = new.user_id) then
    raise exception 'the assignee is not a member of the location''s auction' using errcode = '23514';
  end if;
  return new;
end $$;
create trigger location_assignments_fill before insert or update on public.location_assignments
  for each row execute function public.location_assignments_fill();

-- Locations assigned to the caller in auctions they still belong to. Definer, so policies can use it without
-- recursing into the assignments' own policy.
create function public.current_user_assigned_location_ids() returns setof uuid
language sql stable security definer set search_path = '' as $$
  select la.location_id from public.location_assignments la
  join public.auction_members m on m.auction_id = la.auction_id and m.user_id = la.user_id
  where la.user_id = (select auth.uid())
$$;

-- Channels tied to a location the caller (a team member there) is not assigned to.
create function public.current_user_hidden_channel_ids() returns setof uuid
language sql stable security definer set search_path = '' as $$
  select c.id from public.channels c
  join public.auction_members m on m.auction_id = c.auction_id and m.user_id = (select auth.uid())
  where m.role = 'team_member' and c.location_id is not null
    and c.location_id not in (select public.current_user_assigned_location_ids())
$$;

-- The users to tell about an overdue location: its assignees, else its auction's admins and owners. For the
-- server's scheduler only.
create function public.location_recipients(p_location_id uuid) returns setof uuid
language sql stable security definer set search_path = '' as $$
  select la.user_id from public.location_assignments la
  join public.auction_members m on m.auction_id = la.auction_id and m.user_id = la.user_id
  where la.location_id = p_location_id
  union
  select m.user_id from public.locations l
  join public.auction_members m on m.auction_id = l.auction_id and m.role in ('owner', 'admin')
  where l.id = p_location_id
    and not exists (select 1 from public.location_assignments la2 join public.auction_members m2
                      on m2.auction_id = la2.auction_id and m2.user_id = la2.user_id
                    where la2.location_id = p_location_id)
$$;

revoke execute on function public.current_user_assigned_location_ids(), public.current_user_hidden_channel_ids(),
  public.location_recipients(uuid), public.location_assignments_fill() from public;
grant execute on function public.current_user_assigned_location_ids(), public.current_user_hidden_channel_ids()
  to authenticated, service_role;
grant execute on function public.location_recipients(uuid) to service_role;

alter table public.location_assignments enable row level security;
grant select, insert, update, delete on public.location_assignments to authenticated;
grant all on public.location_assignments to service_role;
create policy location_assignments_select on public.location_assignments for select to authenticated
  using (auction_id in (select public.admin_auction_ids())
    or user_id = (select auth.uid()));
select domain.create_tenant_policies('public.location_assignments', 'none');

-- Entries and defects carry their parent's location, as they carry its auction, so that their read policies
-- test a column against the caller's assigned locations instead of looking up every visible parent.
alter table public.lot_submission_entries add column location_id uuid; -- derived: the parent's foreign key governs it
update public.lot_submission_entries e set location_id = s.location_id from public.lot_submissions s
  where s.id = e.submission_id;
create or replace function public.lot_submission_entries_fill() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  select auction_id, location_id into new.auction_id, new.location_id
    from public.lot_submissions where id = new.submission_id;
  return new;
end $$;

alter table public.quality_defects add column location_id uuid; -- derived, as above
update public.quality_defects d set location_id = i.location_id from public.quality_inspections i
  where i.id = d.inspection_id;
create or replace function public.quality_defects_fill() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  select auction_id, location_id into new.auction_id, new.location_id
    from public.quality_inspections where id = new.inspection_id;
  if not exists (select 1 from public.defect_categories
                 where id = new.category_id and (auction_id is null or auction_id = new.auction_id)) then
    raise exception 'defect category belongs to another auction' using errcode = '23503';
  end if;
  return new;
end $$;

-- A submission or inspection moved to another location takes its children along.
create function public.children_follow_location() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  if tg_table_name = 'lot_submissions' then
    update public.lot_submission_entries set location_id = new.location_id where submission_id = new.id;
  else
    update public.quality_defects set location_id = new.location_id where inspection_id = new.id;
  end if;
  return null;
end $$;
revoke execute on function public.children_follow_location() from public;
create trigger lot_submissions_children_location after update of location_id on public.lot_submissions
  for each row when (old.location_id is distinct from new.location_id)
  execute function public.children_follow_location();
create trigger quality_inspections_children_location after update of location_id on public.quality_inspections
  for each row when (old.location_id is distinct from new.location_id)
  execute function public.children_follow_location();

-- Narrowed reads and writes for team members.
drop policy locations_select on public.locations;
create policy locations_select on public.locations for select to authenticated
  using (auction_id in (select public.admin_auction_ids())
    or id in (select public.current_user_assigned_location_ids()));

drop policy lot_submissions_select on public.lot_submissions;
create policy lot_submissions_select on public.lot_submissions for select to authenticated
  using (auction_id in (select public.admin_auction_ids())
    or location_id in (select public.current_user_assigned_location_ids())
    or (user_id = (select auth.uid()) and auction_id in (select public.current_user_auction_ids())));
drop policy lot_submissions_insert on public.lot_submissions;
create policy lot_submissions_insert on public.lot_submissions for insert to authenticated with check (
  auction_id in (select public.admin_auction_ids())
  or (user_id = (select auth.uid()) and location_id in (select public.current_user_assigned_location_ids())));

drop policy lot_submission_entries_select on public.lot_submission_entries;
create policy lot_submission_entries_select on public.lot_submission_entries for select to authenticated
  using (auction_id in (select public.admin_auction_ids())
    or location_id in (select public.current_user_assigned_location_ids())
    or exists (select 1 from public.lot_submissions s where s.id = submission_id and s.user_id = (select auth.uid())));

drop policy quality_inspections_select on public.quality_inspections;
create policy quality_inspections_select on public.quality_inspections for select to authenticated
  using (auction_id in (select public.admin_auction_ids())
    or location_id in (select public.current_user_assigned_location_ids())
    or (user_id = (select auth.uid()) and auction_id in (select public.current_user_auction_ids())));
drop policy quality_inspections_insert on public.quality_inspections;
create policy quality_inspections_insert on public.quality_inspections for insert to authenticated with check (
  auction_id in (select public.admin_auction_ids())
  or (user_id = (select auth.uid()) and location_id in (select public.current_user_assigned_location_ids())));

drop policy quality_defects_select on public.quality_defects;
create policy quality_defects_select on public.quality_defects for select to authenticated
  using (auction_id in (select public.admin_auction_ids())
    or location_id in (select public.current_user_assigned_location_ids())
    or exists (select 1 from public.quality_inspections i where i.id = inspection_id and i.user_id = (select auth.uid())));

drop policy channels_select on public.channels;
create policy channels_select on public.channels for select to authenticated using (
  auction_id in (select public.admin_auction_ids())
  or (not is_archived and auction_id in (select public.current_user_auction_ids())
      and id not in (select public.current_user_hidden_channel_ids())));

drop policy messages_select on public.messages;
create policy messages_select on public.messages for select to authenticated
  using (auction_id in (select public.admin_auction_ids())
    or (auction_id in (select public.current_user_auction_ids())
        and channel_id not in (select public.current_user_hidden_channel_ids())));
drop policy messages_insert on public.messages;
create policy messages_insert on public.messages for insert to authenticated with check (
  (select public.is_super_admin())
  or (auction_id in (select public.current_user_auction_ids()) and user_id = (select auth.uid())
      and public.channel_is_open(channel_id)
      and channel_id not in (select public.current_user_hidden_channel_ids())));
