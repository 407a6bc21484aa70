-- The admin console's account repairs (/console, docs/console.md): end one or all of a user's sessions, list and
-- remove their second factors, confirm their e-mail address; and the user search now says which addresses are
-- unconfirmed or invited and how many factors each user has. Super admins only (42501), as in 0018.

-- admin_search_users gains email_confirmed_at, invited_at and factor_count: a new result type needs a new function.
drop function public.admin_search_users(text, integer);
create function public.admin_search_users(p_query text default '', p_limit integer default 50)
returns table (
  id uuid, email text, full_name text, banned_until timestamptz, last_sign_in_at timestamptz,
  created_at timestamptz, session_count integer, email_confirmed_at timestamptz, invited_at timestamptz,
  factor_count integer
)
language plpgsql stable security definer set search_path = '' as $$
begin
  perform public.admin_require_super_admin();
  return query
    select u.id, u.email, p.full_name, u.banned_until, u.last_sign_in_at, u.created_at,
      (select count(*)::integer from auth.sessions s where s.user_id = u.id),
      u.email_confirmed_at, u.invited_at,
      (select count(*)::integer from auth.mfa_factors f where f.user_id = u.id)
    from auth.users u left join public.users p on p.id = u.id
    where u.deleted_at is null
      and public.admin_matches(p_query, u.email, p.full_name)
    order by u.created_at desc, u.id
    limit least(greatest(coalesce(p_limit, 50), 1), 200);
end $$;

-- Ends one session of the user (p_session_id) or all of them (null): their refresh tokens go with them (the
-- foreign key cascades), so /auth/v1/token refuses them; access tokens already issued run out on their own.
create function public.admin_revoke_user_sessions(p_user_id uuid, p_session_id uuid default null) returns integer
language plpgsql volatile security definer set search_path = '' as $$
declare
  ended integer;
begin
  perform public.admin_require_super_admin();
  if not exists (select 1 from auth.users u where u.id = p_user_id and u.deleted_at is null) then
    raise exception 'user not found' using errcode = 'P0002', hint = 'The account may have been deleted: search again.';
  end if;
  delete from auth.sessions s
   where s.user_id = p_user_id and (p_session_id is null or s.id = p_session_id);
  get diagnostics ended = row_count;
  if p_session_id is not null and ended = 0 then
    raise exception 'session not found' using errcode = 'P0002',
      hint = 'It may have ended already (signed out or expired): list the sessions again.';
  end if;
  return ended;
end $$;

-- A user's second factors (TOTP, phone, WebAuthn), verified or not; never their secrets.
create function public.admin_user_factors(p_user_id uuid)
returns table (id uuid, friendly_name text, factor_type text, status text, created_at timestamptz)
language plpgsql stable security definer set search_path = '' as $$
begin
  perform public.admin_require_super_admin();
  return query
    select f.id, f.friendly_name, f.factor_type, f.status, f.created_at
    from auth.mfa_factors f where f.user_id = p_user_id
    order by f.created_at, f.id;
end $$;

-- Removes a factor as the admin API's DELETE /admin/users/{id}/factors/{fid} does: its challenges and keys go with
-- it (cascade), and the user's aal2 sessions drop to aal1.
create function public.admin_delete_user_factor(p_user_id uuid, p_factor_id uuid) returns jsonb
language plpgsql volatile security definer set search_path = '' as $$
declare
  removed auth.mfa_factors;
begin
  perform public.admin_require_super_admin();
  delete from auth.mfa_factors f where f.id = p_factor_id and f.user_id = p_user_id returning f.* into removed;
  if not found then
    raise exception 'factor not found' using errcode = 'P0002',
      hint = 'It may have been removed already: open the user''s details again.';
  end if;
  update auth.sessions s set aal = 'aal1' where s.user_id = p_user_id and s.aal = 'aal2';
  return jsonb_build_object('id', removed.id, 'factor_type', removed.factor_type, 'friendly_name', removed.friendly_name);
end $$;

-- Marks the user's e-mail address confirmed (as the admin API's email_confirm), keeping an earlier confirmation.
create function public.admin_confirm_user_email(p_user_id uuid) returns jsonb
language plpgsql volatile security definer set search_path = '' as $$
declare
  confirmed timestamptz;
  address text;
begin
  perform public.admin_require_super_admin();
  select u.email into address from auth.users u where u.id = p_user_id and u.deleted_at is null;
  if not found then
    raise exception 'user not found' using errcode = 'P0002', hint = 'The account may have been deleted: search again.';
  end if;
  if address is null then
    raise exception 'the user has no e-mail address' using errcode = '22023';
  end if;
  update auth.users u
     set email_confirmed_at = coalesce(u.email_confirmed_at, now()), updated_at = now()
   where u.id = p_user_id
  returning u.email_confirmed_at into confirmed;
  return jsonb_build_object('id', p_user_id, 'email_confirmed_at', confirmed);
end $$;

revoke all on function public.admin_search_users(text, integer), public.admin_revoke_user_sessions(uuid, uuid),
  public.admin_user_factors(uuid), public.admin_delete_user_factor(uuid, uuid), public.admin_confirm_user_email(uuid)
  from public;
grant execute on function public.admin_search_users(text, integer), public.admin_revoke_user_sessions(uuid, uuid),
  public.admin_user_factors(uuid), public.admin_delete_user_factor(uuid, uuid), public.admin_confirm_user_email(uuid)
  to authenticated;
