-- The anonymous-user guard (0014) is the same on every upgrade path (issue 55). 0014 gave `<table>_not_anonymous`
-- to every table of `public` that existed when it ran. On a fresh install that is the domain's own tables, since the
-- sets that build on the domain run after it; on a database made before 0014 existed (commit 734ca04, before
-- 0.1.0), the webhooks' and reporting's tables were already there and got the policy too, so webhooks/0003, which
-- guards its own tables with this helper, failed with "policy ... already exists" (reporting/0004 would have been
-- next) and the server could not start. The helper now replaces the policy of that name: a table reached twice (by
-- 0014's pass over the catalog and by its own set) ends with the one policy a fresh install gives it. Every set that
-- calls it runs after this set's migrations (they depend on the domain), so every later call is this one.
create or replace function domain.refuse_anonymous(p_table regclass) returns void
language plpgsql set search_path = '' as $$
declare
  v_policy constant text := (select relname from pg_catalog.pg_class where oid = p_table) || '_not_anonymous';
begin
  execute format('drop policy if exists %I on %s', v_policy, p_table);
  execute format(
    'create policy %I on %s as restrictive for all to authenticated
       using (not (select public.is_anonymous_caller())) with check (not (select public.is_anonymous_caller()))',
    v_policy, p_table);
end $$;
