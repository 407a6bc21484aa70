-- Every table of the exposed schema that anon may not read refuses anonymous users by a restrictive policy
-- `<table>_not_anonymous` (domain.refuse_anonymous, 0014). A table added without one would let an anonymous
-- sign-in (role authenticated) read and write as a member. This lists such tables, for the tests of every area
-- (packages/domain/test/tenancy.test.ts, apps/server/test/new-area.test.ts) to expect none.
create function domain.tables_open_to_anonymous_users() returns setof regclass
language sql stable set search_path = '' as $$
  select c.oid::regclass
  from pg_catalog.pg_class c join pg_catalog.pg_namespace n on n.oid = c.relnamespace
  where n.nspname = 'public' and c.relkind in ('r', 'p') and c.relrowsecurity
    and not has_table_privilege('anon', c.oid, 'select')
    and not exists (
      select from pg_catalog.pg_policy p
      where p.polrelid = c.oid and not p.polpermissive and p.polname = c.relname || '_not_anonymous')
  order by 1::text
$$;
revoke execute on function domain.tables_open_to_anonymous_users() from public;
