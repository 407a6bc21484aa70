-- The admin console's RPCs (/console, docs/console.md): what a super admin sees and does about accounts, which lives
-- in the auth schema where no policy reaches, and an overview of auctions with counts. Each refuses anyone but a
-- super admin (42501) before it reads anything; the console calls them through /rest/v1/rpc like any client.

create function public.admin_require_super_admin() returns void
language plpgsql stable security definer set search_path = '' as $$
begin
  if not public.is_super_admin() then
    raise exception 'only super admins may do this' using errcode = '42501';
  end if;
end $$;

-- Whether the search text is empty or one of the fields contains it, case-insensitive and literally (no patterns).
create function public.admin_matches(p_query text, variadic p_fields text[]) returns boolean
language sql immutable set search_path = '' as $$
  select coalesce(p_query, '') = ''
    or exists (select 1 from unnest(p_fields) f where strpos(lower(coalesce(f, '')), lower(p_query)) > 0)
$$;

-- Users whose e-mail or name contains the text (case-insensitive, no pattern characters), newest first.
create function public.admin_search_users(p_query text default '', p_limit integer default 50)
returns table (
  id uuid, email text, full_name text, banned_until timestamptz, last_sign_in_at timestamptz,
  created_at timestamptz, session_count integer
)
language plpgsql stable security definer set search_path = '' as $$
begin
  perform public.admin_require_super_admin();
  return query
    select u.id, u.email, p.full_name, u.banned_until, u.last_sign_in_at, u.created_at,
      (select count(*)::integer from auth.sessions s where s.user_id = u.id)
    from auth.users u left join public.users p on p.id = u.id
    where u.deleted_at is null
      and public.admin_matches(p_query, u.email, p.full_name)
    order by u.created_at desc, u.id
    limit least(greatest(coalesce(p_limit, 50), 1), 200);
end $$;

-- Ban (about a hundred years, as GoTrue's longest ban_duration) or unban. A ban also ends the user's sessions, so
-- refresh tokens stop working at once; access tokens already issued run out on their own.
create function public.admin_set_user_banned(p_user_id uuid, p_banned boolean) returns jsonb
language plpgsql volatile security definer set search_path = '' as $$
declare
  until timestamptz;
begin
  perform public.admin_require_super_admin();
  if p_banned and p_user_id = auth.uid() then
    raise exception 'a super admin cannot ban themselves' using errcode = '22023';
  end if;
  update auth.users u
     set banned_until = case when p_banned then now() + interval '876000 hours' end, updated_at = now()
   where u.id = p_user_id and u.deleted_at is null
  returning u.banned_until into until;
  if not found then
    raise exception 'user not found' using errcode = 'P0002';
  end if;
  if p_banned then
    delete from auth.sessions s where s.user_id = p_user_id;
  end if;
  return jsonb_build_object('id', p_user_id, 'banned_until', until);
end $$;

-- A user's open sessions: when and from where they were opened, and their assurance level.
create function public.admin_user_sessions(p_user_id uuid)
returns table (
  id uuid, aal text, user_agent text, ip text, created_at timestamptz, refreshed_at timestamptz,
  not_after timestamptz
)
language plpgsql stable security definer set search_path = '' as $$
begin
  perform public.admin_require_super_admin();
  return query
    select s.id, s.aal, s.user_agent, host(s.ip), s.created_at, s.refreshed_at, s.not_after
    from auth.sessions s where s.user_id = p_user_id
    order by s.created_at desc;
end $$;

-- Auctions whose name or slug contains the text, with their counts of locations and members (the data interface
-- keeps aggregates off, as PostgREST does). Invoker's rights: row-level security already shows super admins all.
create function public.admin_auctions(p_query text default '', p_limit integer default 200)
returns table (
  id uuid, name text, slug text, subscription_tier text, is_active boolean, created_at timestamptz,
  location_count integer, member_count integer
)
language plpgsql stable set search_path = '' as $$
begin
  perform public.admin_require_super_admin();
  return query
    select a.id, a.name, a.slug, a.subscription_tier, a.is_active, a.created_at,
      (select count(*)::integer from public.locations l where l.auction_id = a.id),
      (select count(*)::integer from public.auction_members m where m.auction_id = a.id)
    from public.auctions a
    where public.admin_matches(p_query, a.name, a.slug)
    order by a.name, a.id
    limit least(greatest(coalesce(p_limit, 200), 1), 500);
end $$;

revoke all on function public.admin_matches(text, text[]) from public;
grant execute on function public.admin_matches(text, text[]) to authenticated;
revoke all on function public.admin_require_super_admin(), public.admin_auctions(text, integer), public.admin_search_users(text, integer),
  public.admin_set_user_banned(uuid, boolean), public.admin_user_sessions(uuid) from public;
grant execute on function public.admin_require_super_admin(), public.admin_auctions(text, integer), public.admin_search_users(text, integer),
  public.admin_set_user_banned(uuid, boolean), public.admin_user_sessions(uuid) to authenticated;
