-- Turning on require_mfa_for_admins (0013) is itself a second-factor action: an owner or admin may switch it on only
-- from a session at aal2, so that nobody locks the auction's admins out of their rights without having a factor
-- themselves, and a stolen password-only session cannot change how the auction is protected. Switching it off
-- already needs aal2 (with it on, an aal1 admin holds no admin rights). Super admins and the server's own
-- connections (no request role) are not asked.
create function public.auctions_mfa_setting_guard() returns trigger
language plpgsql set search_path = '' as $$
begin
  if coalesce((new.settings ->> 'require_mfa_for_admins')::boolean, false)
     and not coalesce((old.settings ->> 'require_mfa_for_admins')::boolean, false)
     and auth.role() = 'authenticated' and auth.aal() <> 'aal2' and not public.is_super_admin() then
    raise exception 'turn on require_mfa_for_admins from a session that passed a second factor (aal2)'
      using errcode = '42501';
  end if;
  return new;
end $$;
create trigger auctions_mfa_setting_guard before update of settings on public.auctions
  for each row execute function public.auctions_mfa_setting_guard();
