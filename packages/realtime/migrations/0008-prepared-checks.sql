-- As in 0006, but each identity's check runs a prepared statement instead of planning its text again. The text of a
-- check depends on the table and the role's policies only, so the identities of one call, and the calls after it on
-- the same connection, share one statement, named by the text's digest: a changed policy is a new text and so a
-- new statement. PostgreSQL checks privileges at each run under the role of that run, and plans a statement again
-- when a table or function it uses changes (and, for a plan row-level security shaped, under another role). A
-- statement the connection does not have (a new connection, or a pooler's DISCARD ALL) is prepared at its first
-- use. The images to check reach the statement through a transaction-local setting, `realtime.images`, never
-- spliced into its text (EXECUTE of a prepared statement takes its arguments as SQL text). In the day bench at
-- K = 5 this function took 11 % of PostgreSQL's time, 3.6 ms a call, most of it planning the same few texts.

-- The policy text, as in 0001, in PL/pgSQL so that its statement's plan is kept for the session: as a SQL function
-- with a SET clause it was planned again at every call (0.4 ms of each call of visible_changes).
create or replace function realtime.select_policy(rel regclass) returns text
language plpgsql stable set search_path = pg_catalog, pg_temp as $$
begin
  return (
    with applicable as (
      select p.polpermissive, '(' || coalesce(pg_get_expr(p.polqual, p.polrelid), 'true') || ')' as qual
        from pg_policy p
       where p.polrelid = rel and p.polcmd in ('r', '*')
         and exists (select from unnest(p.polroles) r where r = 0 or pg_has_role(current_user, r, 'member')))
    select case
      when not has_any_column_privilege(rel, 'SELECT') then null
      when not (select c.relrowsecurity from pg_class c where c.oid = rel)
        or (select r.rolbypassrls from pg_roles r where r.rolname = current_user) then 'true'
      when not exists (select from applicable where polpermissive) then null
      else (select string_agg(qual, ' or ') from applicable where polpermissive)
        || coalesce(' and ' || (select string_agg(qual, ' and ') from applicable where not polpermissive), '')
    end);
end $$;

create or replace function realtime.visible_changes(rel regclass, changes jsonb, identities jsonb)
returns table(identity integer, change integer)
language plpgsql volatile set search_path = pg_catalog, pg_temp as $$
declare
  ident record;
  qual text;
  quals jsonb := '{}';
  alias text := (select c.relname from pg_class c where c.oid = rel);
  check_sql text;
  stmt text;
  prepared text[] := '{}';
  mine jsonb;
  seen integer[];
  one integer;
begin
  for ident in select (e.ord - 1)::integer as idx, e.v->>'role' as role, e.v->>'claims' as claims,
                      e.v->'changes' as subset
                 from jsonb_array_elements(identities) with ordinality e(v, ord) loop
    if ident.role not in ('anon', 'authenticated', 'service_role') then
      continue;
    end if;
    check_sql := null;
    mine := case when ident.subset is null then changes
                 else (select coalesce(jsonb_agg(changes->(o.v::integer) order by o.n), '[]')
                         from jsonb_array_elements_text(ident.subset) with ordinality o(v, n)) end;
    if jsonb_array_length(mine) = 0 then
      continue;
    end if;
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
          'select array_agg((c.ord - 1)::integer) '
          'from jsonb_array_elements(current_setting(''realtime.images'')::jsonb) with ordinality c(v, ord), '
          'lateral jsonb_populate_record(null::%s, c.v) as %I where %s', rel, alias, qual);
        stmt := 'realtime_check_' || md5(check_sql);
        perform set_config('realtime.images', mine::text, true);
        -- Aggregated first: a raise part-way then leaves nothing of this identity in the result.
        if stmt = any (prepared) then
          execute format('execute %I', stmt) into seen;
        else
          begin
            execute format('execute %I', stmt) into seen;
          exception when invalid_sql_statement_name then
            execute format('prepare %I as %s', stmt, check_sql);
            execute format('execute %I', stmt) into seen;
          end;
          prepared := prepared || stmt;
        end if;
        return query select ident.idx,
          case when ident.subset is null then s else (ident.subset->>s)::integer end from unnest(seen) s;
      end if;
    exception when others then
      -- This identity's check raised: its changes one at a time, so that only those that raise are hidden.
      if check_sql is not null and jsonb_array_length(mine) > 1 then
        for one in 0 .. jsonb_array_length(mine) - 1 loop
          begin
            perform set_config('role', ident.role, true);
            perform set_config('request.jwt.claims', ident.claims, true);
            perform set_config('realtime.images', jsonb_build_array(mine->one)::text, true);
            execute check_sql into seen;
            if seen is not null then
              identity := ident.idx;
              change := case when ident.subset is null then one else (ident.subset->>one)::integer end;
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
