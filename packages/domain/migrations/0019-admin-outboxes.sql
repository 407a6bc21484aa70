-- The admin console's outbox RPCs (/console, docs/console.md): the auth mail outbox (auth.mail_outbox) and the push
-- job queue (notifications.push_jobs), neither of which any request role can read. Super admins only (42501).

-- The newest messages the auth family stored for sending (the development mail provider keeps every one here).
create function public.admin_mail_outbox(p_limit integer default 100)
returns table (id uuid, to_email text, subject text, template text, created_at timestamptz)
language plpgsql stable security definer set search_path = '' as $$
begin
  perform public.admin_require_super_admin();
  return query
    select m.id, m.to_email, m.subject, m.template, m.created_at
    from auth.mail_outbox m
    order by m.created_at desc, m.id
    limit least(greatest(coalesce(p_limit, 100), 1), 500);
end $$;

-- The newest push jobs with their state, attempts and last error. The notifications schema belongs to the functions
-- family and is created after the domain's migrations; where it is missing there are no jobs to show.
create function public.admin_push_jobs(p_limit integer default 100)
returns table (
  id uuid, kind text, auction_name text, status text, attempts integer, next_attempt_at timestamptz,
  last_error text, created_at timestamptz, sent_at timestamptz
)
language plpgsql stable security definer set search_path = '' as $$
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
end $$;

revoke all on function public.admin_mail_outbox(integer), public.admin_push_jobs(integer) from public;
grant execute on function public.admin_mail_outbox(integer), public.admin_push_jobs(integer) to authenticated;
