-- Anonymous users (supabase-js signInAnonymously) hold an `authenticated` token with `is_anonymous: true`. The
-- domain gives them nothing beyond what a public reader (anon) gets: every table carries a restrictive policy that
-- refuses their reads and writes, on top of the permissive ones. Converted users (an e-mail added) get a fresh
-- token without the claim at their next refresh.
create function public.is_anonymous_caller() returns boolean
language sql stable set search_path = '' as $$
  select coalesce((auth.jwt() ->> 'is_anonymous')::boolean, false)
$$;
grant execute on function public.is_anonymous_caller() to anon, authenticated, service_role;

-- Tables added by later migrations call this too (their own `not_anonymous` policy).
create function domain.refuse_anonymous(p_table regclass) returns void
language plpgsql set search_path = '' as $$
begin
  execute format(
    'create policy %I on %s as restrictive for all to authenticated
       using (not (select public.is_anonymous_caller())) with check (not (select public.is_anonymous_caller()))',
    (select relname from pg_catalog.pg_class where oid = p_table) || '_not_anonymous', p_table);
end $$;
revoke execute on function domain.refuse_anonymous(regclass) from public;

select domain.refuse_anonymous(c.oid::regclass)
from pg_catalog.pg_class c join pg_catalog.pg_namespace n on n.oid = c.relnamespace
-- Tables a public reader may read (the event catalogue) stay open to them as to anon.
where n.nspname = 'public' and c.relkind = 'r' and c.relrowsecurity
  and not has_table_privilege('anon', c.oid, 'select');
