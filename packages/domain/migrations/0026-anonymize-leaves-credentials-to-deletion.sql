-- Credentials go with the account's deletion now (auth-core 0014: a trigger when deleted_at is set, for the admin
-- API's soft delete too), so anonymize_user no longer lists them: it scrubs the person and the memberships and sets
-- deleted_at. The rest is as in 0025.
create or replace function public.anonymize_user(p_user_id uuid default null) returns jsonb
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
  -- Setting deleted_at removes every credential (auth.forget_deleted_account).
  update auth.users set email = null, phone = null, raw_user_meta_data = '{}', email_confirmed_at = null,
    phone_confirmed_at = null, deleted_at = now(), banned_until = 'infinity', updated_at = now()
  where id = v_target;
  -- After auth.users: its sync trigger would otherwise keep the old name.
  update public.users set email = null, full_name = 'Deleted user', avatar_url = null, updated_at = now()
  where id = v_target;
  return jsonb_build_object('user_id', v_target, 'anonymized_at', now());
end $$;
