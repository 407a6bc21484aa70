-- Tenancy core: auctions (with branding), members, super admins, the membership helpers every policy uses,
-- the event outbox that webhooks consume, and the row-level security of all of these.

-- Shared trigger: keeps updated_at current on every table that has one.
create function public.set_updated_at() returns trigger
language plpgsql as $$
begin
  new.updated_at := now();
  return new;
end $$;

create table public.auctions (
  id uuid primary key default gen_random_uuid(),
  name text not null check (length(trim(name)) > 0),
  slug text not null unique check (slug ~ '^[a-z0-9]+(-[a-z0-9]+)*$'),
  is_active boolean not null default true,
  subscription_tier text not null default 'free' check (subscription_tier in ('free', 'pro', 'enterprise')),
  settings jsonb not null default '{"timezone": "UTC"}' check (jsonb_typeof(settings) = 'object'),
  created_by uuid references public.users (id) on delete set null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index auctions_created_by_idx on public.auctions (created_by);

create table public.auction_branding (
  auction_id uuid primary key references public.auctions (id) on delete cascade,
  logo_url text,
  primary_color text check (primary_color ~ '^#[0-9A-Fa-f]{6}$'),
  secondary_color text check (secondary_color ~ '^#[0-9A-Fa-f]{6}$'),
  app_name text,
  updated_at timestamptz not null default now()
);

create table public.auction_members (
  id uuid primary key default gen_random_uuid(),
  auction_id uuid not null references public.auctions (id) on delete cascade,
  user_id uuid not null references public.users (id) on delete cascade,
  role text not null check (role in ('owner', 'admin', 'team_member')),
  joined_at timestamptz not null default now(),
  unique (auction_id, user_id)
);
-- The policy helpers look members up by user first (one index-only scan per statement).
create index auction_members_user_id_idx on public.auction_members (user_id, auction_id, role);

create table public.super_admins (
  user_id uuid primary key references public.users (id) on delete cascade,
  granted_by uuid references public.users (id) on delete set null,
  created_at timestamptz not null default now()
);

-- Helpers run as definer so policies on auction_members can use them without recursing into RLS.
create function public.is_super_admin() returns boolean
language sql stable security definer set search_path = '' as $$
  select exists (select 1 from public.super_admins where user_id = (select auth.uid()))
$$;

create function public.get_user_auction_role(p_auction_id uuid) returns text
language sql stable security definer set search_path = '' as $$
  select role from public.auction_members where auction_id = p_auction_id and user_id = (select auth.uid())
$$;

create function public.is_auction_member(p_auction_id uuid) returns boolean
language sql stable security definer set search_path = '' as $$
  select exists (select 1 from public.auction_members where auction_id = p_auction_id and user_id = (select auth.uid()))
$$;

create function public.is_auction_admin_or_above(p_auction_id uuid) returns boolean
language sql stable security definer set search_path = '' as $$
  select exists (
    select 1 from public.auction_members
    where auction_id = p_auction_id and user_id = (select auth.uid()) and role in ('owner', 'admin')
  )
$$;

-- Set-returning forms for policies: `auction_id in (select public.current_user_auction_ids())` runs the lookup
-- once per statement (a hashed subplan) instead of once per row, which is what keeps list reads fast.
create function public.current_user_auction_ids() returns setof uuid
language sql stable security definer set search_path = '' as $$
  select auction_id from public.auction_members where user_id = (select auth.uid())
$$;

create function public.current_user_admin_auction_ids() returns setof uuid
language sql stable security definer set search_path = '' as $$
  select auction_id from public.auction_members where user_id = (select auth.uid()) and role in ('owner', 'admin')
$$;

-- What tenant policies test a row's auction against, the super-admin bypass folded in (every auction for a
-- super admin), so a policy reads `auction_id in (select public.member_auction_ids())`: one lookup per statement.
-- The bodies are written out rather than calling the helpers above: each nested definer call costs a little.
create function public.member_auction_ids() returns setof uuid
language sql stable security definer set search_path = '' as $$
  select auction_id from public.auction_members where user_id = (select auth.uid())
  union all
  select id from public.auctions where exists (select 1 from public.super_admins where user_id = (select auth.uid()))
$$;

create function public.admin_auction_ids() returns setof uuid
language sql stable security definer set search_path = '' as $$
  select auction_id from public.auction_members where user_id = (select auth.uid()) and role in ('owner', 'admin')
  union all
  select id from public.auctions where exists (select 1 from public.super_admins where user_id = (select auth.uid()))
$$;

-- Everyone who shares at least one auction with the caller (for the users profile policy).
create function public.current_user_co_member_ids() returns setof uuid
language sql stable security definer set search_path = '' as $$
  select distinct other.user_id
  from public.auction_members mine
  join public.auction_members other on other.auction_id = mine.auction_id
  where mine.user_id = (select auth.uid())
$$;

-- A display name for event payloads and views: full name, else the e-mail's local part. Plain SQL over the row's
-- values, so views that join users inline it (no call per row).
create function public.display_name(p_full_name text, p_email text) returns text
language sql immutable parallel safe as $$
  select coalesce(nullif(trim(p_full_name), ''), split_part(p_email, '@', 1), 'Deleted user')
$$;

create function public.user_display_name(p_user_id uuid) returns text
language sql stable security definer set search_path = '' as $$
  select public.display_name(full_name, email) from public.users where id = p_user_id
$$;
revoke execute on function public.user_display_name(uuid) from public;

-- {id, name} for event payloads, or null.
create function public.user_ref(p_user_id uuid) returns jsonb
language sql stable security definer set search_path = '' as $$
  select case when p_user_id is null then null
    else jsonb_build_object('id', p_user_id, 'name', coalesce(public.user_display_name(p_user_id), 'Deleted user')) end
$$;
revoke execute on function public.user_ref(uuid) from public;

-- The outbox: one row per domain event, written in the same transaction as the change.
create table public.event_outbox (
  id uuid primary key default gen_random_uuid(),
  auction_id uuid not null references public.auctions (id) on delete cascade,
  event_type text not null,
  occurred_at timestamptz not null default clock_timestamp(),
  data jsonb not null default '{}'
);
create index event_outbox_auction_id_idx on public.event_outbox (auction_id, occurred_at);

create function public.emit_event(p_auction_id uuid, p_event_type text, p_data jsonb) returns uuid
language sql volatile security definer set search_path = '' as $$
  insert into public.event_outbox (auction_id, event_type, data) values (p_auction_id, p_event_type, p_data)
  returning id
$$;
revoke execute on function public.emit_event(uuid, text, jsonb) from public;

-- Auction creation: the creator is recorded and becomes the owner. created_by/created_at are forced so the
-- "creator sees it within the creating transaction" policy below cannot be forged.
-- settings.timezone must name an IANA zone Postgres knows (analytics and operating hours are computed in it).
create function public.assert_time_zone(p_zone text) returns void
language plpgsql stable set search_path = '' as $$
begin
  if not exists (select 1 from pg_catalog.pg_timezone_names where name = p_zone) then
    raise exception 'unknown time zone: %', p_zone using errcode = '22023';
  end if;
end $$;
revoke execute on function public.assert_time_zone(text) from public;
grant execute on function public.assert_time_zone(text) to authenticated, service_role;

create function public.auctions_before_insert() returns trigger
language plpgsql as $$
begin
  if (select auth.uid()) is not null then
    new.created_by := (select auth.uid());
    new.created_at := now();
  end if;
  new.updated_at := new.created_at;
  if not (new.settings ? 'timezone') then
    new.settings := new.settings || '{"timezone": "UTC"}';
  end if;
  perform public.assert_time_zone(new.settings ->> 'timezone');
  return new;
end $$;
create trigger auctions_before_insert before insert on public.auctions
  for each row execute function public.auctions_before_insert();

create function public.auctions_before_update() returns trigger
language plpgsql as $$
begin
  new.created_by := old.created_by;
  new.created_at := old.created_at;
  new.updated_at := now();
  if new.settings is distinct from old.settings and not (new.settings ? 'timezone') then
    new.settings := new.settings || jsonb_build_object('timezone', coalesce(old.settings ->> 'timezone', 'UTC'));
  end if;
  perform public.assert_time_zone(new.settings ->> 'timezone');
  return new;
end $$;
create trigger auctions_before_update before update on public.auctions
  for each row execute function public.auctions_before_update();

create function public.auctions_add_owner() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  if new.created_by is not null then
    insert into public.auction_members (auction_id, user_id, role) values (new.id, new.created_by, 'owner')
    on conflict (auction_id, user_id) do update set role = 'owner';
  end if;
  return null;
end $$;
create trigger auctions_add_owner after insert on public.auctions
  for each row execute function public.auctions_add_owner();

create trigger auction_branding_updated_at before update on public.auction_branding
  for each row execute function public.set_updated_at();

-- An auction always keeps at least one owner while it has members (a cascade from a deleted auction is fine).
create function public.auction_members_keep_owner() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  if exists (select 1 from public.auctions where id = old.auction_id)
     and exists (select 1 from public.auction_members where auction_id = old.auction_id)
     and not exists (select 1 from public.auction_members where auction_id = old.auction_id and role = 'owner') then
    raise exception 'an auction must keep at least one owner' using errcode = 'P0001';
  end if;
  return null;
end $$;
create trigger auction_members_keep_owner after update of role or delete on public.auction_members
  for each row execute function public.auction_members_keep_owner();

-- Row-level security ---------------------------------------------------------------------------------------
alter table public.auctions enable row level security;
alter table public.auction_branding enable row level security;
alter table public.auction_members enable row level security;
alter table public.super_admins enable row level security;
alter table public.event_outbox enable row level security;

grant usage on schema public to anon, authenticated, service_role;
grant select, insert, delete on public.auctions to authenticated;
grant update (name, slug, is_active, settings) on public.auctions to authenticated;
grant select, insert, update, delete on public.auction_branding to authenticated;
grant select on public.auction_members to authenticated;
grant select, insert, delete on public.super_admins to authenticated;
grant select on public.event_outbox to authenticated;
grant all on public.auctions, public.auction_branding, public.auction_members, public.super_admins,
  public.event_outbox to service_role;

grant execute on function public.is_super_admin(), public.get_user_auction_role(uuid), public.is_auction_member(uuid),
  public.is_auction_admin_or_above(uuid), public.current_user_auction_ids(), public.current_user_admin_auction_ids(),
  public.current_user_co_member_ids(), public.member_auction_ids(), public.admin_auction_ids()
  to anon, authenticated, service_role;
-- Not for authenticated: as definer they would name any user by id. Only definer triggers and RPCs call them.
grant execute on function public.user_display_name(uuid), public.user_ref(uuid) to service_role;

-- The four policies of a tenant table (one with an auction_id column): p_readers ('member', 'admin', or 'none'
-- when the table writes its own read policy) read; admins and owners write, and with p_author_column set, members
-- also write the rows that column names them in. Migrations call it; the policies are ordinary ones afterwards.
-- It lives in the `domain` schema, which no request role may use and the data interface does not expose.
create schema domain;
create function domain.create_tenant_policies(p_table regclass, p_readers text, p_author_column text default null)
returns void language plpgsql set search_path = '' as $$
declare
  v_name text := (select relname from pg_catalog.pg_class where oid = p_table);
  v_write text := 'auction_id in (select public.admin_auction_ids())';
begin
  if p_readers not in ('member', 'admin', 'none') then
    raise exception 'p_readers must be member, admin or none, not %', p_readers;
  end if;
  if p_author_column is not null then
    v_write := format('%s or (auction_id in (select public.current_user_auction_ids()) and %I = (select auth.uid()))',
      v_write, p_author_column);
  end if;
  if p_readers <> 'none' then
    execute format('create policy %I on %s for select to authenticated using (auction_id in (select public.%s))',
      v_name || '_select', p_table, p_readers || '_auction_ids()');
  end if;
  execute format('create policy %I on %s for insert to authenticated with check (%s)', v_name || '_insert', p_table,
    v_write);
  execute format('create policy %I on %s for update to authenticated using (%s) with check (%3$s)',
    v_name || '_update', p_table, v_write);
  execute format('create policy %I on %s for delete to authenticated using (%s)', v_name || '_delete', p_table,
    v_write);
end $$;
revoke execute on function domain.create_tenant_policies(regclass, text, text) from public;

create policy auctions_select on public.auctions for select to authenticated using (
  (select public.is_super_admin())
  or id in (select public.current_user_auction_ids())
  -- INSERT ... RETURNING checks this before the owner row (added by an AFTER trigger) exists.
  or (created_by = (select auth.uid()) and created_at = now())
);
create policy auctions_insert on public.auctions for insert to authenticated with check ((select auth.uid()) is not null);
create policy auctions_update on public.auctions for update to authenticated
  using ((select public.is_super_admin()) or id in (select public.current_user_admin_auction_ids()))
  with check ((select public.is_super_admin()) or id in (select public.current_user_admin_auction_ids()));
create policy auctions_delete on public.auctions for delete to authenticated
  using ((select public.is_super_admin()) or public.get_user_auction_role(id) = 'owner');

select domain.create_tenant_policies('public.auction_branding', 'member');

-- Membership changes go through the RPCs (0002), which enforce the role rules; members only read.
create policy auction_members_select on public.auction_members for select to authenticated
  using (auction_id in (select public.member_auction_ids()));

create policy super_admins_all on public.super_admins for all to authenticated
  using ((select public.is_super_admin())) with check ((select public.is_super_admin()));

create policy event_outbox_select on public.event_outbox for select to authenticated
  using (auction_id in (select public.admin_auction_ids()));

-- A user sees the profiles of people who share an auction with them (their own is auth-core's policy).
create policy users_select_co_members on public.users for select to authenticated
  using ((select public.is_super_admin()) or id in (select public.current_user_co_member_ids()));
