-- log_email is SECURITY DEFINER, so 0014's restrictive policy on email_log does not reach it: an anonymous user
-- could fill the log with rows naming any address. It refuses them as it refuses a public reader.
-- (anonymize_user stays open to them: it only ever scrubs the caller's own account.)
create or replace function public.log_email(p_to_email text, p_template text, p_status text,
                                            p_provider_id text default null, p_error text default null) returns uuid
language plpgsql volatile security definer set search_path = '' as $$
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
end $$;
