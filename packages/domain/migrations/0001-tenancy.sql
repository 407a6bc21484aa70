-- Tenancy core: auctions, members, super admins, the membership helpers every policy uses,
-- and the event outbox that webhooks consume.
create table public.auctions (
  id uuid primary key default gen_random_uuid(),
  name text not null check (length(trim(name)) > 0),
  slug text not null unique check (slug ~ '^[a-z0-9]+(-[a-z0-9]+)*$'),
  is_active boolean not null default true,
  subscription_tier text not null default 'free' check (subscription_tier in ('free', 'pro', 'enterprise')),
  settings jsonb not null default '{"timezone": "UTC"}',
  created_at timestamptz not null default now(),
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
