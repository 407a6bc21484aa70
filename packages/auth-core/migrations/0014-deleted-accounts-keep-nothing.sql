-- An account marked deleted keeps no way in and nothing of its person, whichever path sets deleted_at (the admin
-- API's soft delete, DELETE /admin/users/{id} with should_soft_delete, or anonymize_user). The soft delete used to
-- end the sessions and drop the password hash only: second factors and their secrets, passkeys, identities,
-- one-time links and codes, PKCE flows and OAuth grants outlived the account, and so did the e-mail address, the
-- phone number and the name and avatar the person gave. As GoTrue does, the address and the number give way to a
-- digest of the account's id and themselves (base64url of SHA-256; for the number, its first 15 characters), which
-- reaches no one; the unique indexes skip deleted rows, so the address can sign up again. anonymize_user (domain
-- 0026) nulls both in the same update, which this leaves null.
create function auth.obfuscated(account uuid, value text) returns text
language sql immutable set search_path = '' as $$
  select rtrim(translate(encode(sha256(convert_to(account::text || value, 'UTF8')), 'base64'), '+/', '-_'), '=')
$$;
revoke all on function auth.obfuscated(uuid, text) from public;

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
  new.email := auth.obfuscated(new.id, new.email);
  new.phone := left(auth.obfuscated(new.id, new.phone), 15);
  new.raw_user_meta_data := '{}';
  new.raw_app_meta_data := '{}';
  -- The profile copy too: its sync trigger runs only when an update names email or raw_user_meta_data itself.
  update public.users set email = new.email, full_name = null, avatar_url = null, updated_at = now()
  where id = new.id;
  return new;
end $$;

create trigger forget_deleted_account before update of deleted_at on auth.users
  for each row when (old.deleted_at is null and new.deleted_at is not null)
  execute function auth.forget_deleted_account();
