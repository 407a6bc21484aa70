-- An account marked deleted keeps no way in and no secret of its person. anonymize_user (domain 0025) removed the
-- credentials itself, while the admin API's soft delete (DELETE /admin/users/{id} with should_soft_delete) ended the
-- sessions only and left the password hash's removal as its one other step: second factors and their secrets,
-- passkeys, identities, one-time links and codes, PKCE flows and OAuth grants outlived the account. The removal now
-- belongs to the deletion itself, whichever path sets deleted_at.
create function auth.forget_deleted_account() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  delete from auth.sessions where user_id = new.id;
  delete from auth.identities where user_id = new.id;
  delete from auth.one_time_tokens where user_id = new.id;
  -- Factors take their challenges and WebAuthn keys with them.
  delete from auth.mfa_factors where user_id = new.id;
  delete from auth.webauthn_credentials where user_id = new.id;
  delete from auth.webauthn_challenges where user_id = new.id;
  delete from auth.phone_codes where user_id = new.id;
  delete from auth.flow_state where user_id = new.id or link_user_id = new.id;
  delete from auth.oauth_consents where user_id = new.id;
  delete from auth.oauth_authorizations where user_id = new.id;
  new.encrypted_password := null;
  new.reauthentication_token := null;
  new.reauthentication_sent_at := null;
  return new;
end $$;

create trigger forget_deleted_account before update of deleted_at on auth.users
  for each row when (old.deleted_at is null and new.deleted_at is not null)
  execute function auth.forget_deleted_account();
