-- Per-user records (push tokens, e-mail log), account anonymization, and the reporting tables
-- (datasets, saved reports, query audit log) that import-csv, generate-sql and execute-query use.

create table public.user_push_tokens (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references public.users (id) on delete cascade default auth.uid(),
  token text not null unique,
  platform text not null check (platform in ('ios', 'android')),
  device_name text,
  created_at timestamptz not null default now(),
  last_used_at timestamptz
);
create index user_push_tokens_user_idx on public.user_push_tokens (user_id);

create table public.email_log (
  id uuid primary key default gen_random_uuid(),
  user_id uuid references public.users (id) on delete set null,
  to_email text not null,
  template text not null,
  status text not null check (status in ('sent', 'failed', 'stored')),
  provider_id text,
  error text,
  created_at timestamptz not null default now()
);
create index email_log_user_idx on public.email_log (user_id, created_at desc);

create table public.datasets (
  id uuid primary key default gen_random_uuid(),
  auction_id uuid not null references public.auctions (id) on delete cascade,
  name text not null check (length(trim(name)) > 0),
  description text,
  columns jsonb not null default '[]',
  row_count integer not null default 0 check (row_count >= 0),
  status text not null default 'pending' check (status in ('pending', 'importing', 'ready', 'failed')),
  -- The table holding the imported rows (one table per dataset, created by import-csv).
  table_name text unique check (table_name ~ '^[a-z_][a-z0-9_]{0,62}$'),
  created_by uuid references public.users (id) on delete set null default auth.uid(),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index datasets_auction_idx on public.datasets (auction_id, created_at desc);
create trigger datasets_updated_at before update on public.datasets
  for each row execute function public.set_updated_at();

create table public.saved_reports (
  id uuid primary key default gen_random_uuid(),
  auction_id uuid not null references public.auctions (id) on delete cascade,
  dataset_id uuid references public.datasets (id) on delete cascade,
  name text not null check (length(trim(name)) > 0),
  sql text not null,
  visualization text not null default 'table' check (visualization in ('bar', 'line', 'pie', 'area', 'table')),
  is_public boolean not null default false,
  created_by uuid references public.users (id) on delete set null default auth.uid(),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index saved_reports_auction_idx on public.saved_reports (auction_id, created_at desc);
create trigger saved_reports_updated_at before update on public.saved_reports
  for each row execute function public.set_updated_at();

create table public.query_audit_log (
  id uuid primary key default gen_random_uuid(),
  auction_id uuid not null references public.auctions (id) on delete cascade,
  dataset_id uuid references public.datasets (id) on delete set null,
  user_id uuid references public.users (id) on delete set null default auth.uid(),
  natural_language_query text,
  sql text,
  status text not null default 'ok',
  error text,
  row_count integer,
  duration_ms integer,
  created_at timestamptz not null default now()
);
create index query_audit_log_auction_idx on public.query_audit_log (auction_id, created_at desc);

-- Row-level security ---------------------------------------------------------------------------------------
alter table public.user_push_tokens enable row level security;
alter table public.email_log enable row level security;
alter table public.datasets enable row level security;
alter table public.saved_reports enable row level security;
alter table public.query_audit_log enable row level security;

grant select, insert, update, delete on public.user_push_tokens, public.datasets, public.saved_reports to authenticated;
grant select on public.email_log to authenticated;
grant select, insert on public.query_audit_log to authenticated;
grant all on public.user_push_tokens, public.email_log, public.datasets, public.saved_reports, public.query_audit_log
  to service_role;

create policy user_push_tokens_own on public.user_push_tokens for all to authenticated
  using (user_id = (select auth.uid())) with check (user_id = (select auth.uid()));

create policy email_log_select on public.email_log for select to authenticated
  using (user_id = (select auth.uid()) or (select public.is_super_admin()));

select domain.create_tenant_policies('public.datasets', 'member');
select domain.create_tenant_policies('public.saved_reports', 'member', 'created_by');

create policy query_audit_log_select on public.query_audit_log for select to authenticated
  using (auction_id in (select public.admin_auction_ids())
    or user_id = (select auth.uid()));
create policy query_audit_log_insert on public.query_audit_log for insert to authenticated with check (
  auction_id in (select public.current_user_auction_ids()) and user_id = (select auth.uid()));

-- RPCs -----------------------------------------------------------------------------------------------------
create function public.log_email(p_to_email text, p_template text, p_status text, p_provider_id text default null,
                                 p_error text default null) returns uuid
language plpgsql volatile security definer set search_path = '' as $$
declare
  v_id uuid;
begin
  if auth.uid() is null and auth.role() is distinct from 'service_role' then
    raise exception 'sign in to log e-mail' using errcode = '42501';
  end if;
  insert into public.email_log (user_id, to_email, template, status, provider_id, error)
  values (auth.uid(), p_to_email, p_template, p_status, p_provider_id, p_error)
  returning id into v_id;
  return v_id;
end $$;

-- Scrubs a person while keeping the auction's records: profile and auth identity emptied, sessions, tokens and
-- memberships removed; authored rows stay and show as "Deleted user". A sole owner of an auction with other
-- members must transfer ownership first.
create function public.anonymize_user(p_user_id uuid default null) returns jsonb
language plpgsql volatile security definer set search_path = '' as $$
declare
  v_target uuid := coalesce(p_user_id, auth.uid());
  v_blocking uuid;
begin
  if v_target is null then
    raise exception 'sign in to delete your account' using errcode = '42501';
  end if;
  if v_target is distinct from auth.uid() and not (public.is_super_admin() or auth.role() = 'service_role') then
    raise exception 'only super admins can anonymize other users' using errcode = '42501';
  end if;
  select m.auction_id into v_blocking from public.auction_members m
  where m.user_id = v_target and m.role = 'owner'
    and not exists (select 1 from public.auction_members o where o.auction_id = m.auction_id and o.role = 'owner' and o.user_id <> v_target)
    and exists (select 1 from public.auction_members o where o.auction_id = m.auction_id and o.user_id <> v_target)
  limit 1;
  if v_blocking is not null then
    raise exception 'transfer ownership of auction % before deleting this account', v_blocking using errcode = 'P0001';
  end if;
  delete from public.auction_members where user_id = v_target;
  delete from public.user_push_tokens where user_id = v_target;
  delete from public.channel_read_state where user_id = v_target;
  delete from public.channel_notification_preferences where user_id = v_target;
  delete from public.super_admins where user_id = v_target;
  delete from auth.sessions where user_id = v_target;
  delete from auth.identities where user_id = v_target;
  delete from auth.one_time_tokens where user_id = v_target;
  update auth.users set email = null, phone = null, encrypted_password = null, raw_user_meta_data = '{}',
    email_confirmed_at = null, phone_confirmed_at = null, deleted_at = now(), banned_until = 'infinity', updated_at = now()
  where id = v_target;
  -- After auth.users: its sync trigger would otherwise keep the old name.
  update public.users set email = null, full_name = 'Deleted user', avatar_url = null, updated_at = now()
  where id = v_target;
  return jsonb_build_object('user_id', v_target, 'anonymized_at', now());
end $$;

revoke execute on function public.log_email(text, text, text, text, text), public.anonymize_user(uuid) from public;
grant execute on function public.log_email(text, text, text, text, text), public.anonymize_user(uuid)
  to authenticated, service_role;
