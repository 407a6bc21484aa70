-- Tenant scopes: a table may declare the column naming its tenant, and the schema's owner the tenants an identity
-- can see rows of at all. A change is then checked only for identities whose tenants include the change's (five
-- thousand subscribers in fifty auctions no longer cost fifty auctions' checks per change). The declaration only
-- ever skips checks whose answer would be "no": row-level security still decides every pair that is checked, so
-- a wrong declaration can hide a change, never show one. An identity whose tenants are null (the default, e.g. a
-- super admin) and a change whose tenant is null are checked as before.

alter table realtime.exposed_tables add column tenant_column name;

-- The tenants whose rows the identity may see in tables with a tenant column; null when not limited (the default).
create function realtime.identity_tenants(role text, claims jsonb) returns text[]
language sql stable as $$ select null::text[] $$;
grant execute on function realtime.identity_tenants(text, jsonb) to authenticator;

-- Declares `tenant_column` of an exposed table: its SELECT policies show a row only to identities whose
-- realtime.identity_tenants include the row's value of that column (or are null).
create function realtime.scope_by_tenant(rel regclass, tenant_column name) returns void
language plpgsql set search_path = pg_catalog, pg_temp as $$
begin
  if not exists (select from pg_attribute a where a.attrelid = rel and a.attname = tenant_column
                  and a.attnum > 0 and not a.attisdropped) then
    raise exception 'realtime.scope_by_tenant: % has no column %', rel, tenant_column;
  end if;
  update realtime.exposed_tables e set tenant_column = scope_by_tenant.tenant_column where e.rel = scope_by_tenant.rel;
  if not found then
    raise exception 'realtime.scope_by_tenant: % is not exposed (realtime.expose first)', rel;
  end if;
end $$;
revoke all on function realtime.scope_by_tenant(regclass, name) from public;

-- As realtime.identity_classes, with each identity's tenants for tables that declare a tenant column.
create function realtime.identity_scopes(rels regclass[], identities jsonb)
returns table(identity integer, rel regclass, class text, tenants text[])
language sql stable as $$
  select (e.ord - 1)::integer, r, realtime.identity_class(r, e.v->>'role', (e.v->>'claims')::jsonb),
         case when exists (select from realtime.exposed_tables x where x.rel = r and x.tenant_column is not null)
              then realtime.identity_tenants(e.v->>'role', (e.v->>'claims')::jsonb) end
    from jsonb_array_elements(identities) with ordinality e(v, ord), unnest(rels) r
$$;
revoke all on function realtime.identity_scopes(regclass[], jsonb) from public;
grant execute on function realtime.identity_scopes(regclass[], jsonb) to authenticator;

-- As in 0005, and an identity may carry `changes`, the indexes of the changes to check for it (the others are not
-- its tenants'): only those are judged, and the indexes returned are still into `changes`.
create or replace function realtime.visible_changes(rel regclass, changes jsonb, identities jsonb)
returns table(identity integer, change integer)
language plpgsql volatile set search_path = pg_catalog, pg_temp as $$
declare
  ident record;
  qual text;
  quals jsonb := '{}';
  alias text := (select c.relname from pg_class c where c.oid = rel);
  check_sql text;
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
          'select array_agg((c.ord - 1)::integer) from jsonb_array_elements($1) with ordinality c(v, ord), '
          'lateral jsonb_populate_record(null::%s, c.v) as %I where %s', rel, alias, qual);
        -- Aggregated first: a raise part-way then leaves nothing of this identity in the result.
        execute check_sql into seen using mine;
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
            execute check_sql into seen using jsonb_build_array(mine->one);
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
