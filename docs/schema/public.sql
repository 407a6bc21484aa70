-- Generated from the migrations by apps/server/test/schema-snapshot.test.ts (`pnpm schema:snapshot`): do not
-- edit. Read the schema in force here; change it in a new migration (packages/*/migrations*).

-- object: schema public
create schema public;
grant usage on schema public to anon;
grant usage on schema public to authenticated;
grant usage on schema public to public;
grant usage on schema public to service_role;

-- object: function public.accept_auction_invite(text)
CREATE OR REPLACE FUNCTION public.accept_auction_invite(p_token text)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  v_uid uuid := auth.uid();
  v_inv public.auction_invitations;
  v_user public.users;
  v_member public.auction_members;
begin
  if v_uid is null then
    raise exception 'sign in to accept an invitation' using errcode = '42501';
  end if;
  select * into v_inv from public.auction_invitations
  where token_hash = encode(sha256(convert_to(coalesce(p_token, ''), 'UTF8')), 'hex') for update;
  if not found then
    raise exception 'invitation not found' using errcode = 'P0001';
  elsif exists (select 1 from public.auctions a where a.id = v_inv.auction_id and a.deleted_at is not null) then
    -- The same answer as a token that names nothing: the link does not tell that the auction was deleted.
    raise exception 'invitation not found' using errcode = 'P0001';
  elsif v_inv.revoked_at is not null then
    raise exception 'invitation has been revoked' using errcode = 'P0001';
  elsif v_inv.accepted_at is not null then
    raise exception 'invitation has already been used' using errcode = 'P0001';
  elsif v_inv.expires_at <= now() then
    raise exception 'invitation has expired' using errcode = 'P0001';
  end if;
  select * into v_user from public.users where id = v_uid;
  if not public.is_placeholder_email(v_inv.email) and lower(coalesce(v_user.email, '')) <> lower(v_inv.email) then
    raise exception 'this invitation was sent to another e-mail address' using errcode = '42501';
  end if;
  if exists (select 1 from public.auction_members where auction_id = v_inv.auction_id and user_id = v_uid) then
    raise exception 'you are already a member of this auction' using errcode = 'P0001';
  end if;
  insert into public.auction_members (auction_id, user_id, role) values (v_inv.auction_id, v_uid, v_inv.role)
  returning * into v_member;
  update public.auction_invitations set accepted_at = now(), accepted_by = v_uid where id = v_inv.id;
  perform domain.emit_event(v_inv.auction_id, 'member.joined', jsonb_build_object(
    'user_id', v_uid, 'email', v_user.email, 'full_name', v_user.full_name, 'role', v_member.role,
    'invited_by', public.user_ref(v_inv.invited_by), 'joined_at', v_member.joined_at));
  return jsonb_build_object('auction_id', v_inv.auction_id, 'role', v_member.role, 'member_id', v_member.id);
end $function$;
grant execute on function public.accept_auction_invite(text) to authenticated;
grant execute on function public.accept_auction_invite(text) to service_role;

-- object: function public.admin_auction_ids()
CREATE OR REPLACE FUNCTION public.admin_auction_ids()
 RETURNS SETOF uuid
 LANGUAGE plpgsql
 STABLE PARALLEL SAFE SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  return query
  select m.auction_id from public.auction_members m join public.auctions a on a.id = m.auction_id
  where m.user_id = (select auth.uid()) and m.role in ('owner', 'admin') and a.deleted_at is null
    and ((select auth.aal()) = 'aal2' or coalesce((a.settings ->> 'require_mfa_for_admins')::boolean, false) = false)
  union all
  select id from public.auctions
  where deleted_at is null and exists (select 1 from public.super_admins where user_id = (select auth.uid()));
end $function$;
grant execute on function public.admin_auction_ids() to anon;
grant execute on function public.admin_auction_ids() to authenticated;
grant execute on function public.admin_auction_ids() to public;
grant execute on function public.admin_auction_ids() to service_role;

-- object: function public.admin_auctions(text,integer)
CREATE OR REPLACE FUNCTION public.admin_auctions(p_query text DEFAULT ''::text, p_limit integer DEFAULT 200)
 RETURNS TABLE(id uuid, name text, slug text, subscription_tier text, is_active boolean, created_at timestamp with time zone, location_count integer, member_count integer)
 LANGUAGE plpgsql
 STABLE
 SET search_path TO ''
AS $function$
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
end $function$;
grant execute on function public.admin_auctions(text,integer) to authenticated;

-- object: function public.admin_confirm_user_email(uuid)
CREATE OR REPLACE FUNCTION public.admin_confirm_user_email(p_user_id uuid)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
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
end $function$;
grant execute on function public.admin_confirm_user_email(uuid) to authenticated;

-- object: function public.admin_delete_user_factor(uuid,uuid)
CREATE OR REPLACE FUNCTION public.admin_delete_user_factor(p_user_id uuid, p_factor_id uuid)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
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
end $function$;
grant execute on function public.admin_delete_user_factor(uuid,uuid) to authenticated;

-- object: function public.admin_mail_outbox(integer)
CREATE OR REPLACE FUNCTION public.admin_mail_outbox(p_limit integer DEFAULT 100)
 RETURNS TABLE(id uuid, to_email text, subject text, template text, created_at timestamp with time zone)
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  perform public.admin_require_super_admin();
  return query
    select m.id, m.to_email, m.subject, m.template, m.created_at
    from auth.mail_outbox m
    order by m.created_at desc, m.id
    limit least(greatest(coalesce(p_limit, 100), 1), 500);
end $function$;
grant execute on function public.admin_mail_outbox(integer) to authenticated;

-- object: function public.admin_matches(text,text[])
CREATE OR REPLACE FUNCTION public.admin_matches(p_query text, VARIADIC p_fields text[])
 RETURNS boolean
 LANGUAGE sql
 IMMUTABLE
 SET search_path TO ''
AS $function$
  select coalesce(p_query, '') = ''
    or exists (select 1 from unnest(p_fields) f where strpos(lower(coalesce(f, '')), lower(p_query)) > 0)
$function$;
grant execute on function public.admin_matches(text,text[]) to authenticated;

-- object: function public.admin_push_jobs(integer)
CREATE OR REPLACE FUNCTION public.admin_push_jobs(p_limit integer DEFAULT 100)
 RETURNS TABLE(id uuid, kind text, auction_name text, status text, attempts integer, next_attempt_at timestamp with time zone, last_error text, created_at timestamp with time zone, sent_at timestamp with time zone)
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  perform public.admin_require_super_admin();
  if to_regclass('notifications.push_jobs') is null then
    return;
  end if;
  return query
    select j.id, j.kind, a.name, j.status, j.attempts, j.next_attempt_at, j.last_error, j.created_at, j.sent_at
    from notifications.push_jobs j join public.auctions a on a.id = j.auction_id
    order by j.created_at desc, j.id
    limit least(greatest(coalesce(p_limit, 100), 1), 500);
end $function$;
grant execute on function public.admin_push_jobs(integer) to authenticated;

-- object: function public.admin_require_super_admin()
CREATE OR REPLACE FUNCTION public.admin_require_super_admin()
 RETURNS void
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  if not public.is_super_admin() then
    raise exception 'only super admins may do this' using errcode = '42501';
  end if;
end $function$;
grant execute on function public.admin_require_super_admin() to authenticated;

-- object: function public.admin_revoke_user_sessions(uuid,uuid)
CREATE OR REPLACE FUNCTION public.admin_revoke_user_sessions(p_user_id uuid, p_session_id uuid DEFAULT NULL::uuid)
 RETURNS integer
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
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
end $function$;
grant execute on function public.admin_revoke_user_sessions(uuid,uuid) to authenticated;

-- object: function public.admin_search_users(text,integer)
CREATE OR REPLACE FUNCTION public.admin_search_users(p_query text DEFAULT ''::text, p_limit integer DEFAULT 50)
 RETURNS TABLE(id uuid, email text, full_name text, banned_until timestamp with time zone, last_sign_in_at timestamp with time zone, created_at timestamp with time zone, session_count integer, email_confirmed_at timestamp with time zone, invited_at timestamp with time zone, factor_count integer)
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
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
end $function$;
grant execute on function public.admin_search_users(text,integer) to authenticated;

-- object: function public.admin_set_user_banned(uuid,boolean)
CREATE OR REPLACE FUNCTION public.admin_set_user_banned(p_user_id uuid, p_banned boolean)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
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
end $function$;
grant execute on function public.admin_set_user_banned(uuid,boolean) to authenticated;

-- object: function public.admin_user_factors(uuid)
CREATE OR REPLACE FUNCTION public.admin_user_factors(p_user_id uuid)
 RETURNS TABLE(id uuid, friendly_name text, factor_type text, status text, created_at timestamp with time zone)
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  perform public.admin_require_super_admin();
  return query
    select f.id, f.friendly_name, f.factor_type, f.status, f.created_at
    from auth.mfa_factors f where f.user_id = p_user_id
    order by f.created_at, f.id;
end $function$;
grant execute on function public.admin_user_factors(uuid) to authenticated;

-- object: function public.admin_user_sessions(uuid)
CREATE OR REPLACE FUNCTION public.admin_user_sessions(p_user_id uuid)
 RETURNS TABLE(id uuid, aal text, user_agent text, ip text, created_at timestamp with time zone, refreshed_at timestamp with time zone, not_after timestamp with time zone)
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  perform public.admin_require_super_admin();
  return query
    select s.id, s.aal, s.user_agent, host(s.ip), s.created_at, s.refreshed_at, s.not_after
    from auth.sessions s where s.user_id = p_user_id
    order by s.created_at desc;
end $function$;
grant execute on function public.admin_user_sessions(uuid) to authenticated;

-- object: function public.anonymize_user(uuid)
CREATE OR REPLACE FUNCTION public.anonymize_user(p_user_id uuid DEFAULT NULL::uuid)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
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
  -- Setting deleted_at removes every credential (auth.forget_deleted_account).
  update auth.users set email = null, phone = null, raw_user_meta_data = '{}', email_confirmed_at = null,
    phone_confirmed_at = null, deleted_at = now(), banned_until = 'infinity', updated_at = now()
  where id = v_target;
  -- After auth.users: its sync trigger would otherwise keep the old name.
  update public.users set email = null, full_name = 'Deleted user', avatar_url = null, updated_at = now()
  where id = v_target;
  return jsonb_build_object('user_id', v_target, 'anonymized_at', now());
end $function$;
grant execute on function public.anonymize_user(uuid) to authenticated;
grant execute on function public.anonymize_user(uuid) to service_role;

-- object: function public.assert_time_zone(text)
CREATE OR REPLACE FUNCTION public.assert_time_zone(p_zone text)
 RETURNS void
 LANGUAGE plpgsql
 STABLE
 SET search_path TO ''
AS $function$
begin
  if not exists (select 1 from pg_catalog.pg_timezone_names where name = p_zone) then
    raise exception 'unknown time zone: %', p_zone using errcode = '22023';
  end if;
end $function$;
grant execute on function public.assert_time_zone(text) to authenticated;
grant execute on function public.assert_time_zone(text) to service_role;

-- object: function public.auction_timezone(uuid)
CREATE OR REPLACE FUNCTION public.auction_timezone(p_auction_id uuid)
 RETURNS text
 LANGUAGE sql
 STABLE
 SET search_path TO ''
AS $function$
  select coalesce(nullif(settings ->> 'timezone', ''), 'UTC') from public.auctions where id = p_auction_id
$function$;
grant execute on function public.auction_timezone(uuid) to authenticated;
grant execute on function public.auction_timezone(uuid) to service_role;

-- object: function public.can_undelete_auction(uuid)
CREATE OR REPLACE FUNCTION public.can_undelete_auction(p_auction_id uuid)
 RETURNS boolean
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
  select auth.role() = 'service_role' or public.is_super_admin() or exists (
    select 1 from public.auction_members m join public.auctions a on a.id = m.auction_id
    where m.auction_id = p_auction_id and m.user_id = (select auth.uid()) and m.role = 'owner'
      and ((select auth.aal()) = 'aal2' or coalesce((a.settings ->> 'require_mfa_for_admins')::boolean, false) = false))
$function$;
grant execute on function public.can_undelete_auction(uuid) to authenticated;
grant execute on function public.can_undelete_auction(uuid) to service_role;

-- object: function public.can_write_inspection(uuid)
CREATE OR REPLACE FUNCTION public.can_write_inspection(p_inspection_id uuid)
 RETURNS boolean
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  return exists (
    select 1 from public.quality_inspections i
    where i.id = p_inspection_id
      and (i.auction_id in (select public.admin_auction_ids())
        or (i.user_id = auth.uid() and i.auction_id in (select public.member_auction_ids()))));
end $function$;
grant execute on function public.can_write_inspection(uuid) to authenticated;
grant execute on function public.can_write_inspection(uuid) to public;
grant execute on function public.can_write_inspection(uuid) to service_role;

-- object: function public.can_write_problem(uuid)
CREATE OR REPLACE FUNCTION public.can_write_problem(p_problem_id uuid)
 RETURNS boolean
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  return exists (
    select 1 from public.problem_reports p
    where p.id = p_problem_id
      and (p.auction_id in (select public.admin_auction_ids())
        or (p.auction_id in (select public.member_auction_ids())
            and auth.uid() in (p.prepared_by, p.assigned_to))));
end $function$;
grant execute on function public.can_write_problem(uuid) to authenticated;
grant execute on function public.can_write_problem(uuid) to public;
grant execute on function public.can_write_problem(uuid) to service_role;

-- object: function public.can_write_submission(uuid)
CREATE OR REPLACE FUNCTION public.can_write_submission(p_submission_id uuid)
 RETURNS boolean
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  return exists (
    select 1 from public.lot_submissions s
    where s.id = p_submission_id
      and (s.auction_id in (select public.admin_auction_ids())
        or (s.user_id = auth.uid() and s.auction_id in (select public.member_auction_ids()))));
end $function$;
grant execute on function public.can_write_submission(uuid) to authenticated;
grant execute on function public.can_write_submission(uuid) to public;
grant execute on function public.can_write_submission(uuid) to service_role;

-- object: function public.change_member_role(uuid,uuid,text)
CREATE OR REPLACE FUNCTION public.change_member_role(p_auction_id uuid, p_user_id uuid, p_new_role text)
 RETURNS public.auction_members
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  v_caller text := domain.caller_role(p_auction_id);
  v_target public.auction_members;
begin
  if v_caller is null or v_caller = 'team_member' then
    raise exception 'only auction admins and owners can change roles' using errcode = '42501';
  end if;
  if p_new_role not in ('owner', 'admin', 'team_member') then
    raise exception 'invalid role: %', p_new_role using errcode = '22023';
  end if;
  select * into v_target from public.auction_members where auction_id = p_auction_id and user_id = p_user_id for update;
  if not found then
    raise exception 'that user is not a member of this auction' using errcode = 'P0001';
  end if;
  if v_caller <> 'owner' and (v_target.role = 'owner' or p_new_role = 'owner') then
    raise exception 'only owners can change an owner''s role or make owners' using errcode = '42501';
  end if;
  -- The last-owner rule is enforced by the auction_members_keep_owner trigger (P0001).
  update public.auction_members set role = p_new_role where id = v_target.id returning * into v_target;
  return v_target;
end $function$;
grant execute on function public.change_member_role(uuid,uuid,text) to authenticated;
grant execute on function public.change_member_role(uuid,uuid,text) to service_role;

-- object: function public.channel_is_open(uuid)
CREATE OR REPLACE FUNCTION public.channel_is_open(p_channel_id uuid)
 RETURNS boolean
 LANGUAGE plpgsql
 STABLE
 SET search_path TO ''
AS $function$
begin
  return exists (select 1 from public.channels where id = p_channel_id and not is_archived);
end $function$;
grant execute on function public.channel_is_open(uuid) to authenticated;
grant execute on function public.channel_is_open(uuid) to service_role;

-- object: function public.create_lot_submission_with_entries(uuid,jsonb,text,text)
CREATE OR REPLACE FUNCTION public.create_lot_submission_with_entries(p_location_id uuid, p_entries jsonb, p_image_url text DEFAULT NULL::text, p_notes text DEFAULT NULL::text)
 RETURNS jsonb
 LANGUAGE plpgsql
 SET search_path TO ''
AS $function$
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
end $function$;
grant execute on function public.create_lot_submission_with_entries(uuid,jsonb,text,text) to authenticated;
grant execute on function public.create_lot_submission_with_entries(uuid,jsonb,text,text) to service_role;

-- object: function public.current_user_admin_auction_ids()
CREATE OR REPLACE FUNCTION public.current_user_admin_auction_ids()
 RETURNS SETOF uuid
 LANGUAGE plpgsql
 STABLE PARALLEL SAFE SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  return query
  select m.auction_id from public.auction_members m join public.auctions a on a.id = m.auction_id
  where m.user_id = (select auth.uid()) and m.role in ('owner', 'admin') and a.deleted_at is null
    and ((select auth.aal()) = 'aal2' or coalesce((a.settings ->> 'require_mfa_for_admins')::boolean, false) = false);
end $function$;
grant execute on function public.current_user_admin_auction_ids() to anon;
grant execute on function public.current_user_admin_auction_ids() to authenticated;
grant execute on function public.current_user_admin_auction_ids() to public;
grant execute on function public.current_user_admin_auction_ids() to service_role;

-- object: function public.current_user_assigned_location_ids()
CREATE OR REPLACE FUNCTION public.current_user_assigned_location_ids()
 RETURNS SETOF uuid
 LANGUAGE plpgsql
 STABLE PARALLEL SAFE SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  return query
  select la.location_id from public.location_assignments la
  join public.auction_members m on m.auction_id = la.auction_id and m.user_id = la.user_id
  join public.auctions a on a.id = la.auction_id and a.deleted_at is null
  where la.user_id = (select auth.uid());
end $function$;
grant execute on function public.current_user_assigned_location_ids() to authenticated;
grant execute on function public.current_user_assigned_location_ids() to service_role;

-- object: function public.current_user_auction_ids()
CREATE OR REPLACE FUNCTION public.current_user_auction_ids()
 RETURNS SETOF uuid
 LANGUAGE plpgsql
 STABLE PARALLEL SAFE SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  return query
  select m.auction_id from public.auction_members m join public.auctions a on a.id = m.auction_id
  where m.user_id = (select auth.uid()) and a.deleted_at is null;
end $function$;
grant execute on function public.current_user_auction_ids() to anon;
grant execute on function public.current_user_auction_ids() to authenticated;
grant execute on function public.current_user_auction_ids() to public;
grant execute on function public.current_user_auction_ids() to service_role;

-- object: function public.current_user_co_member_ids()
CREATE OR REPLACE FUNCTION public.current_user_co_member_ids()
 RETURNS SETOF uuid
 LANGUAGE plpgsql
 STABLE PARALLEL SAFE SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  return query
  select distinct other.user_id
  from public.auction_members mine
  join public.auctions a on a.id = mine.auction_id and a.deleted_at is null
  join public.auction_members other on other.auction_id = mine.auction_id
  where mine.user_id = (select auth.uid());
end $function$;
grant execute on function public.current_user_co_member_ids() to anon;
grant execute on function public.current_user_co_member_ids() to authenticated;
grant execute on function public.current_user_co_member_ids() to public;
grant execute on function public.current_user_co_member_ids() to service_role;

-- object: function public.current_user_hidden_channel_ids()
CREATE OR REPLACE FUNCTION public.current_user_hidden_channel_ids()
 RETURNS SETOF uuid
 LANGUAGE plpgsql
 STABLE PARALLEL SAFE SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  return query
  select c.id from public.channels c
  join public.auction_members m on m.auction_id = c.auction_id and m.user_id = (select auth.uid())
  where m.role = 'team_member' and c.location_id is not null
    and c.location_id not in (select public.current_user_assigned_location_ids());
end $function$;
grant execute on function public.current_user_hidden_channel_ids() to authenticated;
grant execute on function public.current_user_hidden_channel_ids() to service_role;

-- object: function public.delete_auction(uuid)
CREATE OR REPLACE FUNCTION public.delete_auction(p_auction_id uuid)
 RETURNS public.auctions
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  v public.auctions;
begin
  select * into v from public.auctions where id = p_auction_id for update;
  if not found then
    raise exception 'no such auction' using errcode = 'P0002';
  end if;
  if v.deleted_at is not null then
    return null;
  end if;
  if not (auth.role() = 'service_role' or public.is_super_admin()
          or public.get_user_auction_role(p_auction_id) is not distinct from 'owner') then
    raise exception 'only an owner of the auction may delete it' using errcode = '42501';
  end if;
  update public.auctions
     set deleted_at = now(), deleted_by = auth.uid(),
         purge_after = now() + (select grace from domain.deletion_settings)
   where id = p_auction_id
  returning * into v;
  perform domain.emit_event(v.id, 'auction.deleted', jsonb_build_object(
    'id', v.id, 'name', v.name, 'slug', v.slug, 'deleted_by', public.user_ref(v.deleted_by),
    'deleted_at', v.deleted_at, 'purge_after', v.purge_after));
  return v;
end $function$;
grant execute on function public.delete_auction(uuid) to authenticated;
grant execute on function public.delete_auction(uuid) to service_role;

-- object: function public.deleted_auction_ids()
CREATE OR REPLACE FUNCTION public.deleted_auction_ids()
 RETURNS SETOF uuid
 LANGUAGE plpgsql
 STABLE PARALLEL SAFE SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  return query
  select a.id from public.auctions a
  where a.deleted_at is not null
    and (exists (select 1 from public.auction_members m where m.auction_id = a.id and m.user_id = (select auth.uid()))
         or exists (select 1 from public.super_admins s where s.user_id = (select auth.uid())));
end $function$;
grant execute on function public.deleted_auction_ids() to authenticated;
grant execute on function public.deleted_auction_ids() to service_role;

-- object: function public.display_name(text,text)
CREATE OR REPLACE FUNCTION public.display_name(p_full_name text, p_email text)
 RETURNS text
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
AS $function$
  select coalesce(nullif(trim(p_full_name), ''), split_part(p_email, '@', 1), 'Deleted user')
$function$;

-- object: function public.get_all_locations_stats(timestamp with time zone,timestamp with time zone)
CREATE OR REPLACE FUNCTION public.get_all_locations_stats(p_start_date timestamp with time zone, p_end_date timestamp with time zone)
 RETURNS TABLE(location_id uuid, location_name text, auction_id uuid, total_submissions integer, total_car_count integer, average_car_count numeric, last_submitted_at timestamp with time zone)
 LANGUAGE plpgsql
 STABLE
 SET search_path TO ''
AS $function$
#variable_conflict use_column
begin
  return query
  select l.id, l.name, l.auction_id,
    coalesce(agg.n, 0)::integer, coalesce(agg.cars, 0)::integer,
    case when coalesce(agg.n, 0) = 0 then 0 else round(agg.cars::numeric / agg.n, 2) end,
    (select max(s.submitted_at) from public.lot_submissions s where s.location_id = l.id)
  from public.locations l
  cross join analytics.whole_hours(p_start_date, p_end_date) r
  left join lateral (
    select sum(x.n) as n, sum(x.cars) as cars
    from (
      select h.submissions as n, h.cars from analytics.submission_hours h
      where h.location_id = l.id and h.hour >= r.lo and h.hour < r.hi
      union all
      select 1, (select coalesce(sum(e.car_count), 0) from public.lot_submission_entries e where e.submission_id = s.id)
      from public.lot_submissions s
      where s.location_id = l.id
        and (s.submitted_at >= p_start_date and s.submitted_at < r.lo or s.submitted_at >= r.hi and s.submitted_at <= p_end_date)
    ) x
  ) agg on true
  order by l.name, l.id;
end $function$;
grant execute on function public.get_all_locations_stats(timestamp with time zone,timestamp with time zone) to authenticated;
grant execute on function public.get_all_locations_stats(timestamp with time zone,timestamp with time zone) to service_role;

-- object: function public.get_defect_trends(timestamp with time zone,timestamp with time zone,uuid)
CREATE OR REPLACE FUNCTION public.get_defect_trends(p_start_date timestamp with time zone, p_end_date timestamp with time zone, p_location_id uuid DEFAULT NULL::uuid)
 RETURNS TABLE(day date, category_id uuid, category text, defect_count integer)
 LANGUAGE plpgsql
 STABLE
 SET search_path TO ''
AS $function$
declare
  v_start timestamptz := p_start_date;
  v_end timestamptz := p_end_date;
  v_years record;
begin
  if p_end_date - p_start_date > interval '400 days' and pg_catalog.row_security_active('public.auctions') then
    select * into v_years from analytics.inspection_years();
    if v_years.lo is null then
      return;
    end if;
    v_start := greatest(p_start_date, v_years.lo);
    v_end := least(p_end_date, v_years.hi);
  end if;
  return query select * from analytics.defect_trends(v_start, v_end, p_location_id);
end $function$;
grant execute on function public.get_defect_trends(timestamp with time zone,timestamp with time zone,uuid) to authenticated;
grant execute on function public.get_defect_trends(timestamp with time zone,timestamp with time zone,uuid) to service_role;

-- object: function public.get_location_stats(uuid,timestamp with time zone,timestamp with time zone)
CREATE OR REPLACE FUNCTION public.get_location_stats(p_location_id uuid, p_start_date timestamp with time zone, p_end_date timestamp with time zone)
 RETURNS jsonb
 LANGUAGE plpgsql
 STABLE
 SET search_path TO ''
AS $function$
declare
  v_lo timestamptz;
  v_hi timestamptz;
  v_total integer;
  v_cars integer;
begin
  if not exists (select 1 from public.locations where id = p_location_id) then
    raise exception 'location not found or not accessible' using errcode = '42501';
  end if;
  select lo, hi into v_lo, v_hi from analytics.whole_hours(p_start_date, p_end_date);
  select coalesce(sum(n), 0), coalesce(sum(c), 0) into v_total, v_cars from (
    select h.submissions as n, h.cars as c from analytics.submission_hours h
    where h.location_id = p_location_id and h.hour >= v_lo and h.hour < v_hi
    union all
    select 1, (select coalesce(sum(e.car_count), 0) from public.lot_submission_entries e where e.submission_id = s.id)
    from public.lot_submissions s
    where s.location_id = p_location_id
      and (s.submitted_at >= p_start_date and s.submitted_at < v_lo or s.submitted_at >= v_hi and s.submitted_at <= p_end_date)
  ) x;
  return jsonb_build_object(
    'total_submissions', v_total,
    'total_car_count', v_cars,
    'average_car_count', case when v_total = 0 then 0 else round(v_cars::numeric / v_total, 2) end,
    'by_type', coalesce((
      select jsonb_agg(jsonb_build_object('type_name', t.name, 'count', t.cars) order by t.cars desc, t.name)
      from (
        select st.id, st.name, sum(x.c)::integer as cars
        from (
          select h.submission_type_id as t, h.entries as n, h.cars as c from analytics.submission_type_hours h
          where h.location_id = p_location_id and h.hour >= v_lo and h.hour < v_hi
          union all
          select e.submission_type_id, 1, e.car_count
          from public.lot_submissions s join public.lot_submission_entries e on e.submission_id = s.id
          where s.location_id = p_location_id
            and (s.submitted_at >= p_start_date and s.submitted_at < v_lo or s.submitted_at >= v_hi and s.submitted_at <= p_end_date)
        ) x
        join public.submission_types st on st.id = x.t
        group by st.id, st.name
        having sum(x.n) > 0) t), '[]'::jsonb));
end $function$;
grant execute on function public.get_location_stats(uuid,timestamp with time zone,timestamp with time zone) to authenticated;
grant execute on function public.get_location_stats(uuid,timestamp with time zone,timestamp with time zone) to service_role;

-- object: function public.get_location_submission_types_ordered(uuid)
CREATE OR REPLACE FUNCTION public.get_location_submission_types_ordered(p_location_id uuid)
 RETURNS TABLE(id uuid, type_name text, description text, display_order integer, is_required boolean)
 LANGUAGE sql
 STABLE
 SET search_path TO ''
AS $function$
  select t.id, t.name, t.description, lst.display_order, lst.is_required
  from public.location_submission_types lst
  join public.submission_types t on t.id = lst.submission_type_id
  where lst.location_id = p_location_id and t.is_active
  order by lst.display_order, t.name
$function$;
grant execute on function public.get_location_submission_types_ordered(uuid) to authenticated;
grant execute on function public.get_location_submission_types_ordered(uuid) to service_role;

-- object: function public.get_pending_submissions(timestamp with time zone)
CREATE OR REPLACE FUNCTION public.get_pending_submissions(p_now timestamp with time zone DEFAULT now())
 RETURNS TABLE(location_id uuid, location_name text, auction_id uuid, last_submitted_at timestamp with time zone, submission_frequency_minutes integer, minutes_overdue integer)
 LANGUAGE plpgsql
 STABLE
 SET search_path TO ''
AS $function$
begin
  return query
  with l as (
    select l.*, (p_now at time zone z.tz) as local_now, z.tz,
      (select max(s.submitted_at) from public.lot_submissions s
       where s.location_id = l.id and s.submitted_at <= p_now) as last_at
    from public.locations l
    -- As auction_timezone(): the auction's zone, UTC when it has none, null when the caller cannot see the auction.
    left join lateral (select coalesce(nullif(a.settings ->> 'timezone', ''), 'UTC') as tz
                       from public.auctions a where a.id = l.auction_id) z on true
    where l.is_active
  ), open_now as (
    select l.*,
      case
        when l.operating_hours_start is null or l.operating_hours_end is null then true
        when l.operating_hours_start = l.operating_hours_end then true
        when l.operating_hours_start < l.operating_hours_end
          then l.local_now::time >= l.operating_hours_start and l.local_now::time < l.operating_hours_end
        else l.local_now::time >= l.operating_hours_start or l.local_now::time < l.operating_hours_end
      end as is_open,
      case
        when l.operating_hours_start is null or l.operating_hours_end is null then null
        when l.operating_hours_start < l.operating_hours_end or l.local_now::time >= l.operating_hours_start
          then (l.local_now::date + l.operating_hours_start) at time zone l.tz
        else ((l.local_now::date - 1) + l.operating_hours_start) at time zone l.tz
      end as window_start
    from l
  ), due as (
    -- greatest() skips nulls: no submission yet, or no operating hours, leaves the other; neither, the creation.
    select o.*, coalesce(greatest(o.last_at, o.window_start), o.created_at) as since
    from open_now o
    where o.is_open
  )
  select d.id, d.name, d.auction_id, d.last_at, d.submission_frequency_minutes,
    greatest(0, floor(extract(epoch from p_now - d.since) / 60) - d.submission_frequency_minutes)::integer
  from due d
  where d.since < p_now - make_interval(mins => d.submission_frequency_minutes)
  order by 6 desc, d.name;
end $function$;
grant execute on function public.get_pending_submissions(timestamp with time zone) to authenticated;
grant execute on function public.get_pending_submissions(timestamp with time zone) to service_role;

-- object: function public.get_submission_with_entries(uuid)
CREATE OR REPLACE FUNCTION public.get_submission_with_entries(p_submission_id uuid)
 RETURNS jsonb
 LANGUAGE plpgsql
 STABLE
 SET search_path TO ''
AS $function$
declare
  v jsonb;
begin
  select to_jsonb(r) into v from public.recent_submissions r where r.id = p_submission_id;
  if v is null then
    raise exception 'submission not found' using errcode = 'PT404';
  end if;
  return v;
end $function$;
grant execute on function public.get_submission_with_entries(uuid) to authenticated;
grant execute on function public.get_submission_with_entries(uuid) to service_role;

-- object: function public.get_total_unread_count(uuid)
CREATE OR REPLACE FUNCTION public.get_total_unread_count(p_auction_id uuid)
 RETURNS integer
 LANGUAGE sql
 STABLE
 SET search_path TO ''
AS $function$
  select coalesce(sum(unread_count), 0)::integer from public.get_unread_counts(p_auction_id)
$function$;
grant execute on function public.get_total_unread_count(uuid) to authenticated;
grant execute on function public.get_total_unread_count(uuid) to service_role;

-- object: function public.get_unread_counts(uuid)
CREATE OR REPLACE FUNCTION public.get_unread_counts(p_auction_id uuid)
 RETURNS TABLE(channel_id uuid, unread_count integer)
 LANGUAGE sql
 STABLE
 SET search_path TO ''
AS $function$
  select c.id, (
    coalesce((select sum(d.messages) from analytics.channel_message_days d
              where d.channel_id = c.id and d.day > r.day), 0)
    - coalesce((select sum(o.messages) from analytics.channel_author_days o
                where o.channel_id = c.id and o.user_id = me.id and o.day > r.day), 0)
    + (select count(*) from public.messages m
       where m.channel_id = c.id and m.created_at > r.at and m.created_at < r.day_end
         and not m.is_deleted and m.user_id is distinct from me.id)
  )::integer
  from (select auth.uid() as id) me
  cross join public.channels c
  left join public.channel_read_state rs on rs.channel_id = c.id and rs.user_id = me.id
  left join public.auction_members am on am.auction_id = c.auction_id and am.user_id = me.id
  cross join lateral (select coalesce(rs.last_read_at, am.joined_at, '-infinity'::timestamptz) as at) p
  -- offset 0 keeps r a row of its own, so the counts above see its columns as plain parameters: inlined, the
  -- coalesce would make their conditions count as leaky under row-level security, and no leaky condition is
  -- used as an index bound before the policy's own.
  cross join lateral (select p.at, (p.at at time zone 'UTC')::date as day,
    ((p.at at time zone 'UTC')::date + 1)::timestamp at time zone 'UTC' as day_end offset 0) r
  where c.auction_id = p_auction_id and not c.is_archived
  order by c.name
$function$;
grant execute on function public.get_unread_counts(uuid) to authenticated;
grant execute on function public.get_unread_counts(uuid) to service_role;

-- object: function public.get_user_auction_role(uuid)
CREATE OR REPLACE FUNCTION public.get_user_auction_role(p_auction_id uuid)
 RETURNS text
 LANGUAGE sql
 STABLE PARALLEL SAFE SECURITY DEFINER
 SET search_path TO ''
AS $function$
  select case
    when m.role in ('owner', 'admin') and (select auth.aal()) <> 'aal2'
      and coalesce((a.settings ->> 'require_mfa_for_admins')::boolean, false) then 'team_member'
    else m.role end
  from public.auction_members m join public.auctions a on a.id = m.auction_id
  where m.auction_id = p_auction_id and m.user_id = (select auth.uid()) and a.deleted_at is null
$function$;
grant execute on function public.get_user_auction_role(uuid) to anon;
grant execute on function public.get_user_auction_role(uuid) to authenticated;
grant execute on function public.get_user_auction_role(uuid) to public;
grant execute on function public.get_user_auction_role(uuid) to service_role;

-- object: function public.invite_user_to_auction(uuid,text,text)
CREATE OR REPLACE FUNCTION public.invite_user_to_auction(p_auction_id uuid, p_email text, p_role text DEFAULT 'team_member'::text)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  v_caller text := domain.caller_role(p_auction_id);
  v_token text := encode(domain.extensions_random_bytes(), 'hex');
  v_email text := lower(trim(coalesce(p_email, '')));
  v_inv public.auction_invitations;
begin
  if v_caller is null or v_caller = 'team_member' then
    raise exception 'only auction admins and owners can invite' using errcode = '42501';
  end if;
  if p_role not in ('owner', 'admin', 'team_member') then
    raise exception 'invalid role: %', p_role using errcode = '22023';
  end if;
  if p_role = 'owner' and v_caller <> 'owner' then
    raise exception 'only owners can invite owners' using errcode = '42501';
  end if;
  if v_email = '' then
    v_email := 'invite-link@auction-ops.invalid';
  elsif v_email !~ '^[^@\s]+@[^@\s]+\.[^@\s]+$' then
    raise exception 'invalid e-mail address' using errcode = '22023';
  end if;
  if exists (select 1 from public.auction_members m join public.users u on u.id = m.user_id
             where m.auction_id = p_auction_id and lower(u.email) = v_email) then
    raise exception 'that user is already a member of this auction' using errcode = 'P0001';
  end if;
  insert into public.auction_invitations (auction_id, email, role, token_hash, invited_by)
  values (p_auction_id, v_email, p_role, encode(sha256(convert_to(v_token, 'UTF8')), 'hex'), auth.uid())
  returning * into v_inv;
  perform domain.emit_event(p_auction_id, 'member.invited', jsonb_build_object(
    'invitation_id', v_inv.id, 'email', v_inv.email, 'role', v_inv.role,
    'invited_by', public.user_ref(v_inv.invited_by), 'expires_at', v_inv.expires_at, 'created_at', v_inv.created_at));
  return jsonb_build_object('invitation_id', v_inv.id, 'token', v_token, 'expires_at', v_inv.expires_at);
end $function$;
grant execute on function public.invite_user_to_auction(uuid,text,text) to authenticated;
grant execute on function public.invite_user_to_auction(uuid,text,text) to service_role;

-- object: function public.is_anonymous_caller()
CREATE OR REPLACE FUNCTION public.is_anonymous_caller()
 RETURNS boolean
 LANGUAGE plpgsql
 STABLE PARALLEL SAFE
 SET search_path TO ''
AS $function$
begin
  return coalesce((auth.jwt() ->> 'is_anonymous')::boolean, false);
end $function$;
grant execute on function public.is_anonymous_caller() to anon;
grant execute on function public.is_anonymous_caller() to authenticated;
grant execute on function public.is_anonymous_caller() to public;
grant execute on function public.is_anonymous_caller() to service_role;

-- object: function public.is_auction_admin_or_above(uuid)
CREATE OR REPLACE FUNCTION public.is_auction_admin_or_above(p_auction_id uuid)
 RETURNS boolean
 LANGUAGE sql
 STABLE PARALLEL SAFE SECURITY DEFINER
 SET search_path TO ''
AS $function$
  select exists (
    select 1 from public.auction_members m join public.auctions a on a.id = m.auction_id
    where m.auction_id = p_auction_id and m.user_id = (select auth.uid()) and m.role in ('owner', 'admin')
      and a.deleted_at is null
      and ((select auth.aal()) = 'aal2' or coalesce((a.settings ->> 'require_mfa_for_admins')::boolean, false) = false)
  )
$function$;
grant execute on function public.is_auction_admin_or_above(uuid) to anon;
grant execute on function public.is_auction_admin_or_above(uuid) to authenticated;
grant execute on function public.is_auction_admin_or_above(uuid) to public;
grant execute on function public.is_auction_admin_or_above(uuid) to service_role;

-- object: function public.is_auction_member(uuid)
CREATE OR REPLACE FUNCTION public.is_auction_member(p_auction_id uuid)
 RETURNS boolean
 LANGUAGE sql
 STABLE PARALLEL SAFE SECURITY DEFINER
 SET search_path TO ''
AS $function$
  select exists (
    select 1 from public.auction_members m join public.auctions a on a.id = m.auction_id
    where m.auction_id = p_auction_id and m.user_id = (select auth.uid()) and a.deleted_at is null)
$function$;
grant execute on function public.is_auction_member(uuid) to anon;
grant execute on function public.is_auction_member(uuid) to authenticated;
grant execute on function public.is_auction_member(uuid) to public;
grant execute on function public.is_auction_member(uuid) to service_role;

-- object: function public.is_placeholder_email(text)
CREATE OR REPLACE FUNCTION public.is_placeholder_email(p_email text)
 RETURNS boolean
 LANGUAGE sql
 IMMUTABLE
AS $function$ select p_email is null or lower(p_email) like '%.invalid' $function$;

-- object: function public.is_super_admin()
CREATE OR REPLACE FUNCTION public.is_super_admin()
 RETURNS boolean
 LANGUAGE plpgsql
 STABLE PARALLEL SAFE SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  return exists (select 1 from public.super_admins where user_id = (select auth.uid()));
end $function$;
grant execute on function public.is_super_admin() to anon;
grant execute on function public.is_super_admin() to authenticated;
grant execute on function public.is_super_admin() to public;
grant execute on function public.is_super_admin() to service_role;

-- object: function public.list_deleted_auctions()
CREATE OR REPLACE FUNCTION public.list_deleted_auctions()
 RETURNS TABLE(id uuid, name text, slug text, deleted_at timestamp with time zone, deleted_by uuid, deleted_by_name text, purge_after timestamp with time zone, member_count integer)
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
  select a.id, a.name, a.slug, a.deleted_at, a.deleted_by, public.user_display_name(a.deleted_by),
    a.purge_after, (select count(*)::integer from public.auction_members m where m.auction_id = a.id)
  from public.auctions a
  where a.deleted_at is not null and public.can_undelete_auction(a.id)
  order by a.purge_after, a.id
$function$;
grant execute on function public.list_deleted_auctions() to authenticated;
grant execute on function public.list_deleted_auctions() to service_role;

-- object: function public.location_recipients(uuid)
CREATE OR REPLACE FUNCTION public.location_recipients(p_location_id uuid)
 RETURNS SETOF uuid
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
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
$function$;
grant execute on function public.location_recipients(uuid) to service_role;

-- object: function public.log_email(text,text,text,text,text)
CREATE OR REPLACE FUNCTION public.log_email(p_to_email text, p_template text, p_status text, p_provider_id text DEFAULT NULL::text, p_error text DEFAULT NULL::text)
 RETURNS uuid
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  v_id uuid;
begin
  if (auth.uid() is null or public.is_anonymous_caller()) and auth.role() is distinct from 'service_role' then
    raise exception 'sign in to log e-mail' using errcode = '42501';
  end if;
  insert into public.email_log (user_id, to_email, template, status, provider_id, error)
  values (auth.uid(), p_to_email, p_template, p_status, p_provider_id, p_error)
  returning id into v_id;
  return v_id;
end $function$;
grant execute on function public.log_email(text,text,text,text,text) to authenticated;
grant execute on function public.log_email(text,text,text,text,text) to service_role;

-- object: function public.mark_channel_as_read(uuid)
CREATE OR REPLACE FUNCTION public.mark_channel_as_read(p_channel_id uuid)
 RETURNS jsonb
 LANGUAGE plpgsql
 SET search_path TO ''
AS $function$
declare
  v_at timestamptz;
begin
  if not exists (select 1 from public.channels where id = p_channel_id) then
    raise exception 'channel not found or not accessible' using errcode = '42501';
  end if;
  insert into public.channel_read_state (user_id, channel_id, auction_id, last_read_at)
  select auth.uid(), c.id, c.auction_id, now() from public.channels c where c.id = p_channel_id
  on conflict (user_id, channel_id) do update set last_read_at = excluded.last_read_at
  returning last_read_at into v_at;
  return jsonb_build_object('channel_id', p_channel_id, 'last_read_at', v_at);
end $function$;
grant execute on function public.mark_channel_as_read(uuid) to authenticated;
grant execute on function public.mark_channel_as_read(uuid) to service_role;

-- object: function public.member_auction_ids()
CREATE OR REPLACE FUNCTION public.member_auction_ids()
 RETURNS SETOF uuid
 LANGUAGE plpgsql
 STABLE PARALLEL SAFE SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  return query
  select m.auction_id from public.auction_members m join public.auctions a on a.id = m.auction_id
  where m.user_id = (select auth.uid()) and a.deleted_at is null
  union all
  select id from public.auctions
  where deleted_at is null and exists (select 1 from public.super_admins where user_id = (select auth.uid()));
end $function$;
grant execute on function public.member_auction_ids() to anon;
grant execute on function public.member_auction_ids() to authenticated;
grant execute on function public.member_auction_ids() to public;
grant execute on function public.member_auction_ids() to service_role;

-- object: function public.members_can_create_channels(uuid)
CREATE OR REPLACE FUNCTION public.members_can_create_channels(p_auction_id uuid)
 RETURNS boolean
 LANGUAGE sql
 STABLE
 SET search_path TO ''
AS $function$
  select coalesce((settings ->> 'members_can_create_channels')::boolean, false) from public.auctions where id = p_auction_id
$function$;
grant execute on function public.members_can_create_channels(uuid) to authenticated;
grant execute on function public.members_can_create_channels(uuid) to service_role;

-- object: function public.purge_deleted_auction_now(uuid)
CREATE OR REPLACE FUNCTION public.purge_deleted_auction_now(p_auction_id uuid)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  v public.auctions;
begin
  if not (auth.role() = 'service_role' or public.is_super_admin()) then
    raise exception 'only super admins may purge an auction' using errcode = '42501';
  end if;
  update public.auctions set purge_after = now() where id = p_auction_id and deleted_at is not null
  returning * into v;
  if not found then
    raise exception 'auction % is not pending deletion', p_auction_id using errcode = 'P0002';
  end if;
  perform pg_notify('auction_purge', v.id::text);
  return jsonb_build_object('id', v.id, 'purge_after', v.purge_after);
end $function$;
grant execute on function public.purge_deleted_auction_now(uuid) to authenticated;
grant execute on function public.purge_deleted_auction_now(uuid) to service_role;

-- object: function public.remove_auction_member(uuid,uuid)
CREATE OR REPLACE FUNCTION public.remove_auction_member(p_auction_id uuid, p_user_id uuid)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  v_caller text := domain.caller_role(p_auction_id);
  v_target public.auction_members;
begin
  -- Leaving is a write too: the self-removal branch below does not go through domain.caller_role.
  if exists (select 1 from public.auctions a where a.id = p_auction_id and a.deleted_at is not null) then
    raise exception 'only auction admins and owners can remove members' using errcode = '42501';
  end if;
  select * into v_target from public.auction_members where auction_id = p_auction_id and user_id = p_user_id for update;
  if not found then
    raise exception 'that user is not a member of this auction' using errcode = 'P0001';
  end if;
  if p_user_id is distinct from auth.uid() then
    if v_caller is null or v_caller = 'team_member' then
      raise exception 'only auction admins and owners can remove members' using errcode = '42501';
    end if;
    if v_target.role = 'owner' and v_caller <> 'owner' then
      raise exception 'only owners can remove an owner' using errcode = '42501';
    end if;
  end if;
  delete from public.auction_members where id = v_target.id;
  return jsonb_build_object('removed', true);
end $function$;
grant execute on function public.remove_auction_member(uuid,uuid) to authenticated;
grant execute on function public.remove_auction_member(uuid,uuid) to service_role;

-- object: function public.replay_failed_webhook_deliveries(uuid,timestamp with time zone)
CREATE OR REPLACE FUNCTION public.replay_failed_webhook_deliveries(endpoint_id uuid, since timestamp with time zone)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  ep public.webhook_endpoints;
  n integer;
begin
  select * into ep from public.webhook_endpoints e where e.id = replay_failed_webhook_deliveries.endpoint_id;
  if not found or not webhooks.can_manage(ep.auction_id) then
    raise exception 'webhook endpoint not found' using errcode = 'P0002';
  end if;
  if not ep.is_active then
    raise exception 'webhook endpoint is disabled' using errcode = '22023', hint = 'set is_active to true first';
  end if;
  if since is null then
    raise exception 'since is required' using errcode = '22023';
  end if;
  update public.webhook_deliveries x
     set status = 'queued', round_start_attempt = x.attempt_count, next_attempt_at = now()
   where x.endpoint_id = ep.id and x.status = 'failed' and x.created_at >= since;
  get diagnostics n = row_count;
  if n > 0 then
    perform pg_notify('webhook_deliveries', '');
  end if;
  return jsonb_build_object('endpoint_id', ep.id, 'replayed', n);
end $function$;
grant execute on function public.replay_failed_webhook_deliveries(uuid,timestamp with time zone) to authenticated;
grant execute on function public.replay_failed_webhook_deliveries(uuid,timestamp with time zone) to service_role;

-- object: function public.replay_webhook_delivery(uuid)
CREATE OR REPLACE FUNCTION public.replay_webhook_delivery(delivery_id uuid)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  d public.webhook_deliveries;
  active boolean;
begin
  select * into d from public.webhook_deliveries x where x.id = replay_webhook_delivery.delivery_id for update;
  if not found or not webhooks.can_manage(d.auction_id) then
    raise exception 'webhook delivery not found' using errcode = 'P0002';
  end if;
  select e.is_active into active from public.webhook_endpoints e where e.id = d.endpoint_id;
  if not active and not d.is_test then
    raise exception 'webhook endpoint is disabled' using errcode = '22023', hint = 'set is_active to true first';
  end if;
  if d.status = 'queued' then
    raise exception 'webhook delivery is already queued' using errcode = '22023';
  end if;
  update public.webhook_deliveries x
     set status = 'queued', round_start_attempt = x.attempt_count, next_attempt_at = now(), delivered_at = null
   where x.id = d.id;
  perform pg_notify('webhook_deliveries', '');
  return jsonb_build_object('delivery_id', d.id, 'status', 'queued');
end $function$;
grant execute on function public.replay_webhook_delivery(uuid) to authenticated;
grant execute on function public.replay_webhook_delivery(uuid) to service_role;

-- object: function public.restore_deleted_auction(uuid)
CREATE OR REPLACE FUNCTION public.restore_deleted_auction(p_auction_id uuid)
 RETURNS public.auctions
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  v public.auctions;
  v_deleted_at timestamptz;
begin
  if not public.can_undelete_auction(p_auction_id) then
    raise exception 'only an owner of the auction or a super admin may undo its deletion' using errcode = '42501';
  end if;
  select deleted_at into v_deleted_at from public.auctions where id = p_auction_id for update;
  if v_deleted_at is null then
    raise exception 'auction % is not pending deletion', p_auction_id using errcode = 'P0002';
  end if;
  update public.auctions set deleted_at = null, deleted_by = null, purge_after = null
   where id = p_auction_id returning * into v;
  perform domain.emit_event(v.id, 'auction.undeleted', jsonb_build_object(
    'id', v.id, 'name', v.name, 'slug', v.slug, 'undeleted_by', public.user_ref(auth.uid()),
    'undeleted_at', now(), 'deleted_at', v_deleted_at));
  return v;
end $function$;
grant execute on function public.restore_deleted_auction(uuid) to authenticated;
grant execute on function public.restore_deleted_auction(uuid) to service_role;

-- object: function public.retry_webhook_delivery_now(uuid)
CREATE OR REPLACE FUNCTION public.retry_webhook_delivery_now(delivery_id uuid)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  d public.webhook_deliveries;
  active boolean;
begin
  select * into d from public.webhook_deliveries x where x.id = retry_webhook_delivery_now.delivery_id for update;
  if not found or not webhooks.can_manage(d.auction_id) then
    raise exception 'webhook delivery not found' using errcode = 'P0002';
  end if;
  select e.is_active into active from public.webhook_endpoints e where e.id = d.endpoint_id;
  if not active and not d.is_test then
    raise exception 'webhook endpoint is disabled' using errcode = '22023', hint = 'set is_active to true first';
  end if;
  if d.status <> 'queued' then
    raise exception 'webhook delivery is not queued (it is %)', d.status using errcode = '22023',
      hint = 'replay_webhook_delivery sends a delivered or failed one again';
  end if;
  if d.locked_until is not null and d.locked_until > now() then
    raise exception 'webhook delivery is being attempted now' using errcode = '55006',
      hint = 'wait for the attempt to end';
  end if;
  update public.webhook_deliveries x set next_attempt_at = now() where x.id = d.id;
  perform pg_notify('webhook_deliveries', '');
  return jsonb_build_object('delivery_id', d.id, 'status', 'queued');
end $function$;
grant execute on function public.retry_webhook_delivery_now(uuid) to authenticated;
grant execute on function public.retry_webhook_delivery_now(uuid) to service_role;

-- object: function public.test_webhook(uuid,text)
CREATE OR REPLACE FUNCTION public.test_webhook(endpoint_id uuid, event_type text)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  ep public.webhook_endpoints;
  delivery uuid := gen_random_uuid();
begin
  select * into ep from public.webhook_endpoints e where e.id = test_webhook.endpoint_id;
  if not found or not webhooks.can_manage(ep.auction_id) then
    raise exception 'webhook endpoint not found' using errcode = 'P0002';
  end if;
  if test_webhook.event_type is null or test_webhook.event_type <> all (webhooks.event_types()) then
    raise exception 'unknown webhook event type: %', test_webhook.event_type using errcode = '22023';
  end if;
  insert into public.webhook_deliveries (id, endpoint_id, auction_id, event_type, payload, is_test)
  values (delivery, ep.id, ep.auction_id, test_webhook.event_type,
          webhooks.build_payload(test_webhook.event_type, now(), delivery, ep.auction_id,
                                 webhooks.sample_event_data(test_webhook.event_type)), true);
  perform pg_notify('webhook_deliveries', '');
  return jsonb_build_object('delivery_id', delivery, 'status', 'queued');
end $function$;
grant execute on function public.test_webhook(uuid,text) to authenticated;
grant execute on function public.test_webhook(uuid,text) to service_role;

-- object: function public.transfer_auction_ownership(uuid,uuid)
CREATE OR REPLACE FUNCTION public.transfer_auction_ownership(p_auction_id uuid, p_new_owner_id uuid)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  v_uid uuid := auth.uid();
begin
  if public.get_user_auction_role(p_auction_id) is distinct from 'owner' then
    raise exception 'only the owner can transfer ownership' using errcode = '42501';
  end if;
  if p_new_owner_id = v_uid then
    raise exception 'you already own this auction' using errcode = 'P0001';
  end if;
  if not exists (select 1 from public.auction_members where auction_id = p_auction_id and user_id = p_new_owner_id) then
    raise exception 'the new owner must be a member of the auction' using errcode = 'P0001';
  end if;
  update public.auction_members set role = 'owner' where auction_id = p_auction_id and user_id = p_new_owner_id;
  update public.auction_members set role = 'admin' where auction_id = p_auction_id and user_id = v_uid;
  return jsonb_build_object('auction_id', p_auction_id, 'new_owner_id', p_new_owner_id, 'previous_owner_id', v_uid);
end $function$;
grant execute on function public.transfer_auction_ownership(uuid,uuid) to authenticated;
grant execute on function public.transfer_auction_ownership(uuid,uuid) to service_role;

-- object: function public.user_display_name(uuid)
CREATE OR REPLACE FUNCTION public.user_display_name(p_user_id uuid)
 RETURNS text
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  return (select public.display_name(full_name, email) from public.users where id = p_user_id);
end $function$;
grant execute on function public.user_display_name(uuid) to service_role;

-- object: function public.user_ref(uuid)
CREATE OR REPLACE FUNCTION public.user_ref(p_user_id uuid)
 RETURNS jsonb
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  if p_user_id is null then
    return null;
  end if;
  return jsonb_build_object('id', p_user_id, 'name', coalesce(public.user_display_name(p_user_id), 'Deleted user'));
end $function$;
grant execute on function public.user_ref(uuid) to service_role;

-- object: publication auction_ops_realtime
create publication auction_ops_realtime for table public.auctions, public.auction_branding, public.auction_members, public.auction_invitations, public.super_admins, public.locations, public.location_assignments, public.submission_types, public.location_submission_types, public.lot_submissions, public.lot_submission_entries, public.defect_categories, public.quality_inspections, public.quality_defects, public.problem_reports, public.problem_facts, public.potential_causes, public.problem_actions, public.channels, public.messages, public.message_reactions, public.channel_read_state, public.channel_notification_preferences, public.datasets, public.saved_reports;

-- object: table public.auction_branding
create table public.auction_branding (
  auction_id uuid not null,
  logo_url text,
  primary_color text,
  secondary_color text,
  app_name text,
  updated_at timestamp with time zone not null default now()
);
alter table public.auction_branding enable row level security;
alter table public.auction_branding add constraint auction_branding_auction_id_fkey FOREIGN KEY (auction_id) REFERENCES public.auctions(id) ON DELETE CASCADE;
alter table public.auction_branding add constraint auction_branding_pkey PRIMARY KEY (auction_id);
alter table public.auction_branding add constraint auction_branding_primary_color_check CHECK ((primary_color ~ '^#[0-9A-Fa-f]{6}$'::text));
alter table public.auction_branding add constraint auction_branding_secondary_color_check CHECK ((secondary_color ~ '^#[0-9A-Fa-f]{6}$'::text));
create policy auction_branding_delete on public.auction_branding as permissive for delete to authenticated
  using ((auction_id IN ( SELECT public.admin_auction_ids() AS admin_auction_ids)));
create policy auction_branding_insert on public.auction_branding as permissive for insert to authenticated
  with check ((auction_id IN ( SELECT public.admin_auction_ids() AS admin_auction_ids)));
create policy auction_branding_not_anonymous on public.auction_branding as restrictive for all to authenticated
  using ((NOT ( SELECT public.is_anonymous_caller() AS is_anonymous_caller)))
  with check ((NOT ( SELECT public.is_anonymous_caller() AS is_anonymous_caller)));
create policy auction_branding_select on public.auction_branding as permissive for select to authenticated
  using ((auction_id = ANY (ARRAY( SELECT public.member_auction_ids() AS member_auction_ids))));
create policy auction_branding_update on public.auction_branding as permissive for update to authenticated
  using ((auction_id IN ( SELECT public.admin_auction_ids() AS admin_auction_ids)))
  with check ((auction_id IN ( SELECT public.admin_auction_ids() AS admin_auction_ids)));
CREATE TRIGGER auction_branding_object_links_insert AFTER INSERT ON public.auction_branding FOR EACH ROW WHEN (new.logo_url ~~ '%/storage/v1/%'::text) EXECUTE FUNCTION domain.object_links_check('logo_url');
CREATE TRIGGER auction_branding_object_links_update AFTER UPDATE ON public.auction_branding FOR EACH ROW WHEN ((new.logo_url IS DISTINCT FROM old.logo_url OR new.auction_id IS DISTINCT FROM old.auction_id) AND new.logo_url ~~ '%/storage/v1/%'::text) EXECUTE FUNCTION domain.object_links_check('logo_url');
CREATE TRIGGER auction_branding_updated_at BEFORE UPDATE ON public.auction_branding FOR EACH ROW EXECUTE FUNCTION domain.set_updated_at();
grant delete, insert, select, update on public.auction_branding to authenticated;
grant delete, insert, references, select, trigger, truncate, update on public.auction_branding to service_role;

-- object: table public.auction_invitations
create table public.auction_invitations (
  id uuid not null default gen_random_uuid(),
  auction_id uuid not null,
  email text not null,
  role text not null,
  token_hash text not null,
  invited_by uuid,
  expires_at timestamp with time zone not null default (now() + '7 days'::interval),
  accepted_at timestamp with time zone,
  accepted_by uuid,
  revoked_at timestamp with time zone,
  created_at timestamp with time zone not null default now()
);
alter table public.auction_invitations enable row level security;
alter table public.auction_invitations add constraint auction_invitations_accepted_by_fkey FOREIGN KEY (accepted_by) REFERENCES public.users(id) ON DELETE SET NULL;
alter table public.auction_invitations add constraint auction_invitations_auction_id_fkey FOREIGN KEY (auction_id) REFERENCES public.auctions(id) ON DELETE CASCADE;
alter table public.auction_invitations add constraint auction_invitations_invited_by_fkey FOREIGN KEY (invited_by) REFERENCES public.users(id) ON DELETE SET NULL;
alter table public.auction_invitations add constraint auction_invitations_pkey PRIMARY KEY (id);
alter table public.auction_invitations add constraint auction_invitations_role_check CHECK ((role = ANY (ARRAY['owner'::text, 'admin'::text, 'team_member'::text])));
alter table public.auction_invitations add constraint auction_invitations_token_hash_key UNIQUE (token_hash);
CREATE INDEX auction_invitations_auction_id_idx ON public.auction_invitations USING btree (auction_id, created_at DESC);
create policy auction_invitations_not_anonymous on public.auction_invitations as restrictive for all to authenticated
  using ((NOT ( SELECT public.is_anonymous_caller() AS is_anonymous_caller)))
  with check ((NOT ( SELECT public.is_anonymous_caller() AS is_anonymous_caller)));
create policy auction_invitations_revoke on public.auction_invitations as permissive for update to authenticated
  using ((auction_id IN ( SELECT public.admin_auction_ids() AS admin_auction_ids)))
  with check ((auction_id IN ( SELECT public.admin_auction_ids() AS admin_auction_ids)));
create policy auction_invitations_select on public.auction_invitations as permissive for select to authenticated
  using ((auction_id = ANY (ARRAY( SELECT public.admin_auction_ids() AS admin_auction_ids))));
CREATE TRIGGER auction_invitations_expiry BEFORE INSERT ON public.auction_invitations FOR EACH ROW EXECUTE FUNCTION notifications.invitation_expiry();
grant delete, insert, references, select, trigger, truncate, update on public.auction_invitations to service_role;

-- object: table public.auction_members
create table public.auction_members (
  id uuid not null default gen_random_uuid(),
  auction_id uuid not null,
  user_id uuid not null,
  role text not null,
  joined_at timestamp with time zone not null default now()
);
alter table public.auction_members enable row level security;
alter table public.auction_members add constraint auction_members_auction_id_fkey FOREIGN KEY (auction_id) REFERENCES public.auctions(id) ON DELETE CASCADE;
alter table public.auction_members add constraint auction_members_auction_id_user_id_key UNIQUE (auction_id, user_id);
alter table public.auction_members add constraint auction_members_pkey PRIMARY KEY (id);
alter table public.auction_members add constraint auction_members_role_check CHECK ((role = ANY (ARRAY['owner'::text, 'admin'::text, 'team_member'::text])));
alter table public.auction_members add constraint auction_members_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id) ON DELETE CASCADE;
CREATE INDEX auction_members_user_id_idx ON public.auction_members USING btree (user_id, auction_id, role);
create policy auction_members_not_anonymous on public.auction_members as restrictive for all to authenticated
  using ((NOT ( SELECT public.is_anonymous_caller() AS is_anonymous_caller)))
  with check ((NOT ( SELECT public.is_anonymous_caller() AS is_anonymous_caller)));
create policy auction_members_select on public.auction_members as permissive for select to authenticated
  using ((auction_id = ANY (ARRAY( SELECT public.member_auction_ids() AS member_auction_ids))));
CREATE TRIGGER auction_members_events AFTER DELETE OR UPDATE OF role ON public.auction_members FOR EACH ROW EXECUTE FUNCTION domain.auction_members_events();
CREATE TRIGGER auction_members_keep_owner AFTER DELETE OR UPDATE OF role ON public.auction_members FOR EACH ROW EXECUTE FUNCTION domain.auction_members_keep_owner();
grant select on public.auction_members to authenticated;
grant delete, insert, references, select, trigger, truncate, update on public.auction_members to service_role;

-- object: table public.auctions
create table public.auctions (
  id uuid not null default gen_random_uuid(),
  name text not null,
  slug text not null,
  is_active boolean not null default true,
  subscription_tier text not null default 'free'::text,
  settings jsonb not null default '{"timezone": "UTC"}'::jsonb,
  created_by uuid,
  created_at timestamp with time zone not null default now(),
  updated_at timestamp with time zone not null default now(),
  deleted_at timestamp with time zone,
  deleted_by uuid,
  purge_after timestamp with time zone
);
alter table public.auctions enable row level security;
alter table public.auctions add constraint auctions_created_by_fkey FOREIGN KEY (created_by) REFERENCES public.users(id) ON DELETE SET NULL;
alter table public.auctions add constraint auctions_deleted_by_fkey FOREIGN KEY (deleted_by) REFERENCES public.users(id) ON DELETE SET NULL;
alter table public.auctions add constraint auctions_name_check CHECK ((length(TRIM(BOTH FROM name)) > 0));
alter table public.auctions add constraint auctions_pkey PRIMARY KEY (id);
alter table public.auctions add constraint auctions_settings_check CHECK ((jsonb_typeof(settings) = 'object'::text));
alter table public.auctions add constraint auctions_slug_check CHECK ((slug ~ '^[a-z0-9]+(-[a-z0-9]+)*$'::text));
alter table public.auctions add constraint auctions_slug_key UNIQUE (slug);
alter table public.auctions add constraint auctions_subscription_tier_check CHECK ((subscription_tier = ANY (ARRAY['free'::text, 'pro'::text, 'enterprise'::text])));
CREATE INDEX auctions_created_by_idx ON public.auctions USING btree (created_by);
CREATE INDEX auctions_deleted_idx ON public.auctions USING btree (purge_after) WHERE (deleted_at IS NOT NULL);
create policy auctions_delete on public.auctions as permissive for delete to authenticated
  using ((( SELECT public.is_super_admin() AS is_super_admin) OR (id = ANY (ARRAY( SELECT public.current_user_auction_ids() AS current_user_auction_ids)))));
create policy auctions_insert on public.auctions as permissive for insert to authenticated
  with check ((( SELECT auth.uid() AS uid) IS NOT NULL));
create policy auctions_not_anonymous on public.auctions as restrictive for all to authenticated
  using ((NOT ( SELECT public.is_anonymous_caller() AS is_anonymous_caller)))
  with check ((NOT ( SELECT public.is_anonymous_caller() AS is_anonymous_caller)));
create policy auctions_not_deleted on public.auctions as restrictive for all to authenticated
  using ((deleted_at IS NULL))
  with check ((deleted_at IS NULL));
create policy auctions_select on public.auctions as permissive for select to authenticated
  using ((( SELECT public.is_super_admin() AS is_super_admin) OR (id = ANY (ARRAY( SELECT public.current_user_auction_ids() AS current_user_auction_ids))) OR ((created_by = ( SELECT auth.uid() AS uid)) AND (created_at = now()))));
create policy auctions_update on public.auctions as permissive for update to authenticated
  using ((( SELECT public.is_super_admin() AS is_super_admin) OR (id IN ( SELECT public.current_user_admin_auction_ids() AS current_user_admin_auction_ids))))
  with check ((( SELECT public.is_super_admin() AS is_super_admin) OR (id IN ( SELECT public.current_user_admin_auction_ids() AS current_user_admin_auction_ids))));
CREATE TRIGGER auctions_add_owner AFTER INSERT ON public.auctions FOR EACH ROW EXECUTE FUNCTION domain.auctions_add_owner();
CREATE TRIGGER auctions_after_delete AFTER DELETE ON public.auctions FOR EACH ROW EXECUTE FUNCTION domain.auctions_after_delete();
CREATE TRIGGER auctions_before_delete BEFORE DELETE ON public.auctions FOR EACH ROW EXECUTE FUNCTION domain.auctions_before_delete();
CREATE TRIGGER auctions_before_insert BEFORE INSERT ON public.auctions FOR EACH ROW EXECUTE FUNCTION domain.auctions_before_insert();
CREATE TRIGGER auctions_before_update BEFORE UPDATE ON public.auctions FOR EACH ROW EXECUTE FUNCTION domain.auctions_before_update();
CREATE TRIGGER auctions_mfa_setting_guard BEFORE UPDATE OF settings ON public.auctions FOR EACH ROW EXECUTE FUNCTION domain.auctions_mfa_setting_guard();
CREATE TRIGGER rollup_auction_zone AFTER UPDATE OF settings ON public.auctions FOR EACH ROW WHEN ((old.settings ->> 'timezone'::text) IS DISTINCT FROM (new.settings ->> 'timezone'::text)) EXECUTE FUNCTION analytics.auction_zone_changed();
grant delete, insert, select on public.auctions to authenticated;
grant delete, insert, references, select, trigger, truncate, update on public.auctions to service_role;

-- object: table public.channel_notification_preferences
create table public.channel_notification_preferences (
  user_id uuid not null default auth.uid(),
  channel_id uuid not null,
  auction_id uuid not null,
  preference text not null default 'all'::text,
  updated_at timestamp with time zone not null default now()
);
alter table public.channel_notification_preferences enable row level security;
alter table public.channel_notification_preferences add constraint channel_notification_preferences_auction_id_fkey FOREIGN KEY (auction_id) REFERENCES public.auctions(id) ON DELETE CASCADE;
alter table public.channel_notification_preferences add constraint channel_notification_preferences_channel_id_fkey FOREIGN KEY (channel_id) REFERENCES public.channels(id) ON DELETE CASCADE;
alter table public.channel_notification_preferences add constraint channel_notification_preferences_pkey PRIMARY KEY (user_id, channel_id);
alter table public.channel_notification_preferences add constraint channel_notification_preferences_preference_check CHECK ((preference = ANY (ARRAY['all'::text, 'mentions'::text, 'none'::text])));
alter table public.channel_notification_preferences add constraint channel_notification_preferences_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id) ON DELETE CASCADE;
create policy channel_notification_preferences_not_anonymous on public.channel_notification_preferences as restrictive for all to authenticated
  using ((NOT ( SELECT public.is_anonymous_caller() AS is_anonymous_caller)))
  with check ((NOT ( SELECT public.is_anonymous_caller() AS is_anonymous_caller)));
create policy channel_notification_preferences_not_deleted on public.channel_notification_preferences as restrictive for all to authenticated
  using ((NOT (auction_id = ANY (ARRAY( SELECT public.deleted_auction_ids() AS deleted_auction_ids)))))
  with check ((NOT (auction_id = ANY (ARRAY( SELECT public.deleted_auction_ids() AS deleted_auction_ids)))));
create policy channel_notification_preferences_own on public.channel_notification_preferences as permissive for all to authenticated
  using ((user_id = ( SELECT auth.uid() AS uid)))
  with check (((user_id = ( SELECT auth.uid() AS uid)) AND (auction_id IN ( SELECT public.current_user_auction_ids() AS current_user_auction_ids))));
CREATE TRIGGER channel_notification_preferences_fill BEFORE INSERT OR UPDATE ON public.channel_notification_preferences FOR EACH ROW EXECUTE FUNCTION domain.chat_children_fill();
grant delete, insert, select, update on public.channel_notification_preferences to authenticated;
grant delete, insert, references, select, trigger, truncate, update on public.channel_notification_preferences to service_role;

-- object: table public.channel_read_state
create table public.channel_read_state (
  user_id uuid not null default auth.uid(),
  channel_id uuid not null,
  auction_id uuid not null,
  last_read_at timestamp with time zone not null default now()
);
alter table public.channel_read_state enable row level security;
alter table public.channel_read_state add constraint channel_read_state_auction_id_fkey FOREIGN KEY (auction_id) REFERENCES public.auctions(id) ON DELETE CASCADE;
alter table public.channel_read_state add constraint channel_read_state_channel_id_fkey FOREIGN KEY (channel_id) REFERENCES public.channels(id) ON DELETE CASCADE;
alter table public.channel_read_state add constraint channel_read_state_pkey PRIMARY KEY (user_id, channel_id);
alter table public.channel_read_state add constraint channel_read_state_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id) ON DELETE CASCADE;
create policy channel_read_state_not_anonymous on public.channel_read_state as restrictive for all to authenticated
  using ((NOT ( SELECT public.is_anonymous_caller() AS is_anonymous_caller)))
  with check ((NOT ( SELECT public.is_anonymous_caller() AS is_anonymous_caller)));
create policy channel_read_state_not_deleted on public.channel_read_state as restrictive for all to authenticated
  using ((NOT (auction_id = ANY (ARRAY( SELECT public.deleted_auction_ids() AS deleted_auction_ids)))))
  with check ((NOT (auction_id = ANY (ARRAY( SELECT public.deleted_auction_ids() AS deleted_auction_ids)))));
create policy channel_read_state_own on public.channel_read_state as permissive for all to authenticated
  using ((user_id = ( SELECT auth.uid() AS uid)))
  with check (((user_id = ( SELECT auth.uid() AS uid)) AND (auction_id IN ( SELECT public.member_auction_ids() AS member_auction_ids))));
CREATE TRIGGER channel_read_state_fill BEFORE INSERT OR UPDATE ON public.channel_read_state FOR EACH ROW EXECUTE FUNCTION domain.chat_children_fill();
grant delete, insert, select, update on public.channel_read_state to authenticated;
grant delete, insert, references, select, trigger, truncate, update on public.channel_read_state to service_role;

-- object: table public.channels
create table public.channels (
  id uuid not null default gen_random_uuid(),
  auction_id uuid not null,
  name text not null,
  description text,
  location_id uuid,
  is_default boolean not null default false,
  is_archived boolean not null default false,
  archived_at timestamp with time zone,
  created_by uuid default auth.uid(),
  created_at timestamp with time zone not null default now(),
  updated_at timestamp with time zone not null default now()
);
alter table public.channels enable row level security;
alter table public.channels add constraint channels_auction_id_fkey FOREIGN KEY (auction_id) REFERENCES public.auctions(id) ON DELETE CASCADE;
alter table public.channels add constraint channels_created_by_fkey FOREIGN KEY (created_by) REFERENCES public.users(id) ON DELETE SET NULL;
alter table public.channels add constraint channels_location_id_fkey FOREIGN KEY (location_id) REFERENCES public.locations(id) ON DELETE SET NULL;
alter table public.channels add constraint channels_name_check CHECK ((length(TRIM(BOTH FROM name)) > 0));
alter table public.channels add constraint channels_pkey PRIMARY KEY (id);
CREATE INDEX channels_auction_idx ON public.channels USING btree (auction_id, is_archived, name);
CREATE UNIQUE INDEX channels_name_key ON public.channels USING btree (auction_id, lower(name)) WHERE (NOT is_archived);
create policy channels_delete on public.channels as permissive for delete to authenticated
  using ((auction_id IN ( SELECT public.admin_auction_ids() AS admin_auction_ids)));
create policy channels_insert on public.channels as permissive for insert to authenticated
  with check (((auction_id IN ( SELECT public.admin_auction_ids() AS admin_auction_ids)) OR ((auction_id IN ( SELECT public.current_user_auction_ids() AS current_user_auction_ids)) AND (created_by = ( SELECT auth.uid() AS uid)) AND public.members_can_create_channels(auction_id))));
create policy channels_not_anonymous on public.channels as restrictive for all to authenticated
  using ((NOT ( SELECT public.is_anonymous_caller() AS is_anonymous_caller)))
  with check ((NOT ( SELECT public.is_anonymous_caller() AS is_anonymous_caller)));
create policy channels_select on public.channels as permissive for select to authenticated
  using (((auction_id = ANY (ARRAY( SELECT public.admin_auction_ids() AS admin_auction_ids))) OR ((NOT is_archived) AND (auction_id = ANY (ARRAY( SELECT public.current_user_auction_ids() AS current_user_auction_ids))) AND (NOT (id = ANY (ARRAY( SELECT public.current_user_hidden_channel_ids() AS current_user_hidden_channel_ids)))))));
create policy channels_update on public.channels as permissive for update to authenticated
  using ((auction_id IN ( SELECT public.admin_auction_ids() AS admin_auction_ids)))
  with check ((auction_id IN ( SELECT public.admin_auction_ids() AS admin_auction_ids)));
CREATE TRIGGER channels_check BEFORE INSERT OR UPDATE ON public.channels FOR EACH ROW EXECUTE FUNCTION domain.channels_check();
CREATE TRIGGER channels_events AFTER INSERT OR UPDATE OF is_archived ON public.channels FOR EACH ROW EXECUTE FUNCTION domain.chat_events();
CREATE TRIGGER channels_updated_at BEFORE UPDATE ON public.channels FOR EACH ROW EXECUTE FUNCTION domain.set_updated_at();
CREATE TRIGGER rollup_channel_delete AFTER DELETE ON public.channels FOR EACH ROW EXECUTE FUNCTION analytics.channel_deleted();
grant delete, insert, select, update on public.channels to authenticated;
grant delete, insert, references, select, trigger, truncate, update on public.channels to service_role;

-- object: table public.datasets
create table public.datasets (
  id uuid not null default gen_random_uuid(),
  auction_id uuid not null,
  name text not null,
  description text,
  columns jsonb not null default '[]'::jsonb,
  row_count integer not null default 0,
  status text not null default 'pending'::text,
  table_name text,
  created_by uuid default auth.uid(),
  created_at timestamp with time zone not null default now(),
  updated_at timestamp with time zone not null default now()
);
alter table public.datasets enable row level security;
alter table public.datasets add constraint datasets_auction_id_fkey FOREIGN KEY (auction_id) REFERENCES public.auctions(id) ON DELETE CASCADE;
alter table public.datasets add constraint datasets_created_by_fkey FOREIGN KEY (created_by) REFERENCES public.users(id) ON DELETE SET NULL;
alter table public.datasets add constraint datasets_name_check CHECK ((length(TRIM(BOTH FROM name)) > 0));
alter table public.datasets add constraint datasets_pkey PRIMARY KEY (id);
alter table public.datasets add constraint datasets_row_count_check CHECK ((row_count >= 0));
alter table public.datasets add constraint datasets_status_check CHECK ((status = ANY (ARRAY['pending'::text, 'importing'::text, 'ready'::text, 'failed'::text])));
alter table public.datasets add constraint datasets_table_name_check CHECK ((table_name ~ '^[a-z_][a-z0-9_]{0,62}$'::text));
alter table public.datasets add constraint datasets_table_name_key UNIQUE (table_name);
CREATE INDEX datasets_auction_idx ON public.datasets USING btree (auction_id, created_at DESC);
create policy datasets_delete on public.datasets as permissive for delete to authenticated
  using ((auction_id IN ( SELECT public.admin_auction_ids() AS admin_auction_ids)));
create policy datasets_insert on public.datasets as permissive for insert to authenticated
  with check ((auction_id IN ( SELECT public.admin_auction_ids() AS admin_auction_ids)));
create policy datasets_not_anonymous on public.datasets as restrictive for all to authenticated
  using ((NOT ( SELECT public.is_anonymous_caller() AS is_anonymous_caller)))
  with check ((NOT ( SELECT public.is_anonymous_caller() AS is_anonymous_caller)));
create policy datasets_select on public.datasets as permissive for select to authenticated
  using ((auction_id = ANY (ARRAY( SELECT public.member_auction_ids() AS member_auction_ids))));
create policy datasets_update on public.datasets as permissive for update to authenticated
  using ((auction_id IN ( SELECT public.admin_auction_ids() AS admin_auction_ids)))
  with check ((auction_id IN ( SELECT public.admin_auction_ids() AS admin_auction_ids)));
CREATE TRIGGER datasets_updated_at BEFORE UPDATE ON public.datasets FOR EACH ROW EXECUTE FUNCTION domain.set_updated_at();
grant delete, insert, select, update on public.datasets to authenticated;
grant delete, insert, references, select, trigger, truncate, update on public.datasets to service_role;

-- object: table public.defect_categories
create table public.defect_categories (
  id uuid not null default gen_random_uuid(),
  auction_id uuid,
  name text not null,
  display_order integer not null default 0,
  is_active boolean not null default true,
  created_at timestamp with time zone not null default now()
);
alter table public.defect_categories enable row level security;
alter table public.defect_categories add constraint defect_categories_auction_id_fkey FOREIGN KEY (auction_id) REFERENCES public.auctions(id) ON DELETE CASCADE;
alter table public.defect_categories add constraint defect_categories_name_check CHECK ((length(TRIM(BOTH FROM name)) > 0));
alter table public.defect_categories add constraint defect_categories_pkey PRIMARY KEY (id);
CREATE UNIQUE INDEX defect_categories_name_key ON public.defect_categories USING btree (COALESCE(auction_id, '00000000-0000-0000-0000-000000000000'::uuid), lower(name));
CREATE INDEX defect_categories_order_idx ON public.defect_categories USING btree (display_order, name);
create policy defect_categories_delete on public.defect_categories as permissive for delete to authenticated
  using (((auction_id IN ( SELECT public.admin_auction_ids() AS admin_auction_ids)) OR ((auction_id IS NULL) AND ( SELECT public.is_super_admin() AS is_super_admin))));
create policy defect_categories_insert on public.defect_categories as permissive for insert to authenticated
  with check (((auction_id IN ( SELECT public.admin_auction_ids() AS admin_auction_ids)) OR ((auction_id IS NULL) AND ( SELECT public.is_super_admin() AS is_super_admin))));
create policy defect_categories_not_anonymous on public.defect_categories as restrictive for all to authenticated
  using ((NOT ( SELECT public.is_anonymous_caller() AS is_anonymous_caller)))
  with check ((NOT ( SELECT public.is_anonymous_caller() AS is_anonymous_caller)));
create policy defect_categories_select on public.defect_categories as permissive for select to authenticated
  using (((auction_id IS NULL) OR (auction_id = ANY (ARRAY( SELECT public.member_auction_ids() AS member_auction_ids)))));
create policy defect_categories_update on public.defect_categories as permissive for update to authenticated
  using (((auction_id IN ( SELECT public.admin_auction_ids() AS admin_auction_ids)) OR ((auction_id IS NULL) AND ( SELECT public.is_super_admin() AS is_super_admin))))
  with check (((auction_id IN ( SELECT public.admin_auction_ids() AS admin_auction_ids)) OR ((auction_id IS NULL) AND ( SELECT public.is_super_admin() AS is_super_admin))));
grant delete, insert, select, update on public.defect_categories to authenticated;
grant delete, insert, references, select, trigger, truncate, update on public.defect_categories to service_role;

-- object: table public.email_log
create table public.email_log (
  id uuid not null default gen_random_uuid(),
  user_id uuid,
  to_email text not null,
  template text not null,
  status text not null,
  provider_id text,
  error text,
  created_at timestamp with time zone not null default now()
);
alter table public.email_log enable row level security;
alter table public.email_log add constraint email_log_pkey PRIMARY KEY (id);
alter table public.email_log add constraint email_log_status_check CHECK ((status = ANY (ARRAY['sent'::text, 'failed'::text, 'stored'::text])));
alter table public.email_log add constraint email_log_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id) ON DELETE SET NULL;
CREATE INDEX email_log_user_idx ON public.email_log USING btree (user_id, created_at DESC);
create policy email_log_not_anonymous on public.email_log as restrictive for all to authenticated
  using ((NOT ( SELECT public.is_anonymous_caller() AS is_anonymous_caller)))
  with check ((NOT ( SELECT public.is_anonymous_caller() AS is_anonymous_caller)));
create policy email_log_select on public.email_log as permissive for select to authenticated
  using (((user_id = ( SELECT auth.uid() AS uid)) OR ( SELECT public.is_super_admin() AS is_super_admin)));
grant select on public.email_log to authenticated;
grant delete, insert, references, select, trigger, truncate, update on public.email_log to service_role;

-- object: table public.event_outbox
create table public.event_outbox (
  id uuid not null default gen_random_uuid(),
  auction_id uuid not null,
  event_type text not null,
  occurred_at timestamp with time zone not null default clock_timestamp(),
  data jsonb not null default '{}'::jsonb
);
alter table public.event_outbox enable row level security;
alter table public.event_outbox add constraint event_outbox_event_type_fkey FOREIGN KEY (event_type) REFERENCES public.event_types(name) NOT VALID;
alter table public.event_outbox add constraint event_outbox_pkey PRIMARY KEY (id);
CREATE INDEX event_outbox_auction_id_idx ON public.event_outbox USING btree (auction_id, occurred_at);
create policy event_outbox_not_anonymous on public.event_outbox as restrictive for all to authenticated
  using ((NOT ( SELECT public.is_anonymous_caller() AS is_anonymous_caller)))
  with check ((NOT ( SELECT public.is_anonymous_caller() AS is_anonymous_caller)));
create policy event_outbox_select on public.event_outbox as permissive for select to authenticated
  using ((auction_id = ANY (ARRAY( SELECT public.admin_auction_ids() AS admin_auction_ids))));
CREATE TRIGGER event_outbox_fan_out AFTER INSERT ON public.event_outbox FOR EACH ROW EXECUTE FUNCTION webhooks.fan_out_event();
CREATE TRIGGER event_outbox_queue_notifications AFTER INSERT ON public.event_outbox FOR EACH ROW WHEN (new.event_type = ANY (ARRAY['message.created'::text, 'submission.created'::text])) EXECUTE FUNCTION notifications.queue_from_event();
grant select on public.event_outbox to authenticated;
grant delete, insert, references, select, trigger, truncate, update on public.event_outbox to service_role;

-- object: table public.event_types
create table public.event_types (
  name text not null,
  area text not null,
  emitted_when text not null,
  sample jsonb not null,
  since_version text not null,
  fields jsonb not null,
  data_fields text not null generated always as (domain.event_fields_text(fields)) stored
);
alter table public.event_types enable row level security;
alter table public.event_types add constraint event_types_fields_check CHECK ((jsonb_typeof(fields) = 'object'::text));
alter table public.event_types add constraint event_types_name_check CHECK ((name ~ '^[a-z_]+\.[a-z_]+$'::text));
alter table public.event_types add constraint event_types_pkey PRIMARY KEY (name);
alter table public.event_types add constraint event_types_sample_check CHECK ((jsonb_typeof(sample) = 'object'::text));
alter table public.event_types add constraint event_types_sample_conforms CHECK ((cardinality(domain.event_data_mismatches(sample, fields)) = 0));
alter table public.event_types add constraint event_types_since_version_check CHECK ((since_version ~ '^\d+\.\d+\.\d+$'::text));
create policy event_types_read on public.event_types as permissive for select to public
  using (true);
grant select on public.event_types to anon;
grant select on public.event_types to authenticated;
grant select on public.event_types to service_role;

-- object: table public.location_assignments
create table public.location_assignments (
  id uuid not null default gen_random_uuid(),
  auction_id uuid not null,
  location_id uuid not null,
  user_id uuid not null,
  created_by uuid default auth.uid(),
  created_at timestamp with time zone not null default now()
);
alter table public.location_assignments enable row level security;
alter table public.location_assignments add constraint location_assignments_auction_id_fkey FOREIGN KEY (auction_id) REFERENCES public.auctions(id) ON DELETE CASCADE;
alter table public.location_assignments add constraint location_assignments_created_by_fkey FOREIGN KEY (created_by) REFERENCES public.users(id) ON DELETE SET NULL;
alter table public.location_assignments add constraint location_assignments_location_id_fkey FOREIGN KEY (location_id) REFERENCES public.locations(id) ON DELETE CASCADE;
alter table public.location_assignments add constraint location_assignments_pkey PRIMARY KEY (id);
alter table public.location_assignments add constraint location_assignments_unique UNIQUE (location_id, user_id);
alter table public.location_assignments add constraint location_assignments_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id) ON DELETE CASCADE;
CREATE INDEX location_assignments_user_idx ON public.location_assignments USING btree (user_id);
create policy location_assignments_delete on public.location_assignments as permissive for delete to authenticated
  using ((auction_id IN ( SELECT public.admin_auction_ids() AS admin_auction_ids)));
create policy location_assignments_insert on public.location_assignments as permissive for insert to authenticated
  with check ((auction_id IN ( SELECT public.admin_auction_ids() AS admin_auction_ids)));
create policy location_assignments_not_anonymous on public.location_assignments as restrictive for all to authenticated
  using ((NOT ( SELECT public.is_anonymous_caller() AS is_anonymous_caller)))
  with check ((NOT ( SELECT public.is_anonymous_caller() AS is_anonymous_caller)));
create policy location_assignments_not_deleted on public.location_assignments as restrictive for all to authenticated
  using ((NOT (auction_id = ANY (ARRAY( SELECT public.deleted_auction_ids() AS deleted_auction_ids)))))
  with check ((NOT (auction_id = ANY (ARRAY( SELECT public.deleted_auction_ids() AS deleted_auction_ids)))));
create policy location_assignments_select on public.location_assignments as permissive for select to authenticated
  using (((auction_id = ANY (ARRAY( SELECT public.admin_auction_ids() AS admin_auction_ids))) OR (user_id = ( SELECT auth.uid() AS uid))));
create policy location_assignments_update on public.location_assignments as permissive for update to authenticated
  using ((auction_id IN ( SELECT public.admin_auction_ids() AS admin_auction_ids)))
  with check ((auction_id IN ( SELECT public.admin_auction_ids() AS admin_auction_ids)));
CREATE TRIGGER location_assignments_fill BEFORE INSERT OR UPDATE ON public.location_assignments FOR EACH ROW EXECUTE FUNCTION domain.location_assignments_fill();
grant delete, insert, select, update on public.location_assignments to authenticated;
grant delete, insert, references, select, trigger, truncate, update on public.location_assignments to service_role;

-- object: table public.location_submission_types
create table public.location_submission_types (
  location_id uuid not null,
  submission_type_id uuid not null,
  auction_id uuid not null,
  display_order integer not null default 0,
  is_required boolean not null default false
);
alter table public.location_submission_types enable row level security;
alter table public.location_submission_types add constraint location_submission_types_auction_id_fkey FOREIGN KEY (auction_id) REFERENCES public.auctions(id) ON DELETE CASCADE;
alter table public.location_submission_types add constraint location_submission_types_location_id_fkey FOREIGN KEY (location_id) REFERENCES public.locations(id) ON DELETE CASCADE;
alter table public.location_submission_types add constraint location_submission_types_pkey PRIMARY KEY (location_id, submission_type_id);
alter table public.location_submission_types add constraint location_submission_types_submission_type_id_auction_id_fkey FOREIGN KEY (submission_type_id, auction_id) REFERENCES public.submission_types(id, auction_id) ON DELETE CASCADE;
CREATE INDEX location_submission_types_auction_idx ON public.location_submission_types USING btree (auction_id);
CREATE INDEX location_submission_types_type_idx ON public.location_submission_types USING btree (submission_type_id);
create policy location_submission_types_delete on public.location_submission_types as permissive for delete to authenticated
  using ((auction_id IN ( SELECT public.admin_auction_ids() AS admin_auction_ids)));
create policy location_submission_types_insert on public.location_submission_types as permissive for insert to authenticated
  with check ((auction_id IN ( SELECT public.admin_auction_ids() AS admin_auction_ids)));
create policy location_submission_types_not_anonymous on public.location_submission_types as restrictive for all to authenticated
  using ((NOT ( SELECT public.is_anonymous_caller() AS is_anonymous_caller)))
  with check ((NOT ( SELECT public.is_anonymous_caller() AS is_anonymous_caller)));
create policy location_submission_types_select on public.location_submission_types as permissive for select to authenticated
  using ((auction_id = ANY (ARRAY( SELECT public.member_auction_ids() AS member_auction_ids))));
create policy location_submission_types_update on public.location_submission_types as permissive for update to authenticated
  using ((auction_id IN ( SELECT public.admin_auction_ids() AS admin_auction_ids)))
  with check ((auction_id IN ( SELECT public.admin_auction_ids() AS admin_auction_ids)));
CREATE TRIGGER location_submission_types_fill BEFORE INSERT OR UPDATE ON public.location_submission_types FOR EACH ROW EXECUTE FUNCTION domain.location_submission_types_fill();
grant delete, insert, select, update on public.location_submission_types to authenticated;
grant delete, insert, references, select, trigger, truncate, update on public.location_submission_types to service_role;

-- object: table public.locations
create table public.locations (
  id uuid not null default gen_random_uuid(),
  auction_id uuid not null,
  name text not null,
  address text,
  operating_hours_start time without time zone,
  operating_hours_end time without time zone,
  submission_frequency_minutes integer not null default 60,
  is_active boolean not null default true,
  created_at timestamp with time zone not null default now(),
  updated_at timestamp with time zone not null default now()
);
alter table public.locations enable row level security;
alter table public.locations add constraint locations_auction_id_fkey FOREIGN KEY (auction_id) REFERENCES public.auctions(id) ON DELETE CASCADE;
alter table public.locations add constraint locations_id_auction_id_key UNIQUE (id, auction_id);
alter table public.locations add constraint locations_name_check CHECK ((length(TRIM(BOTH FROM name)) > 0));
alter table public.locations add constraint locations_pkey PRIMARY KEY (id);
alter table public.locations add constraint locations_submission_frequency_minutes_check CHECK ((submission_frequency_minutes > 0));
CREATE INDEX locations_auction_id_idx ON public.locations USING btree (auction_id, is_active, name);
create policy locations_delete on public.locations as permissive for delete to authenticated
  using ((auction_id IN ( SELECT public.admin_auction_ids() AS admin_auction_ids)));
create policy locations_insert on public.locations as permissive for insert to authenticated
  with check ((auction_id IN ( SELECT public.admin_auction_ids() AS admin_auction_ids)));
create policy locations_not_anonymous on public.locations as restrictive for all to authenticated
  using ((NOT ( SELECT public.is_anonymous_caller() AS is_anonymous_caller)))
  with check ((NOT ( SELECT public.is_anonymous_caller() AS is_anonymous_caller)));
create policy locations_select on public.locations as permissive for select to authenticated
  using (((auction_id = ANY (ARRAY( SELECT public.admin_auction_ids() AS admin_auction_ids))) OR (id = ANY (ARRAY( SELECT public.current_user_assigned_location_ids() AS current_user_assigned_location_ids)))));
create policy locations_update on public.locations as permissive for update to authenticated
  using ((auction_id IN ( SELECT public.admin_auction_ids() AS admin_auction_ids)))
  with check ((auction_id IN ( SELECT public.admin_auction_ids() AS admin_auction_ids)));
CREATE TRIGGER locations_updated_at BEFORE UPDATE ON public.locations FOR EACH ROW EXECUTE FUNCTION domain.set_updated_at();
CREATE TRIGGER rollup_location_delete AFTER DELETE ON public.locations FOR EACH ROW EXECUTE FUNCTION analytics.location_deleted();
grant delete, insert, select, update on public.locations to authenticated;
grant delete, insert, references, select, trigger, truncate, update on public.locations to service_role;

-- object: table public.lot_submission_entries
create table public.lot_submission_entries (
  id uuid not null default gen_random_uuid(),
  auction_id uuid not null,
  submission_id uuid not null,
  submission_type_id uuid not null,
  car_count integer not null,
  image_url text,
  created_at timestamp with time zone not null default now(),
  location_id uuid
);
alter table public.lot_submission_entries enable row level security;
alter table public.lot_submission_entries add constraint lot_submission_entries_auction_id_fkey FOREIGN KEY (auction_id) REFERENCES public.auctions(id) ON DELETE CASCADE;
alter table public.lot_submission_entries add constraint lot_submission_entries_car_count_check CHECK ((car_count >= 0));
alter table public.lot_submission_entries add constraint lot_submission_entries_pkey PRIMARY KEY (id);
alter table public.lot_submission_entries add constraint lot_submission_entries_submission_id_fkey FOREIGN KEY (submission_id) REFERENCES public.lot_submissions(id) ON DELETE CASCADE;
alter table public.lot_submission_entries add constraint lot_submission_entries_submission_type_id_auction_id_fkey FOREIGN KEY (submission_type_id, auction_id) REFERENCES public.submission_types(id, auction_id) ON DELETE RESTRICT;
CREATE INDEX lot_submission_entries_submission_idx ON public.lot_submission_entries USING btree (submission_id);
CREATE INDEX lot_submission_entries_type_idx ON public.lot_submission_entries USING btree (submission_type_id);
create policy lot_submission_entries_delete on public.lot_submission_entries as permissive for delete to authenticated
  using (public.can_write_submission(submission_id));
create policy lot_submission_entries_insert on public.lot_submission_entries as permissive for insert to authenticated
  with check (public.can_write_submission(submission_id));
create policy lot_submission_entries_not_anonymous on public.lot_submission_entries as restrictive for all to authenticated
  using ((NOT ( SELECT public.is_anonymous_caller() AS is_anonymous_caller)))
  with check ((NOT ( SELECT public.is_anonymous_caller() AS is_anonymous_caller)));
create policy lot_submission_entries_not_deleted on public.lot_submission_entries as restrictive for all to authenticated
  using ((NOT (auction_id = ANY (ARRAY( SELECT public.deleted_auction_ids() AS deleted_auction_ids)))))
  with check ((NOT (auction_id = ANY (ARRAY( SELECT public.deleted_auction_ids() AS deleted_auction_ids)))));
create policy lot_submission_entries_select on public.lot_submission_entries as permissive for select to authenticated
  using (((auction_id = ANY (ARRAY( SELECT public.admin_auction_ids() AS admin_auction_ids))) OR (location_id = ANY (ARRAY( SELECT public.current_user_assigned_location_ids() AS current_user_assigned_location_ids))) OR (EXISTS ( SELECT 1
   FROM public.lot_submissions s
  WHERE ((s.id = lot_submission_entries.submission_id) AND (s.user_id = ( SELECT auth.uid() AS uid)))))));
create policy lot_submission_entries_update on public.lot_submission_entries as permissive for update to authenticated
  using (public.can_write_submission(submission_id))
  with check (public.can_write_submission(submission_id));
CREATE TRIGGER lot_submission_entries_fill BEFORE INSERT OR UPDATE ON public.lot_submission_entries FOR EACH ROW EXECUTE FUNCTION domain.lot_submission_entries_fill();
CREATE TRIGGER lot_submission_entries_object_links_insert AFTER INSERT ON public.lot_submission_entries FOR EACH ROW WHEN (new.image_url ~~ '%/storage/v1/%'::text) EXECUTE FUNCTION domain.object_links_check('image_url');
CREATE TRIGGER lot_submission_entries_object_links_update AFTER UPDATE ON public.lot_submission_entries FOR EACH ROW WHEN ((new.image_url IS DISTINCT FROM old.image_url OR new.auction_id IS DISTINCT FROM old.auction_id) AND new.image_url ~~ '%/storage/v1/%'::text) EXECUTE FUNCTION domain.object_links_check('image_url');
CREATE TRIGGER lot_submission_entries_updated_event AFTER INSERT OR DELETE OR UPDATE ON public.lot_submission_entries FOR EACH ROW EXECUTE FUNCTION domain.lot_submissions_updated_event();
CREATE TRIGGER rollup_entries_delete AFTER DELETE ON public.lot_submission_entries REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION analytics.entries_changed();
CREATE TRIGGER rollup_entries_insert AFTER INSERT ON public.lot_submission_entries REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION analytics.entries_changed();
CREATE TRIGGER rollup_entries_update AFTER UPDATE ON public.lot_submission_entries REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION analytics.entries_changed();
grant delete, insert, select, update on public.lot_submission_entries to authenticated;
grant delete, insert, references, select, trigger, truncate, update on public.lot_submission_entries to service_role;

-- object: table public.lot_submissions
create table public.lot_submissions (
  id uuid not null default gen_random_uuid(),
  auction_id uuid not null,
  location_id uuid not null,
  user_id uuid default auth.uid(),
  submitted_at timestamp with time zone not null default now(),
  image_url text,
  notes text,
  created_at timestamp with time zone not null default now(),
  updated_at timestamp with time zone not null default now()
);
alter table public.lot_submissions enable row level security;
alter table public.lot_submissions add constraint lot_submissions_auction_id_fkey FOREIGN KEY (auction_id) REFERENCES public.auctions(id) ON DELETE CASCADE;
alter table public.lot_submissions add constraint lot_submissions_created_event TRIGGER DEFERRABLE INITIALLY DEFERRED;
alter table public.lot_submissions add constraint lot_submissions_location_id_auction_id_fkey FOREIGN KEY (location_id, auction_id) REFERENCES public.locations(id, auction_id) ON DELETE CASCADE;
alter table public.lot_submissions add constraint lot_submissions_pkey PRIMARY KEY (id);
alter table public.lot_submissions add constraint lot_submissions_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id) ON DELETE SET NULL;
CREATE INDEX lot_submissions_auction_idx ON public.lot_submissions USING btree (auction_id, submitted_at DESC);
CREATE INDEX lot_submissions_location_idx ON public.lot_submissions USING btree (location_id, submitted_at DESC);
CREATE INDEX lot_submissions_user_idx ON public.lot_submissions USING btree (user_id);
create policy lot_submissions_delete on public.lot_submissions as permissive for delete to authenticated
  using (((auction_id IN ( SELECT public.admin_auction_ids() AS admin_auction_ids)) OR ((auction_id IN ( SELECT public.current_user_auction_ids() AS current_user_auction_ids)) AND (user_id = ( SELECT auth.uid() AS uid)))));
create policy lot_submissions_insert on public.lot_submissions as permissive for insert to authenticated
  with check (((auction_id IN ( SELECT public.admin_auction_ids() AS admin_auction_ids)) OR ((user_id = ( SELECT auth.uid() AS uid)) AND (location_id IN ( SELECT public.current_user_assigned_location_ids() AS current_user_assigned_location_ids)))));
create policy lot_submissions_not_anonymous on public.lot_submissions as restrictive for all to authenticated
  using ((NOT ( SELECT public.is_anonymous_caller() AS is_anonymous_caller)))
  with check ((NOT ( SELECT public.is_anonymous_caller() AS is_anonymous_caller)));
create policy lot_submissions_select on public.lot_submissions as permissive for select to authenticated
  using (((auction_id = ANY (ARRAY( SELECT public.admin_auction_ids() AS admin_auction_ids))) OR (location_id = ANY (ARRAY( SELECT public.current_user_assigned_location_ids() AS current_user_assigned_location_ids))) OR ((user_id = ( SELECT auth.uid() AS uid)) AND (auction_id = ANY (ARRAY( SELECT public.current_user_auction_ids() AS current_user_auction_ids))))));
create policy lot_submissions_update on public.lot_submissions as permissive for update to authenticated
  using (((auction_id IN ( SELECT public.admin_auction_ids() AS admin_auction_ids)) OR ((auction_id IN ( SELECT public.current_user_auction_ids() AS current_user_auction_ids)) AND (user_id = ( SELECT auth.uid() AS uid)))))
  with check (((auction_id IN ( SELECT public.admin_auction_ids() AS admin_auction_ids)) OR ((auction_id IN ( SELECT public.current_user_auction_ids() AS current_user_auction_ids)) AND (user_id = ( SELECT auth.uid() AS uid)))));
CREATE TRIGGER lot_submissions_children_location AFTER UPDATE OF location_id ON public.lot_submissions FOR EACH ROW WHEN (old.location_id IS DISTINCT FROM new.location_id) EXECUTE FUNCTION domain.children_follow_location();
CREATE CONSTRAINT TRIGGER lot_submissions_created_event AFTER INSERT ON public.lot_submissions DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION domain.lot_submissions_created_event();
CREATE TRIGGER lot_submissions_fill BEFORE INSERT OR UPDATE OF location_id, auction_id ON public.lot_submissions FOR EACH ROW EXECUTE FUNCTION domain.lot_submissions_fill();
CREATE TRIGGER lot_submissions_object_links_insert AFTER INSERT ON public.lot_submissions FOR EACH ROW WHEN (new.image_url ~~ '%/storage/v1/%'::text) EXECUTE FUNCTION domain.object_links_check('image_url');
CREATE TRIGGER lot_submissions_object_links_update AFTER UPDATE ON public.lot_submissions FOR EACH ROW WHEN ((new.image_url IS DISTINCT FROM old.image_url OR new.auction_id IS DISTINCT FROM old.auction_id) AND new.image_url ~~ '%/storage/v1/%'::text) EXECUTE FUNCTION domain.object_links_check('image_url');
CREATE TRIGGER lot_submissions_updated_at BEFORE UPDATE ON public.lot_submissions FOR EACH ROW EXECUTE FUNCTION domain.set_updated_at();
CREATE TRIGGER lot_submissions_updated_event AFTER UPDATE ON public.lot_submissions FOR EACH ROW EXECUTE FUNCTION domain.lot_submissions_updated_event();
CREATE TRIGGER rollup_submissions_insert AFTER INSERT ON public.lot_submissions REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION analytics.submissions_changed();
CREATE TRIGGER rollup_submissions_update AFTER UPDATE ON public.lot_submissions REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION analytics.submissions_changed();
CREATE TRIGGER zz_rollup_submission_delete BEFORE DELETE ON public.lot_submissions FOR EACH ROW EXECUTE FUNCTION analytics.submission_deleting();
grant delete, insert, select, update on public.lot_submissions to authenticated;
grant delete, insert, references, select, trigger, truncate, update on public.lot_submissions to service_role;

-- object: table public.message_reactions
create table public.message_reactions (
  id uuid not null default gen_random_uuid(),
  auction_id uuid not null,
  message_id uuid not null,
  user_id uuid not null default auth.uid(),
  emoji text not null,
  created_at timestamp with time zone not null default now()
);
alter table public.message_reactions enable row level security;
alter table public.message_reactions add constraint message_reactions_auction_id_fkey FOREIGN KEY (auction_id) REFERENCES public.auctions(id) ON DELETE CASCADE;
alter table public.message_reactions add constraint message_reactions_emoji_check CHECK (((length(emoji) >= 1) AND (length(emoji) <= 64)));
alter table public.message_reactions add constraint message_reactions_message_id_fkey FOREIGN KEY (message_id) REFERENCES public.messages(id) ON DELETE CASCADE;
alter table public.message_reactions add constraint message_reactions_message_id_user_id_emoji_key UNIQUE (message_id, user_id, emoji);
alter table public.message_reactions add constraint message_reactions_pkey PRIMARY KEY (id);
alter table public.message_reactions add constraint message_reactions_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id) ON DELETE CASCADE;
CREATE INDEX message_reactions_auction_idx ON public.message_reactions USING btree (auction_id);
create policy message_reactions_delete on public.message_reactions as permissive for delete to authenticated
  using (((auction_id IN ( SELECT public.admin_auction_ids() AS admin_auction_ids)) OR (user_id = ( SELECT auth.uid() AS uid))));
create policy message_reactions_insert on public.message_reactions as permissive for insert to authenticated
  with check (((user_id = ( SELECT auth.uid() AS uid)) AND (auction_id IN ( SELECT public.member_auction_ids() AS member_auction_ids))));
create policy message_reactions_not_anonymous on public.message_reactions as restrictive for all to authenticated
  using ((NOT ( SELECT public.is_anonymous_caller() AS is_anonymous_caller)))
  with check ((NOT ( SELECT public.is_anonymous_caller() AS is_anonymous_caller)));
create policy message_reactions_not_deleted on public.message_reactions as restrictive for delete to authenticated
  using ((NOT (auction_id = ANY (ARRAY( SELECT public.deleted_auction_ids() AS deleted_auction_ids)))));
create policy message_reactions_select on public.message_reactions as permissive for select to authenticated
  using ((auction_id = ANY (ARRAY( SELECT public.member_auction_ids() AS member_auction_ids))));
CREATE TRIGGER message_reactions_fill BEFORE INSERT OR UPDATE ON public.message_reactions FOR EACH ROW EXECUTE FUNCTION domain.chat_children_fill();
grant delete, insert, select, update on public.message_reactions to authenticated;
grant delete, insert, references, select, trigger, truncate, update on public.message_reactions to service_role;

-- object: table public.messages
create table public.messages (
  id uuid not null default gen_random_uuid(),
  auction_id uuid not null,
  channel_id uuid not null,
  user_id uuid default auth.uid(),
  content text not null,
  message_type text not null default 'text'::text,
  parent_message_id uuid,
  mentions uuid[] not null default '{}'::uuid[],
  is_edited boolean not null default false,
  edited_at timestamp with time zone,
  is_deleted boolean not null default false,
  deleted_at timestamp with time zone,
  created_at timestamp with time zone not null default now(),
  updated_at timestamp with time zone not null default now()
);
alter table public.messages enable row level security;
alter table public.messages add constraint messages_auction_id_fkey FOREIGN KEY (auction_id) REFERENCES public.auctions(id) ON DELETE CASCADE;
alter table public.messages add constraint messages_channel_id_fkey FOREIGN KEY (channel_id) REFERENCES public.channels(id) ON DELETE CASCADE;
alter table public.messages add constraint messages_content_check CHECK ((length(content) <= 10000));
alter table public.messages add constraint messages_message_type_check CHECK ((message_type = ANY (ARRAY['text'::text, 'image'::text, 'system'::text])));
alter table public.messages add constraint messages_parent_message_id_fkey FOREIGN KEY (parent_message_id) REFERENCES public.messages(id) ON DELETE CASCADE;
alter table public.messages add constraint messages_pkey PRIMARY KEY (id);
alter table public.messages add constraint messages_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id) ON DELETE SET NULL;
CREATE INDEX messages_auction_idx ON public.messages USING btree (auction_id, created_at);
CREATE INDEX messages_channel_created_idx ON public.messages USING btree (channel_id, created_at);
CREATE INDEX messages_channel_top_idx ON public.messages USING btree (channel_id, created_at DESC) WHERE (parent_message_id IS NULL);
CREATE INDEX messages_parent_idx ON public.messages USING btree (parent_message_id, created_at) WHERE (parent_message_id IS NOT NULL);
create policy messages_delete on public.messages as permissive for delete to authenticated
  using ((auction_id IN ( SELECT public.admin_auction_ids() AS admin_auction_ids)));
create policy messages_insert on public.messages as permissive for insert to authenticated
  with check ((( SELECT public.is_super_admin() AS is_super_admin) OR ((auction_id IN ( SELECT public.current_user_auction_ids() AS current_user_auction_ids)) AND (user_id = ( SELECT auth.uid() AS uid)) AND public.channel_is_open(channel_id) AND (NOT (channel_id IN ( SELECT public.current_user_hidden_channel_ids() AS current_user_hidden_channel_ids))))));
create policy messages_not_anonymous on public.messages as restrictive for all to authenticated
  using ((NOT ( SELECT public.is_anonymous_caller() AS is_anonymous_caller)))
  with check ((NOT ( SELECT public.is_anonymous_caller() AS is_anonymous_caller)));
create policy messages_select on public.messages as permissive for select to authenticated
  using (((auction_id = ANY (ARRAY( SELECT public.admin_auction_ids() AS admin_auction_ids))) OR ((auction_id = ANY (ARRAY( SELECT public.current_user_auction_ids() AS current_user_auction_ids))) AND (NOT (channel_id = ANY (ARRAY( SELECT public.current_user_hidden_channel_ids() AS current_user_hidden_channel_ids)))))));
create policy messages_update on public.messages as permissive for update to authenticated
  using (((auction_id IN ( SELECT public.admin_auction_ids() AS admin_auction_ids)) OR ((auction_id IN ( SELECT public.current_user_auction_ids() AS current_user_auction_ids)) AND (user_id = ( SELECT auth.uid() AS uid)))))
  with check ((auction_id IN ( SELECT public.member_auction_ids() AS member_auction_ids)));
CREATE TRIGGER messages_check BEFORE INSERT OR UPDATE ON public.messages FOR EACH ROW EXECUTE FUNCTION domain.messages_check();
CREATE TRIGGER messages_events AFTER INSERT OR UPDATE ON public.messages FOR EACH ROW EXECUTE FUNCTION domain.chat_events();
CREATE TRIGGER messages_object_links_insert AFTER INSERT ON public.messages FOR EACH ROW WHEN (new.message_type = 'image'::text AND new.content ~~ '%/storage/v1/%'::text) EXECUTE FUNCTION domain.object_links_check('content');
CREATE TRIGGER messages_object_links_update AFTER UPDATE ON public.messages FOR EACH ROW WHEN (new.message_type = 'image'::text AND new.content ~~ '%/storage/v1/%'::text AND (new.content IS DISTINCT FROM old.content OR new.message_type IS DISTINCT FROM old.message_type OR new.auction_id IS DISTINCT FROM old.auction_id)) EXECUTE FUNCTION domain.object_links_check('content');
CREATE TRIGGER rollup_messages_delete AFTER DELETE ON public.messages REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION analytics.messages_deleted();
CREATE TRIGGER rollup_messages_insert AFTER INSERT ON public.messages REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION analytics.messages_inserted();
CREATE TRIGGER rollup_messages_update AFTER UPDATE ON public.messages REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION analytics.messages_updated();
grant delete, insert, select, update on public.messages to authenticated;
grant delete, insert, references, select, trigger, truncate, update on public.messages to service_role;

-- object: table public.potential_causes
create table public.potential_causes (
  id uuid not null default gen_random_uuid(),
  auction_id uuid not null,
  problem_id uuid not null,
  cause_text text not null,
  order_number integer not null default 0,
  created_by uuid default auth.uid(),
  created_at timestamp with time zone not null default now()
);
alter table public.potential_causes enable row level security;
alter table public.potential_causes add constraint potential_causes_auction_id_fkey FOREIGN KEY (auction_id) REFERENCES public.auctions(id) ON DELETE CASCADE;
alter table public.potential_causes add constraint potential_causes_cause_text_check CHECK ((length(TRIM(BOTH FROM cause_text)) > 0));
alter table public.potential_causes add constraint potential_causes_created_by_fkey FOREIGN KEY (created_by) REFERENCES public.users(id) ON DELETE SET NULL;
alter table public.potential_causes add constraint potential_causes_pkey PRIMARY KEY (id);
alter table public.potential_causes add constraint potential_causes_problem_id_fkey FOREIGN KEY (problem_id) REFERENCES public.problem_reports(id) ON DELETE CASCADE;
CREATE INDEX potential_causes_problem_idx ON public.potential_causes USING btree (problem_id, order_number);
create policy potential_causes_delete on public.potential_causes as permissive for delete to authenticated
  using (public.can_write_problem(problem_id));
create policy potential_causes_insert on public.potential_causes as permissive for insert to authenticated
  with check (public.can_write_problem(problem_id));
create policy potential_causes_not_anonymous on public.potential_causes as restrictive for all to authenticated
  using ((NOT ( SELECT public.is_anonymous_caller() AS is_anonymous_caller)))
  with check ((NOT ( SELECT public.is_anonymous_caller() AS is_anonymous_caller)));
create policy potential_causes_select on public.potential_causes as permissive for select to authenticated
  using ((auction_id = ANY (ARRAY( SELECT public.member_auction_ids() AS member_auction_ids))));
create policy potential_causes_update on public.potential_causes as permissive for update to authenticated
  using (public.can_write_problem(problem_id))
  with check (public.can_write_problem(problem_id));
CREATE TRIGGER potential_causes_fill BEFORE INSERT OR UPDATE ON public.potential_causes FOR EACH ROW EXECUTE FUNCTION domain.problem_children_fill();
grant delete, insert, select, update on public.potential_causes to authenticated;
grant delete, insert, references, select, trigger, truncate, update on public.potential_causes to service_role;

-- object: table public.problem_actions
create table public.problem_actions (
  id uuid not null default gen_random_uuid(),
  auction_id uuid not null,
  problem_id uuid not null,
  issue text,
  countermeasure text,
  responsible_person text,
  completion_date date,
  status text not null default 'pending'::text,
  completed_at timestamp with time zone,
  created_by uuid default auth.uid(),
  created_at timestamp with time zone not null default now(),
  updated_at timestamp with time zone not null default now()
);
alter table public.problem_actions enable row level security;
alter table public.problem_actions add constraint problem_actions_auction_id_fkey FOREIGN KEY (auction_id) REFERENCES public.auctions(id) ON DELETE CASCADE;
alter table public.problem_actions add constraint problem_actions_created_by_fkey FOREIGN KEY (created_by) REFERENCES public.users(id) ON DELETE SET NULL;
alter table public.problem_actions add constraint problem_actions_pkey PRIMARY KEY (id);
alter table public.problem_actions add constraint problem_actions_problem_id_fkey FOREIGN KEY (problem_id) REFERENCES public.problem_reports(id) ON DELETE CASCADE;
alter table public.problem_actions add constraint problem_actions_status_check CHECK ((status = ANY (ARRAY['pending'::text, 'in_progress'::text, 'complete'::text])));
CREATE INDEX problem_actions_problem_idx ON public.problem_actions USING btree (problem_id);
create policy problem_actions_delete on public.problem_actions as permissive for delete to authenticated
  using (public.can_write_problem(problem_id));
create policy problem_actions_insert on public.problem_actions as permissive for insert to authenticated
  with check (public.can_write_problem(problem_id));
create policy problem_actions_not_anonymous on public.problem_actions as restrictive for all to authenticated
  using ((NOT ( SELECT public.is_anonymous_caller() AS is_anonymous_caller)))
  with check ((NOT ( SELECT public.is_anonymous_caller() AS is_anonymous_caller)));
create policy problem_actions_select on public.problem_actions as permissive for select to authenticated
  using ((auction_id = ANY (ARRAY( SELECT public.member_auction_ids() AS member_auction_ids))));
create policy problem_actions_update on public.problem_actions as permissive for update to authenticated
  using (public.can_write_problem(problem_id))
  with check (public.can_write_problem(problem_id));
CREATE TRIGGER problem_actions_completed_event AFTER INSERT OR UPDATE OF status ON public.problem_actions FOR EACH ROW EXECUTE FUNCTION domain.problem_actions_completed_event();
CREATE TRIGGER problem_actions_fill BEFORE INSERT OR UPDATE ON public.problem_actions FOR EACH ROW EXECUTE FUNCTION domain.problem_children_fill();
grant delete, insert, select, update on public.problem_actions to authenticated;
grant delete, insert, references, select, trigger, truncate, update on public.problem_actions to service_role;

-- object: table public.problem_facts
create table public.problem_facts (
  id uuid not null default gen_random_uuid(),
  auction_id uuid not null,
  problem_id uuid not null,
  who text,
  what text,
  where_field text,
  when_field text,
  how_many text,
  how_much text,
  created_by uuid default auth.uid(),
  created_at timestamp with time zone not null default now(),
  updated_at timestamp with time zone not null default now()
);
alter table public.problem_facts enable row level security;
alter table public.problem_facts add constraint problem_facts_auction_id_fkey FOREIGN KEY (auction_id) REFERENCES public.auctions(id) ON DELETE CASCADE;
alter table public.problem_facts add constraint problem_facts_created_by_fkey FOREIGN KEY (created_by) REFERENCES public.users(id) ON DELETE SET NULL;
alter table public.problem_facts add constraint problem_facts_pkey PRIMARY KEY (id);
alter table public.problem_facts add constraint problem_facts_problem_id_fkey FOREIGN KEY (problem_id) REFERENCES public.problem_reports(id) ON DELETE CASCADE;
alter table public.problem_facts add constraint problem_facts_problem_id_key UNIQUE (problem_id);
create policy problem_facts_delete on public.problem_facts as permissive for delete to authenticated
  using (public.can_write_problem(problem_id));
create policy problem_facts_insert on public.problem_facts as permissive for insert to authenticated
  with check (public.can_write_problem(problem_id));
create policy problem_facts_not_anonymous on public.problem_facts as restrictive for all to authenticated
  using ((NOT ( SELECT public.is_anonymous_caller() AS is_anonymous_caller)))
  with check ((NOT ( SELECT public.is_anonymous_caller() AS is_anonymous_caller)));
create policy problem_facts_select on public.problem_facts as permissive for select to authenticated
  using ((auction_id = ANY (ARRAY( SELECT public.member_auction_ids() AS member_auction_ids))));
create policy problem_facts_update on public.problem_facts as permissive for update to authenticated
  using (public.can_write_problem(problem_id))
  with check (public.can_write_problem(problem_id));
CREATE TRIGGER problem_facts_fill BEFORE INSERT OR UPDATE ON public.problem_facts FOR EACH ROW EXECUTE FUNCTION domain.problem_children_fill();
CREATE TRIGGER problem_facts_updated_at BEFORE UPDATE ON public.problem_facts FOR EACH ROW EXECUTE FUNCTION domain.set_updated_at();
grant delete, insert, select, update on public.problem_facts to authenticated;
grant delete, insert, references, select, trigger, truncate, update on public.problem_facts to service_role;

-- object: table public.problem_reports
create table public.problem_reports (
  id uuid not null default gen_random_uuid(),
  auction_id uuid not null,
  issue_name text not null,
  area text,
  location_id uuid,
  prepared_by uuid default auth.uid(),
  assigned_to uuid,
  status text not null default 'open'::text,
  submitted_at timestamp with time zone not null default now(),
  closed_at timestamp with time zone,
  created_at timestamp with time zone not null default now(),
  updated_at timestamp with time zone not null default now()
);
alter table public.problem_reports enable row level security;
alter table public.problem_reports add constraint problem_reports_assigned_to_fkey FOREIGN KEY (assigned_to) REFERENCES public.users(id) ON DELETE SET NULL;
alter table public.problem_reports add constraint problem_reports_auction_id_fkey FOREIGN KEY (auction_id) REFERENCES public.auctions(id) ON DELETE CASCADE;
alter table public.problem_reports add constraint problem_reports_issue_name_check CHECK ((length(TRIM(BOTH FROM issue_name)) > 0));
alter table public.problem_reports add constraint problem_reports_location_id_fkey FOREIGN KEY (location_id) REFERENCES public.locations(id) ON DELETE SET NULL;
alter table public.problem_reports add constraint problem_reports_pkey PRIMARY KEY (id);
alter table public.problem_reports add constraint problem_reports_prepared_by_fkey FOREIGN KEY (prepared_by) REFERENCES public.users(id) ON DELETE SET NULL;
alter table public.problem_reports add constraint problem_reports_status_check CHECK ((status = ANY (ARRAY['open'::text, 'in_progress'::text, 'closed'::text])));
CREATE INDEX problem_reports_assigned_idx ON public.problem_reports USING btree (assigned_to);
CREATE INDEX problem_reports_auction_idx ON public.problem_reports USING btree (auction_id, status, submitted_at DESC);
CREATE INDEX problem_reports_location_idx ON public.problem_reports USING btree (location_id);
CREATE INDEX problem_reports_prepared_idx ON public.problem_reports USING btree (prepared_by);
create policy problem_reports_delete on public.problem_reports as permissive for delete to authenticated
  using (((auction_id IN ( SELECT public.admin_auction_ids() AS admin_auction_ids)) OR ((auction_id IN ( SELECT public.current_user_auction_ids() AS current_user_auction_ids)) AND (prepared_by = ( SELECT auth.uid() AS uid)))));
create policy problem_reports_insert on public.problem_reports as permissive for insert to authenticated
  with check (((auction_id IN ( SELECT public.admin_auction_ids() AS admin_auction_ids)) OR ((auction_id IN ( SELECT public.current_user_auction_ids() AS current_user_auction_ids)) AND (prepared_by = ( SELECT auth.uid() AS uid)))));
create policy problem_reports_not_anonymous on public.problem_reports as restrictive for all to authenticated
  using ((NOT ( SELECT public.is_anonymous_caller() AS is_anonymous_caller)))
  with check ((NOT ( SELECT public.is_anonymous_caller() AS is_anonymous_caller)));
create policy problem_reports_select on public.problem_reports as permissive for select to authenticated
  using ((auction_id = ANY (ARRAY( SELECT public.member_auction_ids() AS member_auction_ids))));
create policy problem_reports_update on public.problem_reports as permissive for update to authenticated
  using (((auction_id IN ( SELECT public.admin_auction_ids() AS admin_auction_ids)) OR ((auction_id IN ( SELECT public.current_user_auction_ids() AS current_user_auction_ids)) AND ((prepared_by = ( SELECT auth.uid() AS uid)) OR (assigned_to = ( SELECT auth.uid() AS uid))))))
  with check ((auction_id IN ( SELECT public.member_auction_ids() AS member_auction_ids)));
CREATE TRIGGER problem_reports_check BEFORE INSERT OR UPDATE ON public.problem_reports FOR EACH ROW EXECUTE FUNCTION domain.problem_reports_check();
CREATE TRIGGER problem_reports_events AFTER INSERT OR UPDATE ON public.problem_reports FOR EACH ROW EXECUTE FUNCTION domain.problem_reports_events();
CREATE TRIGGER problem_reports_updated_at BEFORE UPDATE ON public.problem_reports FOR EACH ROW EXECUTE FUNCTION domain.set_updated_at();
grant delete, insert, select, update on public.problem_reports to authenticated;
grant delete, insert, references, select, trigger, truncate, update on public.problem_reports to service_role;

-- object: table public.quality_defects
create table public.quality_defects (
  id uuid not null default gen_random_uuid(),
  auction_id uuid not null,
  inspection_id uuid not null,
  category_id uuid not null,
  notes text,
  created_at timestamp with time zone not null default now(),
  location_id uuid
);
alter table public.quality_defects enable row level security;
alter table public.quality_defects add constraint quality_defects_auction_id_fkey FOREIGN KEY (auction_id) REFERENCES public.auctions(id) ON DELETE CASCADE;
alter table public.quality_defects add constraint quality_defects_category_id_fkey FOREIGN KEY (category_id) REFERENCES public.defect_categories(id) ON DELETE RESTRICT;
alter table public.quality_defects add constraint quality_defects_inspection_id_fkey FOREIGN KEY (inspection_id) REFERENCES public.quality_inspections(id) ON DELETE CASCADE;
alter table public.quality_defects add constraint quality_defects_pkey PRIMARY KEY (id);
CREATE INDEX quality_defects_auction_idx ON public.quality_defects USING btree (auction_id, created_at);
CREATE INDEX quality_defects_category_idx ON public.quality_defects USING btree (category_id);
CREATE INDEX quality_defects_inspection_idx ON public.quality_defects USING btree (inspection_id);
create policy quality_defects_delete on public.quality_defects as permissive for delete to authenticated
  using (public.can_write_inspection(inspection_id));
create policy quality_defects_insert on public.quality_defects as permissive for insert to authenticated
  with check (public.can_write_inspection(inspection_id));
create policy quality_defects_not_anonymous on public.quality_defects as restrictive for all to authenticated
  using ((NOT ( SELECT public.is_anonymous_caller() AS is_anonymous_caller)))
  with check ((NOT ( SELECT public.is_anonymous_caller() AS is_anonymous_caller)));
create policy quality_defects_not_deleted on public.quality_defects as restrictive for all to authenticated
  using ((NOT (auction_id = ANY (ARRAY( SELECT public.deleted_auction_ids() AS deleted_auction_ids)))))
  with check ((NOT (auction_id = ANY (ARRAY( SELECT public.deleted_auction_ids() AS deleted_auction_ids)))));
create policy quality_defects_select on public.quality_defects as permissive for select to authenticated
  using (((auction_id = ANY (ARRAY( SELECT public.admin_auction_ids() AS admin_auction_ids))) OR (location_id = ANY (ARRAY( SELECT public.current_user_assigned_location_ids() AS current_user_assigned_location_ids))) OR (EXISTS ( SELECT 1
   FROM public.quality_inspections i
  WHERE ((i.id = quality_defects.inspection_id) AND (i.user_id = ( SELECT auth.uid() AS uid)))))));
create policy quality_defects_update on public.quality_defects as permissive for update to authenticated
  using (public.can_write_inspection(inspection_id))
  with check (public.can_write_inspection(inspection_id));
CREATE TRIGGER quality_defects_added_event AFTER INSERT ON public.quality_defects FOR EACH ROW EXECUTE FUNCTION domain.quality_defects_added_event();
CREATE TRIGGER quality_defects_fill BEFORE INSERT OR UPDATE ON public.quality_defects FOR EACH ROW EXECUTE FUNCTION domain.quality_defects_fill();
CREATE TRIGGER rollup_defects_delete AFTER DELETE ON public.quality_defects REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION analytics.defects_changed();
CREATE TRIGGER rollup_defects_insert AFTER INSERT ON public.quality_defects REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION analytics.defects_changed();
CREATE TRIGGER rollup_defects_update AFTER UPDATE ON public.quality_defects REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION analytics.defects_changed();
grant delete, insert, select, update on public.quality_defects to authenticated;
grant delete, insert, references, select, trigger, truncate, update on public.quality_defects to service_role;

-- object: table public.quality_inspections
create table public.quality_inspections (
  id uuid not null default gen_random_uuid(),
  auction_id uuid not null,
  location_id uuid not null,
  user_id uuid default auth.uid(),
  vin_number text not null,
  barcode text,
  submitted_at timestamp with time zone not null default now(),
  notes text,
  created_at timestamp with time zone not null default now(),
  updated_at timestamp with time zone not null default now()
);
alter table public.quality_inspections enable row level security;
alter table public.quality_inspections add constraint quality_inspections_auction_id_fkey FOREIGN KEY (auction_id) REFERENCES public.auctions(id) ON DELETE CASCADE;
alter table public.quality_inspections add constraint quality_inspections_created_event TRIGGER DEFERRABLE INITIALLY DEFERRED;
alter table public.quality_inspections add constraint quality_inspections_location_id_auction_id_fkey FOREIGN KEY (location_id, auction_id) REFERENCES public.locations(id, auction_id) ON DELETE CASCADE;
alter table public.quality_inspections add constraint quality_inspections_pkey PRIMARY KEY (id);
alter table public.quality_inspections add constraint quality_inspections_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id) ON DELETE SET NULL;
alter table public.quality_inspections add constraint quality_inspections_vin_number_check CHECK ((vin_number ~ '^[A-HJ-NPR-Z0-9]{17}$'::text));
CREATE INDEX quality_inspections_auction_idx ON public.quality_inspections USING btree (auction_id, submitted_at DESC);
CREATE INDEX quality_inspections_location_idx ON public.quality_inspections USING btree (location_id, submitted_at DESC);
CREATE INDEX quality_inspections_vin_idx ON public.quality_inspections USING btree (auction_id, vin_number);
create policy quality_inspections_delete on public.quality_inspections as permissive for delete to authenticated
  using (((auction_id IN ( SELECT public.admin_auction_ids() AS admin_auction_ids)) OR ((auction_id IN ( SELECT public.current_user_auction_ids() AS current_user_auction_ids)) AND (user_id = ( SELECT auth.uid() AS uid)))));
create policy quality_inspections_insert on public.quality_inspections as permissive for insert to authenticated
  with check (((auction_id IN ( SELECT public.admin_auction_ids() AS admin_auction_ids)) OR ((user_id = ( SELECT auth.uid() AS uid)) AND (location_id IN ( SELECT public.current_user_assigned_location_ids() AS current_user_assigned_location_ids)))));
create policy quality_inspections_not_anonymous on public.quality_inspections as restrictive for all to authenticated
  using ((NOT ( SELECT public.is_anonymous_caller() AS is_anonymous_caller)))
  with check ((NOT ( SELECT public.is_anonymous_caller() AS is_anonymous_caller)));
create policy quality_inspections_select on public.quality_inspections as permissive for select to authenticated
  using (((auction_id = ANY (ARRAY( SELECT public.admin_auction_ids() AS admin_auction_ids))) OR (location_id = ANY (ARRAY( SELECT public.current_user_assigned_location_ids() AS current_user_assigned_location_ids))) OR ((user_id = ( SELECT auth.uid() AS uid)) AND (auction_id = ANY (ARRAY( SELECT public.current_user_auction_ids() AS current_user_auction_ids))))));
create policy quality_inspections_update on public.quality_inspections as permissive for update to authenticated
  using (((auction_id IN ( SELECT public.admin_auction_ids() AS admin_auction_ids)) OR ((auction_id IN ( SELECT public.current_user_auction_ids() AS current_user_auction_ids)) AND (user_id = ( SELECT auth.uid() AS uid)))))
  with check (((auction_id IN ( SELECT public.admin_auction_ids() AS admin_auction_ids)) OR ((auction_id IN ( SELECT public.current_user_auction_ids() AS current_user_auction_ids)) AND (user_id = ( SELECT auth.uid() AS uid)))));
CREATE TRIGGER quality_inspections_children_location AFTER UPDATE OF location_id ON public.quality_inspections FOR EACH ROW WHEN (old.location_id IS DISTINCT FROM new.location_id) EXECUTE FUNCTION domain.children_follow_location();
CREATE CONSTRAINT TRIGGER quality_inspections_created_event AFTER INSERT ON public.quality_inspections DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION domain.quality_inspections_created_event();
CREATE TRIGGER quality_inspections_fill BEFORE INSERT OR UPDATE ON public.quality_inspections FOR EACH ROW EXECUTE FUNCTION domain.quality_inspections_fill();
CREATE TRIGGER quality_inspections_updated_at BEFORE UPDATE ON public.quality_inspections FOR EACH ROW EXECUTE FUNCTION domain.set_updated_at();
CREATE TRIGGER rollup_inspections_update AFTER UPDATE ON public.quality_inspections REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION analytics.inspections_moved();
CREATE TRIGGER zz_rollup_inspection_delete BEFORE DELETE ON public.quality_inspections FOR EACH ROW EXECUTE FUNCTION analytics.inspection_deleting();
grant delete, insert, select, update on public.quality_inspections to authenticated;
grant delete, insert, references, select, trigger, truncate, update on public.quality_inspections to service_role;

-- object: table public.query_audit_log
create table public.query_audit_log (
  id uuid not null default gen_random_uuid(),
  auction_id uuid not null,
  dataset_id uuid,
  user_id uuid default auth.uid(),
  natural_language_query text,
  sql text,
  status text not null default 'ok'::text,
  error text,
  row_count integer,
  duration_ms integer,
  created_at timestamp with time zone not null default now()
);
alter table public.query_audit_log enable row level security;
alter table public.query_audit_log add constraint query_audit_log_auction_id_fkey FOREIGN KEY (auction_id) REFERENCES public.auctions(id) ON DELETE CASCADE;
alter table public.query_audit_log add constraint query_audit_log_dataset_id_fkey FOREIGN KEY (dataset_id) REFERENCES public.datasets(id) ON DELETE SET NULL;
alter table public.query_audit_log add constraint query_audit_log_pkey PRIMARY KEY (id);
alter table public.query_audit_log add constraint query_audit_log_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id) ON DELETE SET NULL;
CREATE INDEX query_audit_log_auction_idx ON public.query_audit_log USING btree (auction_id, created_at DESC);
create policy query_audit_log_insert on public.query_audit_log as permissive for insert to authenticated
  with check (((auction_id IN ( SELECT public.current_user_auction_ids() AS current_user_auction_ids)) AND (user_id = ( SELECT auth.uid() AS uid))));
create policy query_audit_log_not_anonymous on public.query_audit_log as restrictive for all to authenticated
  using ((NOT ( SELECT public.is_anonymous_caller() AS is_anonymous_caller)))
  with check ((NOT ( SELECT public.is_anonymous_caller() AS is_anonymous_caller)));
create policy query_audit_log_not_deleted on public.query_audit_log as restrictive for all to authenticated
  using ((NOT (auction_id = ANY (ARRAY( SELECT public.deleted_auction_ids() AS deleted_auction_ids)))))
  with check ((NOT (auction_id = ANY (ARRAY( SELECT public.deleted_auction_ids() AS deleted_auction_ids)))));
create policy query_audit_log_select on public.query_audit_log as permissive for select to authenticated
  using (((auction_id = ANY (ARRAY( SELECT public.admin_auction_ids() AS admin_auction_ids))) OR (user_id = ( SELECT auth.uid() AS uid))));
grant insert, select on public.query_audit_log to authenticated;
grant delete, insert, references, select, trigger, truncate, update on public.query_audit_log to service_role;

-- object: table public.query_conversation_messages
create table public.query_conversation_messages (
  id bigint not null generated always as identity,
  conversation_id uuid not null,
  role text not null,
  content text not null,
  created_at timestamp with time zone not null default now()
);
alter table public.query_conversation_messages enable row level security;
alter table public.query_conversation_messages add constraint query_conversation_messages_conversation_id_fkey FOREIGN KEY (conversation_id) REFERENCES public.query_conversations(id) ON DELETE CASCADE;
alter table public.query_conversation_messages add constraint query_conversation_messages_pkey PRIMARY KEY (id);
alter table public.query_conversation_messages add constraint query_conversation_messages_role_check CHECK ((role = ANY (ARRAY['user'::text, 'assistant'::text])));
CREATE INDEX query_conversation_messages_idx ON public.query_conversation_messages USING btree (conversation_id, id);
create policy query_conversation_messages_not_anonymous on public.query_conversation_messages as restrictive for all to authenticated
  using ((NOT ( SELECT public.is_anonymous_caller() AS is_anonymous_caller)))
  with check ((NOT ( SELECT public.is_anonymous_caller() AS is_anonymous_caller)));
create policy query_conversation_messages_own on public.query_conversation_messages as permissive for all to authenticated
  using ((conversation_id IN ( SELECT query_conversations.id
   FROM public.query_conversations
  WHERE (query_conversations.user_id = ( SELECT auth.uid() AS uid)))))
  with check ((conversation_id IN ( SELECT query_conversations.id
   FROM public.query_conversations
  WHERE (query_conversations.user_id = ( SELECT auth.uid() AS uid)))));
grant delete, insert, select, update on public.query_conversation_messages to authenticated;
grant delete, insert, references, select, trigger, truncate, update on public.query_conversation_messages to service_role;

-- object: table public.query_conversations
create table public.query_conversations (
  id uuid not null default gen_random_uuid(),
  auction_id uuid not null,
  dataset_id uuid not null,
  user_id uuid default auth.uid(),
  created_at timestamp with time zone not null default now(),
  updated_at timestamp with time zone not null default now()
);
alter table public.query_conversations enable row level security;
alter table public.query_conversations add constraint query_conversations_auction_id_fkey FOREIGN KEY (auction_id) REFERENCES public.auctions(id) ON DELETE CASCADE;
alter table public.query_conversations add constraint query_conversations_dataset_id_fkey FOREIGN KEY (dataset_id) REFERENCES public.datasets(id) ON DELETE CASCADE;
alter table public.query_conversations add constraint query_conversations_pkey PRIMARY KEY (id);
alter table public.query_conversations add constraint query_conversations_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id) ON DELETE CASCADE;
CREATE INDEX query_conversations_user_idx ON public.query_conversations USING btree (user_id, updated_at DESC);
create policy query_conversations_not_anonymous on public.query_conversations as restrictive for all to authenticated
  using ((NOT ( SELECT public.is_anonymous_caller() AS is_anonymous_caller)))
  with check ((NOT ( SELECT public.is_anonymous_caller() AS is_anonymous_caller)));
create policy query_conversations_not_deleted on public.query_conversations as restrictive for all to authenticated
  using ((NOT (auction_id = ANY (ARRAY( SELECT public.deleted_auction_ids() AS deleted_auction_ids)))))
  with check ((NOT (auction_id = ANY (ARRAY( SELECT public.deleted_auction_ids() AS deleted_auction_ids)))));
create policy query_conversations_own on public.query_conversations as permissive for all to authenticated
  using ((user_id = ( SELECT auth.uid() AS uid)))
  with check (((user_id = ( SELECT auth.uid() AS uid)) AND (auction_id IN ( SELECT public.current_user_auction_ids() AS current_user_auction_ids))));
grant delete, insert, select, update on public.query_conversations to authenticated;
grant delete, insert, references, select, trigger, truncate, update on public.query_conversations to service_role;

-- object: table public.saved_reports
create table public.saved_reports (
  id uuid not null default gen_random_uuid(),
  auction_id uuid not null,
  dataset_id uuid,
  name text not null,
  sql text not null,
  visualization text not null default 'table'::text,
  is_public boolean not null default false,
  created_by uuid default auth.uid(),
  created_at timestamp with time zone not null default now(),
  updated_at timestamp with time zone not null default now()
);
alter table public.saved_reports enable row level security;
alter table public.saved_reports add constraint saved_reports_auction_id_fkey FOREIGN KEY (auction_id) REFERENCES public.auctions(id) ON DELETE CASCADE;
alter table public.saved_reports add constraint saved_reports_created_by_fkey FOREIGN KEY (created_by) REFERENCES public.users(id) ON DELETE SET NULL;
alter table public.saved_reports add constraint saved_reports_dataset_id_fkey FOREIGN KEY (dataset_id) REFERENCES public.datasets(id) ON DELETE CASCADE;
alter table public.saved_reports add constraint saved_reports_name_check CHECK ((length(TRIM(BOTH FROM name)) > 0));
alter table public.saved_reports add constraint saved_reports_pkey PRIMARY KEY (id);
alter table public.saved_reports add constraint saved_reports_visualization_check CHECK ((visualization = ANY (ARRAY['bar'::text, 'line'::text, 'pie'::text, 'area'::text, 'table'::text])));
CREATE INDEX saved_reports_auction_idx ON public.saved_reports USING btree (auction_id, created_at DESC);
create policy saved_reports_delete on public.saved_reports as permissive for delete to authenticated
  using (((auction_id IN ( SELECT public.admin_auction_ids() AS admin_auction_ids)) OR ((auction_id IN ( SELECT public.current_user_auction_ids() AS current_user_auction_ids)) AND (created_by = ( SELECT auth.uid() AS uid)))));
create policy saved_reports_insert on public.saved_reports as permissive for insert to authenticated
  with check (((auction_id IN ( SELECT public.admin_auction_ids() AS admin_auction_ids)) OR ((auction_id IN ( SELECT public.current_user_auction_ids() AS current_user_auction_ids)) AND (created_by = ( SELECT auth.uid() AS uid)))));
create policy saved_reports_not_anonymous on public.saved_reports as restrictive for all to authenticated
  using ((NOT ( SELECT public.is_anonymous_caller() AS is_anonymous_caller)))
  with check ((NOT ( SELECT public.is_anonymous_caller() AS is_anonymous_caller)));
create policy saved_reports_select on public.saved_reports as permissive for select to authenticated
  using ((auction_id = ANY (ARRAY( SELECT public.member_auction_ids() AS member_auction_ids))));
create policy saved_reports_update on public.saved_reports as permissive for update to authenticated
  using (((auction_id IN ( SELECT public.admin_auction_ids() AS admin_auction_ids)) OR ((auction_id IN ( SELECT public.current_user_auction_ids() AS current_user_auction_ids)) AND (created_by = ( SELECT auth.uid() AS uid)))))
  with check (((auction_id IN ( SELECT public.admin_auction_ids() AS admin_auction_ids)) OR ((auction_id IN ( SELECT public.current_user_auction_ids() AS current_user_auction_ids)) AND (created_by = ( SELECT auth.uid() AS uid)))));
CREATE TRIGGER saved_reports_updated_at BEFORE UPDATE ON public.saved_reports FOR EACH ROW EXECUTE FUNCTION domain.set_updated_at();
grant delete, insert, select, update on public.saved_reports to authenticated;
grant delete, insert, references, select, trigger, truncate, update on public.saved_reports to service_role;

-- object: table public.submission_types
create table public.submission_types (
  id uuid not null default gen_random_uuid(),
  auction_id uuid not null,
  name text not null,
  description text,
  is_active boolean not null default true,
  created_at timestamp with time zone not null default now()
);
alter table public.submission_types enable row level security;
alter table public.submission_types add constraint submission_types_auction_id_fkey FOREIGN KEY (auction_id) REFERENCES public.auctions(id) ON DELETE CASCADE;
alter table public.submission_types add constraint submission_types_auction_id_name_key UNIQUE (auction_id, name);
alter table public.submission_types add constraint submission_types_id_auction_id_key UNIQUE (id, auction_id);
alter table public.submission_types add constraint submission_types_name_check CHECK ((length(TRIM(BOTH FROM name)) > 0));
alter table public.submission_types add constraint submission_types_pkey PRIMARY KEY (id);
create policy submission_types_delete on public.submission_types as permissive for delete to authenticated
  using ((auction_id IN ( SELECT public.admin_auction_ids() AS admin_auction_ids)));
create policy submission_types_insert on public.submission_types as permissive for insert to authenticated
  with check ((auction_id IN ( SELECT public.admin_auction_ids() AS admin_auction_ids)));
create policy submission_types_not_anonymous on public.submission_types as restrictive for all to authenticated
  using ((NOT ( SELECT public.is_anonymous_caller() AS is_anonymous_caller)))
  with check ((NOT ( SELECT public.is_anonymous_caller() AS is_anonymous_caller)));
create policy submission_types_select on public.submission_types as permissive for select to authenticated
  using ((auction_id = ANY (ARRAY( SELECT public.member_auction_ids() AS member_auction_ids))));
create policy submission_types_update on public.submission_types as permissive for update to authenticated
  using ((auction_id IN ( SELECT public.admin_auction_ids() AS admin_auction_ids)))
  with check ((auction_id IN ( SELECT public.admin_auction_ids() AS admin_auction_ids)));
grant delete, insert, select, update on public.submission_types to authenticated;
grant delete, insert, references, select, trigger, truncate, update on public.submission_types to service_role;

-- object: table public.super_admins
create table public.super_admins (
  user_id uuid not null,
  granted_by uuid,
  created_at timestamp with time zone not null default now()
);
alter table public.super_admins enable row level security;
alter table public.super_admins add constraint super_admins_granted_by_fkey FOREIGN KEY (granted_by) REFERENCES public.users(id) ON DELETE SET NULL;
alter table public.super_admins add constraint super_admins_pkey PRIMARY KEY (user_id);
alter table public.super_admins add constraint super_admins_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id) ON DELETE CASCADE;
create policy super_admins_all on public.super_admins as permissive for all to authenticated
  using (( SELECT public.is_super_admin() AS is_super_admin))
  with check (( SELECT public.is_super_admin() AS is_super_admin));
create policy super_admins_not_anonymous on public.super_admins as restrictive for all to authenticated
  using ((NOT ( SELECT public.is_anonymous_caller() AS is_anonymous_caller)))
  with check ((NOT ( SELECT public.is_anonymous_caller() AS is_anonymous_caller)));
grant delete, insert, select on public.super_admins to authenticated;
grant delete, insert, references, select, trigger, truncate, update on public.super_admins to service_role;

-- object: table public.user_push_tokens
create table public.user_push_tokens (
  id uuid not null default gen_random_uuid(),
  user_id uuid not null default auth.uid(),
  token text not null,
  platform text not null,
  device_name text,
  created_at timestamp with time zone not null default now(),
  last_used_at timestamp with time zone
);
alter table public.user_push_tokens enable row level security;
alter table public.user_push_tokens add constraint user_push_tokens_pkey PRIMARY KEY (id);
alter table public.user_push_tokens add constraint user_push_tokens_platform_check CHECK ((platform = ANY (ARRAY['ios'::text, 'android'::text])));
alter table public.user_push_tokens add constraint user_push_tokens_token_key UNIQUE (token);
alter table public.user_push_tokens add constraint user_push_tokens_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id) ON DELETE CASCADE;
CREATE INDEX user_push_tokens_user_idx ON public.user_push_tokens USING btree (user_id);
create policy user_push_tokens_not_anonymous on public.user_push_tokens as restrictive for all to authenticated
  using ((NOT ( SELECT public.is_anonymous_caller() AS is_anonymous_caller)))
  with check ((NOT ( SELECT public.is_anonymous_caller() AS is_anonymous_caller)));
create policy user_push_tokens_own on public.user_push_tokens as permissive for all to authenticated
  using ((user_id = ( SELECT auth.uid() AS uid)))
  with check ((user_id = ( SELECT auth.uid() AS uid)));
grant delete, insert, select, update on public.user_push_tokens to authenticated;
grant delete, insert, references, select, trigger, truncate, update on public.user_push_tokens to service_role;

-- object: table public.users
create table public.users (
  id uuid not null,
  email text,
  full_name text,
  avatar_url text,
  created_at timestamp with time zone not null default now(),
  updated_at timestamp with time zone not null default now()
);
alter table public.users enable row level security;
alter table public.users add constraint users_id_fkey FOREIGN KEY (id) REFERENCES auth.users(id) ON DELETE CASCADE;
alter table public.users add constraint users_pkey PRIMARY KEY (id);
create policy users_not_anonymous on public.users as restrictive for all to authenticated
  using ((NOT ( SELECT public.is_anonymous_caller() AS is_anonymous_caller)))
  with check ((NOT ( SELECT public.is_anonymous_caller() AS is_anonymous_caller)));
create policy users_select_co_members on public.users as permissive for select to authenticated
  using ((( SELECT public.is_super_admin() AS is_super_admin) OR (id = ANY (ARRAY( SELECT public.current_user_co_member_ids() AS current_user_co_member_ids)))));
create policy users_select_self on public.users as permissive for select to authenticated
  using ((id = ( SELECT auth.uid() AS uid)));
create policy users_update_self on public.users as permissive for update to authenticated
  using ((id = ( SELECT auth.uid() AS uid)))
  with check ((id = ( SELECT auth.uid() AS uid)));
grant select on public.users to authenticated;
grant delete, insert, references, select, trigger, truncate, update on public.users to service_role;

-- object: table public.webhook_deliveries
create table public.webhook_deliveries (
  id uuid not null default gen_random_uuid(),
  endpoint_id uuid not null,
  auction_id uuid not null,
  event_id uuid,
  event_type text not null,
  payload jsonb not null,
  status text not null default 'queued'::text,
  attempt_count integer not null default 0,
  round_start_attempt integer not null default 0,
  next_attempt_at timestamp with time zone not null default now(),
  last_status_code integer,
  last_error text,
  is_test boolean not null default false,
  created_at timestamp with time zone not null default now(),
  delivered_at timestamp with time zone,
  locked_by text,
  locked_until timestamp with time zone,
  lease_token uuid
);
alter table public.webhook_deliveries enable row level security;
alter table public.webhook_deliveries add constraint webhook_deliveries_auction_id_fkey FOREIGN KEY (auction_id) REFERENCES public.auctions(id) ON DELETE CASCADE;
alter table public.webhook_deliveries add constraint webhook_deliveries_endpoint_id_fkey FOREIGN KEY (endpoint_id) REFERENCES public.webhook_endpoints(id) ON DELETE CASCADE;
alter table public.webhook_deliveries add constraint webhook_deliveries_event_endpoint_key UNIQUE (event_id, endpoint_id);
alter table public.webhook_deliveries add constraint webhook_deliveries_pkey PRIMARY KEY (id);
alter table public.webhook_deliveries add constraint webhook_deliveries_status_check CHECK ((status = ANY (ARRAY['queued'::text, 'delivered'::text, 'failed'::text])));
CREATE INDEX webhook_deliveries_auction_idx ON public.webhook_deliveries USING btree (auction_id, created_at DESC);
CREATE INDEX webhook_deliveries_due_idx ON public.webhook_deliveries USING btree (endpoint_id, next_attempt_at) WHERE (status = 'queued'::text);
CREATE INDEX webhook_deliveries_endpoint_status_idx ON public.webhook_deliveries USING btree (endpoint_id, status, created_at);
CREATE INDEX webhook_deliveries_next_idx ON public.webhook_deliveries USING btree (next_attempt_at) WHERE (status = 'queued'::text);
create policy webhook_deliveries_admin_read on public.webhook_deliveries as permissive for select to authenticated
  using ((public.is_super_admin() OR public.is_auction_admin_or_above(auction_id)));
create policy webhook_deliveries_not_anonymous on public.webhook_deliveries as restrictive for all to authenticated
  using ((NOT ( SELECT public.is_anonymous_caller() AS is_anonymous_caller)))
  with check ((NOT ( SELECT public.is_anonymous_caller() AS is_anonymous_caller)));
create policy webhook_deliveries_not_deleted on public.webhook_deliveries as restrictive for all to authenticated
  using ((NOT (auction_id = ANY (ARRAY( SELECT public.deleted_auction_ids() AS deleted_auction_ids)))))
  with check ((NOT (auction_id = ANY (ARRAY( SELECT public.deleted_auction_ids() AS deleted_auction_ids)))));
grant select on public.webhook_deliveries to authenticated;
grant select on public.webhook_deliveries to service_role;

-- object: table public.webhook_delivery_attempts
create table public.webhook_delivery_attempts (
  id uuid not null default gen_random_uuid(),
  delivery_id uuid not null,
  endpoint_id uuid not null,
  auction_id uuid not null,
  event_type text not null,
  attempt integer not null,
  status text not null,
  response_status integer,
  response_time_ms integer,
  response_body text,
  error_message text,
  created_at timestamp with time zone not null default now()
);
alter table public.webhook_delivery_attempts enable row level security;
alter table public.webhook_delivery_attempts add constraint webhook_delivery_attempts_attempt_key UNIQUE (delivery_id, attempt);
alter table public.webhook_delivery_attempts add constraint webhook_delivery_attempts_auction_id_fkey FOREIGN KEY (auction_id) REFERENCES public.auctions(id) ON DELETE CASCADE;
alter table public.webhook_delivery_attempts add constraint webhook_delivery_attempts_delivery_id_fkey FOREIGN KEY (delivery_id) REFERENCES public.webhook_deliveries(id) ON DELETE CASCADE;
alter table public.webhook_delivery_attempts add constraint webhook_delivery_attempts_endpoint_id_fkey FOREIGN KEY (endpoint_id) REFERENCES public.webhook_endpoints(id) ON DELETE CASCADE;
alter table public.webhook_delivery_attempts add constraint webhook_delivery_attempts_pkey PRIMARY KEY (id);
alter table public.webhook_delivery_attempts add constraint webhook_delivery_attempts_response_body_check CHECK ((octet_length(response_body) <= 2048));
alter table public.webhook_delivery_attempts add constraint webhook_delivery_attempts_status_check CHECK ((status = ANY (ARRAY['success'::text, 'failed'::text])));
CREATE INDEX webhook_delivery_attempts_auction_idx ON public.webhook_delivery_attempts USING btree (auction_id, created_at DESC);
CREATE INDEX webhook_delivery_attempts_created_idx ON public.webhook_delivery_attempts USING btree (created_at);
create policy webhook_delivery_attempts_admin_read on public.webhook_delivery_attempts as permissive for select to authenticated
  using ((public.is_super_admin() OR public.is_auction_admin_or_above(auction_id)));
create policy webhook_delivery_attempts_not_anonymous on public.webhook_delivery_attempts as restrictive for all to authenticated
  using ((NOT ( SELECT public.is_anonymous_caller() AS is_anonymous_caller)))
  with check ((NOT ( SELECT public.is_anonymous_caller() AS is_anonymous_caller)));
create policy webhook_delivery_attempts_not_deleted on public.webhook_delivery_attempts as restrictive for all to authenticated
  using ((NOT (auction_id = ANY (ARRAY( SELECT public.deleted_auction_ids() AS deleted_auction_ids)))))
  with check ((NOT (auction_id = ANY (ARRAY( SELECT public.deleted_auction_ids() AS deleted_auction_ids)))));
grant select on public.webhook_delivery_attempts to authenticated;
grant select on public.webhook_delivery_attempts to service_role;

-- object: table public.webhook_endpoints
create table public.webhook_endpoints (
  id uuid not null default gen_random_uuid(),
  auction_id uuid not null,
  url text not null,
  description text,
  events text[] not null,
  secret text,
  is_active boolean not null default true,
  consecutive_failures integer not null default 0,
  disabled_at timestamp with time zone,
  disabled_reason text,
  created_by uuid default auth.uid(),
  created_at timestamp with time zone not null default now(),
  updated_at timestamp with time zone not null default now()
);
alter table public.webhook_endpoints enable row level security;
alter table public.webhook_endpoints add constraint webhook_endpoints_auction_id_fkey FOREIGN KEY (auction_id) REFERENCES public.auctions(id) ON DELETE CASCADE;
alter table public.webhook_endpoints add constraint webhook_endpoints_created_by_fkey FOREIGN KEY (created_by) REFERENCES public.users(id) ON DELETE SET NULL;
alter table public.webhook_endpoints add constraint webhook_endpoints_description_length CHECK ((length(description) <= 1000));
alter table public.webhook_endpoints add constraint webhook_endpoints_pkey PRIMARY KEY (id);
alter table public.webhook_endpoints add constraint webhook_endpoints_secret_write_only CHECK ((secret IS NULL));
CREATE INDEX webhook_endpoints_auction_id_idx ON public.webhook_endpoints USING btree (auction_id) WHERE is_active;
create policy webhook_endpoints_admin on public.webhook_endpoints as permissive for all to authenticated
  using ((public.is_super_admin() OR public.is_auction_admin_or_above(auction_id)))
  with check ((public.is_super_admin() OR public.is_auction_admin_or_above(auction_id)));
create policy webhook_endpoints_not_anonymous on public.webhook_endpoints as restrictive for all to authenticated
  using ((NOT ( SELECT public.is_anonymous_caller() AS is_anonymous_caller)))
  with check ((NOT ( SELECT public.is_anonymous_caller() AS is_anonymous_caller)));
create policy webhook_endpoints_not_deleted on public.webhook_endpoints as restrictive for all to authenticated
  using ((NOT (auction_id = ANY (ARRAY( SELECT public.deleted_auction_ids() AS deleted_auction_ids)))))
  with check ((NOT (auction_id = ANY (ARRAY( SELECT public.deleted_auction_ids() AS deleted_auction_ids)))));
CREATE TRIGGER webhook_endpoints_after_disable AFTER UPDATE OF is_active ON public.webhook_endpoints FOR EACH ROW WHEN (old.is_active AND NOT new.is_active) EXECUTE FUNCTION webhooks.endpoint_after_disable();
CREATE TRIGGER webhook_endpoints_before_write BEFORE INSERT OR UPDATE ON public.webhook_endpoints FOR EACH ROW EXECUTE FUNCTION webhooks.endpoint_before_write();
grant delete, select on public.webhook_endpoints to authenticated;
grant delete, insert, select, update on public.webhook_endpoints to service_role;

-- object: view public.active_problem_reports
create view public.active_problem_reports as
 SELECT p.id,
    p.auction_id,
    p.issue_name,
    p.area,
    l.name AS location_name,
    p.status,
    public.display_name(pu.full_name, pu.email) AS prepared_by_name,
        CASE
            WHEN p.assigned_to IS NOT NULL THEN public.display_name(au.full_name, au.email)
            ELSE NULL::text
        END AS assigned_to_name,
    COALESCE(a.action_count, 0::bigint)::integer AS action_count,
    COALESCE(a.completed_action_count, 0::bigint)::integer AS completed_action_count,
    p.submitted_at
   FROM public.problem_reports p
     LEFT JOIN public.locations l ON l.id = p.location_id
     LEFT JOIN public.users pu ON pu.id = p.prepared_by
     LEFT JOIN public.users au ON au.id = p.assigned_to
     LEFT JOIN LATERAL ( SELECT count(*) AS action_count,
            count(*) FILTER (WHERE pa.status = 'complete'::text) AS completed_action_count
           FROM public.problem_actions pa
          WHERE pa.problem_id = p.id) a ON true;
grant select on public.active_problem_reports to authenticated;
grant select on public.active_problem_reports to service_role;

-- object: view public.messages_with_reply_count
create view public.messages_with_reply_count as
 SELECT m.id,
    m.auction_id,
    m.channel_id,
    m.user_id,
    m.content,
    m.message_type,
    m.parent_message_id,
    m.mentions,
    m.is_edited,
    m.edited_at,
    m.is_deleted,
    m.deleted_at,
    m.created_at,
    m.updated_at,
    COALESCE(r.reply_count, 0::bigint)::integer AS reply_count,
    r.last_reply_at
   FROM public.messages m
     LEFT JOIN LATERAL ( SELECT count(*) AS reply_count,
            max(x.created_at) AS last_reply_at
           FROM public.messages x
          WHERE x.parent_message_id = m.id AND NOT x.is_deleted) r ON true;
grant select on public.messages_with_reply_count to authenticated;
grant select on public.messages_with_reply_count to service_role;

-- object: view public.recent_quality_inspections
create view public.recent_quality_inspections as
 SELECT i.id,
    i.auction_id,
    i.location_id,
    l.name AS location_name,
    i.user_id,
    public.display_name(u.full_name, u.email) AS inspector_name,
    i.vin_number,
    i.barcode,
    i.submitted_at,
    COALESCE(dc.defect_count, 0::bigint)::integer AS defect_count
   FROM public.quality_inspections i
     JOIN public.locations l ON l.id = i.location_id
     LEFT JOIN public.users u ON u.id = i.user_id
     LEFT JOIN LATERAL ( SELECT count(*) AS defect_count
           FROM public.quality_defects d
          WHERE d.inspection_id = i.id) dc ON true;
grant select on public.recent_quality_inspections to authenticated;
grant select on public.recent_quality_inspections to service_role;

-- object: view public.recent_submissions
create view public.recent_submissions as
 SELECT s.id,
    s.auction_id,
    s.location_id,
    l.name AS location_name,
    s.user_id,
    public.display_name(u.full_name, u.email) AS submitted_by,
    s.submitted_at,
    COALESCE(( SELECT jsonb_agg(jsonb_build_object('type_name', t.name, 'car_count', en.car_count, 'image_url', en.image_url) ORDER BY lst.display_order, t.name) AS jsonb_agg
           FROM public.lot_submission_entries en
             JOIN public.submission_types t ON t.id = en.submission_type_id
             LEFT JOIN public.location_submission_types lst ON lst.location_id = s.location_id AND lst.submission_type_id = en.submission_type_id
          WHERE en.submission_id = s.id), '[]'::jsonb) AS entries,
    (( SELECT count(*) AS count
           FROM public.lot_submission_entries en
             JOIN public.submission_types t ON t.id = en.submission_type_id
          WHERE en.submission_id = s.id))::integer AS entry_count,
    COALESCE(( SELECT sum(en.car_count) AS sum
           FROM public.lot_submission_entries en
             JOIN public.submission_types t ON t.id = en.submission_type_id
          WHERE en.submission_id = s.id), 0::bigint)::integer AS total_car_count,
    s.image_url
   FROM public.lot_submissions s
     JOIN public.locations l ON l.id = s.location_id
     LEFT JOIN public.users u ON u.id = s.user_id;
grant select on public.recent_submissions to authenticated;
grant select on public.recent_submissions to service_role;
