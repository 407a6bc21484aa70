-- A policy that raises hides the change it raised on, from the identity it raised for, and nothing else: until
-- now a raise hid the identity's whole batch (everything committed while the previous check ran). When an
-- identity's check raises, its changes are checked again one at a time, each in a subtransaction of its own.
-- Everything else as in 0001: the policies judge the row as committed (the image from the change stream, not the
-- table), under each identity's role and claims, one call per table and batch.
create or replace function realtime.visible_changes(rel regclass, changes jsonb, identities jsonb)
returns table(identity integer, change integer)
language plpgsql volatile set search_path = pg_catalog, pg_temp as $$
declare
  ident record;
  qual text;
  quals jsonb := '{}';
  alias text := (select c.relname from pg_class c where c.oid = rel);
  check_sql text;
  seen integer[];
  one integer;
begin
  for ident in select (e.ord - 1)::integer as idx, e.v->>'role' as role, e.v->>'claims' as claims
                 from jsonb_array_elements(identities) with ordinality e(v, ord) loop
    if ident.role not in ('anon', 'authenticated', 'service_role') then
      continue;
    end if;
    check_sql := null;
    begin
      perform set_config('role', ident.role, true);
      perform set_config('request.jwt.claims', ident.claims, true);
      -- The policy text depends on the role only: worked out once per role and call.
      if quals ? ident.role then
        qual := quals->>ident.role;
      else
        qual := realtime.select_policy(rel);
        quals := quals || jsonb_build_object(ident.role, qual);
      end if;
      if qual is not null then
        -- The image is named as the table, so the policy's column references resolve to it.
        check_sql := format(
          'select array_agg((c.ord - 1)::integer) from jsonb_array_elements($1) with ordinality c(v, ord), '
          'lateral jsonb_populate_record(null::%s, c.v) as %I where %s', rel, alias, qual);
        -- Aggregated first: a raise part-way then leaves nothing of this identity in the result.
        execute check_sql into seen using changes;
        return query select ident.idx, unnest(seen);
      end if;
    exception when others then
      -- This identity's check raised: its changes one at a time, so that only those that raise are hidden.
      if check_sql is not null and jsonb_array_length(changes) > 1 then
        for one in 0 .. jsonb_array_length(changes) - 1 loop
          begin
            perform set_config('role', ident.role, true);
            perform set_config('request.jwt.claims', ident.claims, true);
            execute check_sql into seen using jsonb_build_array(changes->one);
            if seen is not null then
              identity := ident.idx;
              change := one;
              return next;
            end if;
          exception when others then
            null; -- hidden from this identity; its other changes and the other identities go on
          end;
        end loop;
      end if;
    end;
  end loop;
end $$;
