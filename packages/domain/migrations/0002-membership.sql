-- Invitations and the membership RPCs: invite, accept, change role, remove, transfer ownership.
-- Membership rows are only written here (members have no write grant on auction_members), so the role rules
-- live in one place. These functions are SECURITY DEFINER and check the caller themselves.

create table public.auction_invitations (
  id uuid primary key default gen_random_uuid(),
  auction_id uuid not null references public.auctions (id) on delete cascade,
  email text not null,
  role text not null check (role in ('owner', 'admin', 'team_member')),
  token_hash text not null unique,
  invited_by uuid references public.users (id) on delete set null,
  expires_at timestamptz not null default now() + interval '7 days',
  accepted_at timestamptz,
  accepted_by uuid references public.users (id) on delete set null,
  revoked_at timestamptz,
  created_at timestamptz not null default now()
);
create index auction_invitations_auction_id_idx on public.auction_invitations (auction_id, created_at desc);

alter table public.auction_invitations enable row level security;
-- token_hash stays hidden even from admins.
grant select (id, auction_id, email, role, invited_by, expires_at, accepted_at, accepted_by, revoked_at, created_at)
  on public.auction_invitations to authenticated;
grant update (revoked_at) on public.auction_invitations to authenticated;
grant all on public.auction_invitations to service_role;
create policy auction_invitations_select on public.auction_invitations for select to authenticated
  using (auction_id in (select public.admin_auction_ids()));
create policy auction_invitations_revoke on public.auction_invitations for update to authenticated
  using (auction_id in (select public.admin_auction_ids()))
  with check (auction_id in (select public.admin_auction_ids()));

-- Invitations made by generate-invite-link carry a placeholder address under the reserved .invalid TLD
-- (RFC 2606); anyone holding such a link may accept it.
create function public.is_placeholder_email(p_email text) returns boolean
language sql immutable as $$ select p_email is null or lower(p_email) like '%.invalid' $$;

-- The caller's effective role: super admins and the service role act as owners everywhere.
create function public.caller_role(p_auction_id uuid) returns text
language sql stable security definer set search_path = '' as $$
  select case when public.is_super_admin() or auth.role() = 'service_role' then 'owner'
    else public.get_user_auction_role(p_auction_id) end
$$;
revoke execute on function public.caller_role(uuid) from public;

create function public.invite_user_to_auction(p_auction_id uuid, p_email text, p_role text default 'team_member')
returns jsonb language plpgsql volatile security definer set search_path = '' as $$
declare
  v_caller text := public.caller_role(p_auction_id);
  v_token text := encode(public.extensions_random_bytes(), 'hex');
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
  perform public.emit_event(p_auction_id, 'member.invited', jsonb_build_object(
    'invitation_id', v_inv.id, 'email', v_inv.email, 'role', v_inv.role,
    'invited_by', public.user_ref(v_inv.invited_by), 'expires_at', v_inv.expires_at, 'created_at', v_inv.created_at));
  return jsonb_build_object('invitation_id', v_inv.id, 'token', v_token, 'expires_at', v_inv.expires_at);
end $$;

-- 32 random bytes; pgcrypto lives in public or extensions depending on the install, so call it through a wrapper.
create function public.extensions_random_bytes() returns bytea
language sql volatile set search_path = public, extensions as $$ select gen_random_bytes(32) $$;
revoke execute on function public.extensions_random_bytes() from public;

create function public.accept_auction_invite(p_token text) returns jsonb
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
  perform public.emit_event(v_inv.auction_id, 'member.joined', jsonb_build_object(
    'user_id', v_uid, 'email', v_user.email, 'full_name', v_user.full_name, 'role', v_member.role,
    'invited_by', public.user_ref(v_inv.invited_by), 'joined_at', v_member.joined_at));
  return jsonb_build_object('auction_id', v_inv.auction_id, 'role', v_member.role, 'member_id', v_member.id);
end $$;

create function public.change_member_role(p_auction_id uuid, p_user_id uuid, p_new_role text)
returns public.auction_members language plpgsql volatile security definer set search_path = '' as $$
declare
  v_caller text := public.caller_role(p_auction_id);
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
end $$;

create function public.remove_auction_member(p_auction_id uuid, p_user_id uuid) returns jsonb
language plpgsql volatile security definer set search_path = '' as $$
declare
  v_caller text := public.caller_role(p_auction_id);
  v_target public.auction_members;
begin
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

create function public.transfer_auction_ownership(p_auction_id uuid, p_new_owner_id uuid) returns jsonb
language plpgsql volatile security definer set search_path = '' as $$
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
end $$;

-- member.role_changed and member.removed come from triggers, so every path (RPC, service role) emits them.
create function public.auction_members_events() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  if tg_op = 'UPDATE' then
    if new.role is distinct from old.role then
      perform public.emit_event(new.auction_id, 'member.role_changed', jsonb_build_object(
        'member_id', new.id, 'user_id', new.user_id, 'name', public.user_display_name(new.user_id),
        'previous_role', old.role, 'new_role', new.role, 'changed_by', public.user_ref(auth.uid()),
        'changed_at', now()));
    end if;
    return null;
  end if;
  -- A cascade from a deleted auction has nowhere to emit to.
  if exists (select 1 from public.auctions where id = old.auction_id) then
    perform public.emit_event(old.auction_id, 'member.removed', jsonb_build_object(
      'member_id', old.id, 'user_id', old.user_id, 'name', public.user_display_name(old.user_id), 'role', old.role,
      'removed_by', public.user_ref(auth.uid()), 'removed_at', now()));
  end if;
  return null;
end $$;
create trigger auction_members_events after update of role or delete on public.auction_members
  for each row execute function public.auction_members_events();

revoke execute on function public.invite_user_to_auction(uuid, text, text), public.accept_auction_invite(text),
  public.change_member_role(uuid, uuid, text), public.remove_auction_member(uuid, uuid),
  public.transfer_auction_ownership(uuid, uuid) from public;
grant execute on function public.invite_user_to_auction(uuid, text, text), public.accept_auction_invite(text),
  public.change_member_role(uuid, uuid, text), public.remove_auction_member(uuid, uuid),
  public.transfer_auction_ownership(uuid, uuid) to authenticated, service_role;
