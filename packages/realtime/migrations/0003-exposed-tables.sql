-- Exposure declared where a table is created: an area's migration calls realtime.expose(table, classed) instead
-- of adding the table to a list kept here. `classed` promises that the table's SELECT policies depend only on what
-- realtime.identity_class reads (for the domain: role, super-admin status, memberships, location assignments), so
-- one check serves every subscriber of a class; the domain's tests compare each classed table's policies with
-- that rule.
create table realtime.exposed_tables (
  rel regclass primary key,
  classed boolean not null default false,
  exposed_at timestamptz not null default now()
);
grant select on realtime.exposed_tables to authenticator;

create function realtime.expose(rel regclass, classed boolean default false) returns void
language plpgsql set search_path = pg_catalog, pg_temp as $$
begin
  -- Old rows in full: a DELETE or UPDATE can be matched against a subscriber's filter and routed by its tenant.
  -- The WAL grows by the old row on updates and deletes of the table.
  execute format('alter table %s replica identity full', rel);
  if not exists (select from pg_publication_rel pr join pg_publication p on p.oid = pr.prpubid
                  where p.pubname = 'auction_ops_realtime' and pr.prrelid = rel) then
    execute format('alter publication auction_ops_realtime add table %s', rel);
  end if;
  insert into realtime.exposed_tables (rel, classed) values (rel, classed)
    on conflict on constraint exposed_tables_pkey do update set classed = excluded.classed;
end $$;
revoke all on function realtime.expose(regclass, boolean) from public;
