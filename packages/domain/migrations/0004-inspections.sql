-- Quality inspections (VIN and barcode), defects and defect categories (shared defaults plus per-auction ones),
-- the recent_quality_inspections view and the inspection events.

create table public.defect_categories (
  id uuid primary key default gen_random_uuid(),
  auction_id uuid references public.auctions (id) on delete cascade,  -- null: a shared default
  name text not null check (length(trim(name)) > 0),
  display_order integer not null default 0,
  is_active boolean not null default true,
  created_at timestamptz not null default now()
);
create unique index defect_categories_name_key
  on public.defect_categories (coalesce(auction_id, '00000000-0000-0000-0000-000000000000'::uuid), lower(name));
create index defect_categories_order_idx on public.defect_categories (display_order, name);

insert into public.defect_categories (name, display_order) values
  ('Scratch', 10), ('Dent', 20), ('Paint damage', 30), ('Glass damage', 40), ('Tire or wheel damage', 50),
  ('Interior damage', 60), ('Mechanical issue', 70), ('Missing parts', 80), ('Rust', 90), ('Other', 100);

create table public.quality_inspections (
  id uuid primary key default gen_random_uuid(),
  auction_id uuid not null references public.auctions (id) on delete cascade,
  location_id uuid not null,
  user_id uuid references public.users (id) on delete set null default auth.uid(),
  -- ISO 3779: 17 characters, letters I, O and Q never appear.
  vin_number text not null check (vin_number ~ '^[A-HJ-NPR-Z0-9]{17}$'),
  barcode text,
  submitted_at timestamptz not null default now(),
  notes text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  -- The location must be one of the inspection's auction.
  foreign key (location_id, auction_id) references public.locations (id, auction_id) on delete cascade
);
create index quality_inspections_auction_idx on public.quality_inspections (auction_id, submitted_at desc);
create index quality_inspections_location_idx on public.quality_inspections (location_id, submitted_at desc);
create index quality_inspections_vin_idx on public.quality_inspections (auction_id, vin_number);
create trigger quality_inspections_updated_at before update on public.quality_inspections
  for each row execute function public.set_updated_at();

create table public.quality_defects (
  id uuid primary key default gen_random_uuid(),
  auction_id uuid not null references public.auctions (id) on delete cascade,
  inspection_id uuid not null references public.quality_inspections (id) on delete cascade,
  category_id uuid not null references public.defect_categories (id) on delete restrict,
  notes text,
  created_at timestamptz not null default now()
);
create index quality_defects_inspection_idx on public.quality_defects (inspection_id);
create index quality_defects_category_idx on public.quality_defects (category_id);
create index quality_defects_auction_idx on public.quality_defects (auction_id, created_at);

create function public.quality_inspections_fill() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  new.vin_number := upper(trim(new.vin_number));
  if tg_op = 'UPDATE' then
    new.auction_id := old.auction_id;
  end if;
  return new;
end $$;
create trigger quality_inspections_fill before insert or update on public.quality_inspections
  for each row execute function public.quality_inspections_fill();

create function public.quality_defects_fill() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  select auction_id into new.auction_id from public.quality_inspections where id = new.inspection_id;
  if not exists (select 1 from public.defect_categories
                 where id = new.category_id and (auction_id is null or auction_id = new.auction_id)) then
    raise exception 'defect category belongs to another auction' using errcode = '23503';
  end if;
  return new;
end $$;
create trigger quality_defects_fill before insert or update on public.quality_defects
  for each row execute function public.quality_defects_fill();

create view public.recent_quality_inspections with (security_invoker = true) as
select
  i.id, i.auction_id, i.location_id, l.name as location_name, i.user_id,
  public.display_name(u.full_name, u.email) as inspector_name,
  i.vin_number, i.barcode, i.submitted_at,
  coalesce(dc.defect_count, 0)::integer as defect_count
from public.quality_inspections i
join public.locations l on l.id = i.location_id
left join public.users u on u.id = i.user_id
-- A lateral join (not a scalar subquery) lets ORDER BY submitted_at LIMIT n stop after n index rows.
left join lateral (select count(*) as defect_count from public.quality_defects d where d.inspection_id = i.id) dc on true;

-- Row-level security ---------------------------------------------------------------------------------------
alter table public.defect_categories enable row level security;
alter table public.quality_inspections enable row level security;
alter table public.quality_defects enable row level security;

grant select, insert, update, delete on public.defect_categories, public.quality_inspections, public.quality_defects
  to authenticated;
grant all on public.defect_categories, public.quality_inspections, public.quality_defects to service_role;
grant select on public.recent_quality_inspections to authenticated, service_role;

create policy defect_categories_select on public.defect_categories for select to authenticated
  using (auction_id is null or auction_id in (select public.member_auction_ids()));
-- Shared defaults (auction_id null) are written only by super admins.
create policy defect_categories_insert on public.defect_categories for insert to authenticated
  with check (auction_id in (select public.admin_auction_ids()) or (auction_id is null and (select public.is_super_admin())));
create policy defect_categories_update on public.defect_categories for update to authenticated
  using (auction_id in (select public.admin_auction_ids()) or (auction_id is null and (select public.is_super_admin())))
  with check (auction_id in (select public.admin_auction_ids()) or (auction_id is null and (select public.is_super_admin())));
create policy defect_categories_delete on public.defect_categories for delete to authenticated
  using (auction_id in (select public.admin_auction_ids()) or (auction_id is null and (select public.is_super_admin())));

select domain.create_tenant_policies('public.quality_inspections', 'member', 'user_id');

create function public.can_write_inspection(p_inspection_id uuid) returns boolean
language sql stable security definer set search_path = '' as $$
  select exists (
    select 1 from public.quality_inspections i
    where i.id = p_inspection_id
      and (i.auction_id in (select public.admin_auction_ids())
        or (i.user_id = auth.uid() and i.auction_id in (select public.member_auction_ids()))))
$$;
grant execute on function public.can_write_inspection(uuid) to authenticated, service_role;

create policy quality_defects_select on public.quality_defects for select to authenticated
  using (auction_id in (select public.member_auction_ids()));
create policy quality_defects_insert on public.quality_defects for insert to authenticated
  with check (public.can_write_inspection(inspection_id));
create policy quality_defects_update on public.quality_defects for update to authenticated
  using (public.can_write_inspection(inspection_id))
  with check (public.can_write_inspection(inspection_id));
create policy quality_defects_delete on public.quality_defects for delete to authenticated
  using (public.can_write_inspection(inspection_id));

-- Events ---------------------------------------------------------------------------------------------------
create function public.inspection_event_data(p_inspection_id uuid) returns jsonb
language sql stable security definer set search_path = '' as $$
  select jsonb_build_object(
    'id', r.id, 'location_id', r.location_id, 'location_name', r.location_name, 'user_id', r.user_id,
    'inspector_name', r.inspector_name, 'vin_number', r.vin_number, 'barcode', r.barcode,
    'submitted_at', r.submitted_at, 'defect_count', r.defect_count,
    'defects', coalesce((
      select jsonb_agg(jsonb_build_object('category', c.name, 'notes', d.notes) order by d.created_at, d.id)
      from public.quality_defects d join public.defect_categories c on c.id = d.category_id
      where d.inspection_id = r.id), '[]'::jsonb))
  from public.recent_quality_inspections r where r.id = p_inspection_id
$$;
revoke execute on function public.inspection_event_data(uuid) from public;

-- inspection.created fires at commit so defects inserted in the same transaction are included. Through REST the
-- app posts the inspection and its defects in two requests: the defects then arrive as inspection.defect_added.
create function public.quality_inspections_created_event() returns trigger
language plpgsql security definer set search_path = '' as $$
declare
  v jsonb := public.inspection_event_data(new.id);
begin
  if v is not null then
    perform public.emit_event(new.auction_id, 'inspection.created', v);
  end if;
  return null;
end $$;
create constraint trigger quality_inspections_created_event after insert on public.quality_inspections
  deferrable initially deferred for each row execute function public.quality_inspections_created_event();

create function public.quality_defects_added_event() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  perform public.emit_event(new.auction_id, 'inspection.defect_added', (
    select jsonb_build_object(
      'id', new.id, 'inspection_id', new.inspection_id, 'category_id', new.category_id, 'category', c.name,
      'notes', new.notes, 'vin_number', i.vin_number, 'barcode', i.barcode, 'location_id', i.location_id,
      'location_name', l.name, 'added_by', public.user_ref(auth.uid()), 'created_at', new.created_at)
    from public.quality_inspections i
    join public.locations l on l.id = i.location_id
    join public.defect_categories c on c.id = new.category_id
    where i.id = new.inspection_id));
  return null;
end $$;
create trigger quality_defects_added_event after insert on public.quality_defects
  for each row execute function public.quality_defects_added_event();
