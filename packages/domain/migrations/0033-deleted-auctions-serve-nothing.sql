-- A deleted auction serves nothing (issue 52): 0031 hid a deleted auction through the membership helpers and a
-- restrictive policy on the tables whose policies had a branch of their own; these are the paths it missed.
-- Exceptions stay the deletion's own: delete_auction, restore_deleted_auction, list_deleted_auctions,
-- purge_deleted_auction_now and the console's RPCs.

-- 0031's rule for tables whose policies have a branch of their own, as one helper (this set's tables below, the
-- webhooks' and reporting's sets use it too): a restrictive policy `<table>_not_deleted` leaves a deleted auction's
-- rows out for signed-in users, whatever the permissive policies say. p_command: 'all' or 'delete'.
create function domain.hide_deleted_auction_rows(p_table regclass, p_command text default 'all') returns void
language plpgsql set search_path = '' as $$
declare
  v_rule constant text := 'not (auction_id = any (array(select public.deleted_auction_ids())))';
begin
  if p_command not in ('all', 'delete') then
    raise exception 'hide_deleted_auction_rows: command % is not all or delete', p_command;
  end if;
  execute format('create policy %I on %s as restrictive for %s to authenticated using (%s)%s',
    (select c.relname from pg_catalog.pg_class c where c.oid = p_table) || '_not_deleted', p_table, p_command,
    v_rule, case when p_command = 'all' then format(' with check (%s)', v_rule) else '' end);
end $$;
revoke execute on function domain.hide_deleted_auction_rows(regclass, text) from public;

-- Rows that are the caller's own (read state, notification preferences): their `user_id = auth.uid()` branch let an
-- owner read and change them in a deleted auction.
select domain.hide_deleted_auction_rows('public.channel_read_state');
select domain.hide_deleted_auction_rows('public.channel_notification_preferences');

-- Reactions: reading and adding them go through the membership helpers already; removing one's own does not. Only
-- the delete gets the rule, so that the read policies stay made of what realtime's identity classes are made of
-- (reactions are a classed realtime table: realtime-exposure.test.ts).
select domain.hide_deleted_auction_rows('public.message_reactions', 'delete');

-- An invitation link to a deleted auction is not acceptable: it would add a member (and emit member.joined) to
-- an auction nobody may see. Body as of 0002 (helpers renamed by 0030), with the check.
create or replace function public.accept_auction_invite(p_token text) returns jsonb
language plpgsql volatile security definer set search_path = '' as $$
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
end $$;

-- A member leaving a deleted auction (the self-removal branch) changed it and emitted member.removed. Body as of
-- 0002 (helpers renamed by 0030), with the check.
create or replace function public.remove_auction_member(p_auction_id uuid, p_user_id uuid) returns jsonb
language plpgsql volatile security definer set search_path = '' as $$
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
end $$;
