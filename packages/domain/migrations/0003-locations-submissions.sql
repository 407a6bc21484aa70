-- Locations, submission types (ordered per location), lot submissions with entries, the recent_submissions view,
-- the submission RPCs and the submission events.
-- Every child table carries auction_id (the tenant key), filled by a trigger from its parent, so each policy is
-- one hashed membership lookup per statement instead of a join per row. A reference to a sibling row (a location,
-- a submission type) is a foreign key on (id, auction_id), so it cannot point into another auction.

create table public.locations (
  id uuid primary key default gen_random_uuid(),
  auction_id uuid not null references public.auctions (id) on delete cascade,
  name text not null check (length(trim(name)) > 0),
  address text,
  operating_hours_start time,
  operating_hours_end time,
  submission_frequency_minutes integer not null default 60 check (submission_frequency_minutes > 0),
  is_active boolean not null default true,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (id, auction_id)
);
create index locations_auction_id_idx on public.locations (auction_id, is_active, name);
create trigger locations_updated_at before update on public.locations
  for each row execute function public.set_updated_at();

create table public.submission_types (
  id uuid primary key default gen_random_uuid(),
  auction_id uuid not null references public.auctions (id) on delete cascade,
  name text not null check (length(trim(name)) > 0),
  description text,
  is_active boolean not null default true,
  created_at timestamptz not null default now(),
  unique (auction_id, name),
  unique (id, auction_id)
);

create table public.location_submission_types (
  location_id uuid not null references public.locations (id) on delete cascade,
  submission_type_id uuid not null,
  auction_id uuid not null references public.auctions (id) on delete cascade,
  display_order integer not null default 0,
  is_required boolean not null default false,
  primary key (location_id, submission_type_id),
  foreign key (submission_type_id, auction_id) references public.submission_types (id, auction_id) on delete cascade
);
create index location_submission_types_type_idx on public.location_submission_types (submission_type_id);
create index location_submission_types_auction_idx on public.location_submission_types (auction_id);

create table public.lot_submissions (
  id uuid primary key default gen_random_uuid(),
  auction_id uuid not null references public.auctions (id) on delete cascade,
  location_id uuid not null,
  user_id uuid references public.users (id) on delete set null default auth.uid(),
  submitted_at timestamptz not null default now(),
  image_url text,
  notes text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  foreign key (location_id, auction_id) references public.locations (id, auction_id) on delete cascade
);
create index lot_submissions_auction_idx on public.lot_submissions (auction_id, submitted_at desc);
create index lot_submissions_location_idx on public.lot_submissions (location_id, submitted_at desc);
create index lot_submissions_user_idx on public.lot_submissions (user_id);
create trigger lot_submissions_updated_at before update on public.lot_submissions
  for each row execute function public.set_updated_at();

create table public.lot_submission_entries (
  id uuid primary key default gen_random_uuid(),
  auction_id uuid not null references public.auctions (id) on delete cascade,
  submission_id uuid not null references public.lot_submissions (id) on delete cascade,
  submission_type_id uuid not null,
  car_count integer not null check (car_count >= 0),
  image_url text,
  created_at timestamptz not null default now(),
  foreign key (submission_type_id, auction_id) references public.submission_types (id, auction_id) on delete restrict
);
create index lot_submission_entries_submission_idx on public.lot_submission_entries (submission_id);
create index lot_submission_entries_type_idx on public.lot_submission_entries (submission_type_id);

-- Tenant keys come from the parent row, whatever the client sent (the foreign keys on (id, auction_id) then refuse
-- a sibling from another auction); a submission never moves between auctions.
create function public.location_submission_types_fill() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  select auction_id into new.auction_id from public.locations where id = new.location_id;
  return new;
end $$;
create trigger location_submission_types_fill before insert or update on public.location_submission_types
  for each row execute function public.location_submission_types_fill();

create function public.lot_submissions_fill() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  if tg_op = 'UPDATE' then
    new.auction_id := old.auction_id;
  else
    select auction_id into new.auction_id from public.locations where id = new.location_id;
  end if;
  return new;
end $$;
create trigger lot_submissions_fill before insert or update of location_id, auction_id on public.lot_submissions
  for each row execute function public.lot_submissions_fill();

create function public.lot_submission_entries_fill() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  select auction_id into new.auction_id from public.lot_submissions where id = new.submission_id;
  return new;
end $$;
create trigger lot_submission_entries_fill before insert or update on public.lot_submission_entries
  for each row execute function public.lot_submission_entries_fill();

-- The submission in the shape clients read: exactly the interface's fields.
create view public.recent_submissions with (security_invoker = true) as
select
  s.id, s.auction_id, s.location_id, l.name as location_name, s.user_id,
  public.display_name(u.full_name, u.email) as submitted_by,
  s.submitted_at,
  coalesce(e.entries, '[]'::jsonb) as entries,
  coalesce(e.entry_count, 0)::integer as entry_count,
  coalesce(e.total_car_count, 0)::integer as total_car_count,
  s.image_url
from public.lot_submissions s
join public.locations l on l.id = s.location_id
left join public.users u on u.id = s.user_id
left join lateral (
  select
    jsonb_agg(jsonb_build_object('type_name', t.name, 'car_count', en.car_count,
      'image_url', en.image_url) order by lst.display_order nulls last, t.name) as entries,
    count(*) as entry_count,
    sum(en.car_count) as total_car_count
  from public.lot_submission_entries en
  join public.submission_types t on t.id = en.submission_type_id
  left join public.location_submission_types lst
    on lst.location_id = s.location_id and lst.submission_type_id = en.submission_type_id
  where en.submission_id = s.id
) e on true;

-- Row-level security ---------------------------------------------------------------------------------------
alter table public.locations enable row level security;
alter table public.submission_types enable row level security;
alter table public.location_submission_types enable row level security;
alter table public.lot_submissions enable row level security;
alter table public.lot_submission_entries enable row level security;

grant select, insert, update, delete on public.locations, public.submission_types, public.location_submission_types,
  public.lot_submissions, public.lot_submission_entries to authenticated;
grant all on public.locations, public.submission_types, public.location_submission_types,
  public.lot_submissions, public.lot_submission_entries to service_role;
grant select on public.recent_submissions to authenticated, service_role;

-- Members read; admins and above write (locations, types, their order).
select domain.create_tenant_policies('public.locations', 'member');
select domain.create_tenant_policies('public.submission_types', 'member');
select domain.create_tenant_policies('public.location_submission_types', 'member');

-- Submissions: members read all and write their own; admins write everything in the auction.
select domain.create_tenant_policies('public.lot_submissions', 'member', 'user_id');

-- True when the caller may write the given submission's entries (its author or an admin of its auction).
create function public.can_write_submission(p_submission_id uuid) returns boolean
language sql stable security definer set search_path = '' as $$
  select exists (
    select 1 from public.lot_submissions s
    where s.id = p_submission_id
      and (s.auction_id in (select public.admin_auction_ids())
        or (s.user_id = auth.uid() and s.auction_id in (select public.member_auction_ids()))))
$$;
grant execute on function public.can_write_submission(uuid) to authenticated, service_role;

create policy lot_submission_entries_select on public.lot_submission_entries for select to authenticated
  using (auction_id in (select public.member_auction_ids()));
create policy lot_submission_entries_insert on public.lot_submission_entries for insert to authenticated
  with check (public.can_write_submission(submission_id));
create policy lot_submission_entries_update on public.lot_submission_entries for update to authenticated
  using (public.can_write_submission(submission_id))
  with check (public.can_write_submission(submission_id));
create policy lot_submission_entries_delete on public.lot_submission_entries for delete to authenticated
  using (public.can_write_submission(submission_id));

-- RPCs -----------------------------------------------------------------------------------------------------
create function public.get_location_submission_types_ordered(p_location_id uuid)
returns table (id uuid, type_name text, description text, display_order integer, is_required boolean)
language sql stable security invoker set search_path = '' as $$
  select t.id, t.name, t.description, lst.display_order, lst.is_required
  from public.location_submission_types lst
  join public.submission_types t on t.id = lst.submission_type_id
  where lst.location_id = p_location_id and t.is_active
  order by lst.display_order, t.name
$$;

create function public.get_submission_with_entries(p_submission_id uuid) returns jsonb
language plpgsql stable security invoker set search_path = '' as $$
declare
  v jsonb;
begin
  select to_jsonb(r) into v from public.recent_submissions r where r.id = p_submission_id;
  if v is null then
    raise exception 'submission not found' using errcode = 'PT404';
  end if;
  return v;
end $$;

-- One submission and its entries in one transaction. SECURITY INVOKER: the insert policies decide who may submit.
create function public.create_lot_submission_with_entries(
  p_location_id uuid, p_entries jsonb, p_image_url text default null, p_notes text default null
) returns jsonb language plpgsql volatile security invoker set search_path = '' as $$
declare
  v_location public.locations;
  v_id uuid;
  v_bad uuid;
begin
  select * into v_location from public.locations where id = p_location_id;
  if not found then
    raise exception 'location not found or not accessible' using errcode = '42501';
  end if;
  if not v_location.is_active then
    raise exception 'location is not active' using errcode = 'P0001';
  end if;
  if p_entries is null or jsonb_typeof(p_entries) <> 'array' or jsonb_array_length(p_entries) = 0 then
    raise exception 'p_entries must be a non-empty array of {submission_type_id, car_count, image_url}' using errcode = '22023';
  end if;
  if exists (select 1 from jsonb_array_elements(p_entries) x
             where jsonb_typeof(x -> 'car_count') <> 'number' or (x ->> 'car_count')::numeric < 0
                or (x ->> 'car_count')::numeric <> trunc((x ->> 'car_count')::numeric)
                or (x ->> 'submission_type_id') is null) then
    raise exception 'each entry needs a submission_type_id and a whole car_count >= 0' using errcode = '22023';
  end if;
  select (x ->> 'submission_type_id')::uuid into v_bad from jsonb_array_elements(p_entries) x
  where not exists (select 1 from public.location_submission_types lst
                    where lst.location_id = p_location_id and lst.submission_type_id = (x ->> 'submission_type_id')::uuid)
  limit 1;
  if v_bad is not null then
    raise exception 'submission type % is not configured for this location', v_bad using errcode = 'P0001';
  end if;
  insert into public.lot_submissions (auction_id, location_id, user_id, image_url, notes)
  values (v_location.auction_id, p_location_id, auth.uid(), p_image_url, p_notes)
  returning id into v_id;
  insert into public.lot_submission_entries (auction_id, submission_id, submission_type_id, car_count, image_url)
  select v_location.auction_id, v_id, (x ->> 'submission_type_id')::uuid, (x ->> 'car_count')::integer, x ->> 'image_url'
  from jsonb_array_elements(p_entries) x;
  return public.get_submission_with_entries(v_id);
end $$;

revoke execute on function public.get_location_submission_types_ordered(uuid), public.get_submission_with_entries(uuid),
  public.create_lot_submission_with_entries(uuid, jsonb, text, text) from public;
grant execute on function public.get_location_submission_types_ordered(uuid), public.get_submission_with_entries(uuid),
  public.create_lot_submission_with_entries(uuid, jsonb, text, text) to authenticated, service_role;

-- Events ---------------------------------------------------------------------------------------------------
-- The submission event payload (the view's fields, entries with their type_id), read as the owner so it does
-- not depend on the caller's view of users.
create function public.submission_event_data(p_submission_id uuid) returns jsonb
language sql stable security definer set search_path = '' as $$
  select (to_jsonb(r) - 'auction_id' - 'entry_count') || jsonb_build_object('entries', coalesce((
      select jsonb_agg(jsonb_build_object('type_id', en.submission_type_id, 'type_name', t.name, 'car_count', en.car_count,
        'image_url', en.image_url) order by lst.display_order nulls last, t.name)
      from public.lot_submission_entries en
      join public.submission_types t on t.id = en.submission_type_id
      left join public.location_submission_types lst
        on lst.location_id = r.location_id and lst.submission_type_id = en.submission_type_id
      where en.submission_id = r.id), '[]'::jsonb))
  from public.recent_submissions r where r.id = p_submission_id
$$;
revoke execute on function public.submission_event_data(uuid) from public;

-- submission.created fires at commit (a deferred constraint trigger), when the entries written in the same
-- transaction exist, so the payload is complete however the submission was made (RPC or two REST calls in one tx).
create function public.lot_submissions_created_event() returns trigger
language plpgsql security definer set search_path = '' as $$
declare
  v jsonb := public.submission_event_data(new.id);
begin
  if v is not null then
    perform public.emit_event(new.auction_id, 'submission.created', v);
  end if;
  return null;
end $$;
create constraint trigger lot_submissions_created_event after insert on public.lot_submissions
  deferrable initially deferred for each row execute function public.lot_submissions_created_event();

-- submission.updated: once per changed submission row, and once per entry changed after the submission's
-- own transaction (entries inserted with a new submission belong to submission.created).
create function public.lot_submissions_updated_event() returns trigger
language plpgsql security definer set search_path = '' as $$
declare
  v_id uuid;
  v_auction uuid;
begin
  if tg_table_name = 'lot_submissions' then
    if (to_jsonb(new) - 'updated_at') = (to_jsonb(old) - 'updated_at') then
      return null;
    end if;
    v_id := new.id;
    v_auction := new.auction_id;
  else
    v_id := coalesce(new.submission_id, old.submission_id);
    select auction_id into v_auction from public.lot_submissions
    where id = v_id and created_at < now();  -- skip entries written in the submission's own transaction
    if v_auction is null then
      return null;
    end if;
  end if;
  perform public.emit_event(v_auction, 'submission.updated',
    public.submission_event_data(v_id) || jsonb_build_object('updated_by', public.user_ref(auth.uid()), 'updated_at', now()));
  return null;
end $$;
create trigger lot_submissions_updated_event after update on public.lot_submissions
  for each row execute function public.lot_submissions_updated_event();
create trigger lot_submission_entries_updated_event after insert or update or delete on public.lot_submission_entries
  for each row execute function public.lot_submissions_updated_event();
