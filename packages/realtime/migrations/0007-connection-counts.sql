-- Open connections counted per client address, kept by triggers on realtime.connections: a lease is taken in one
-- statement that locks the address's count row, instead of a transaction that took an advisory lock per address and
-- counted its leases (four round trips under the lock, and a count that grew with the connections: 2,750 WebSockets
-- from one address, one NAT, took 20 s to join).
create unlogged table realtime.connection_counts (
  client_ip text primary key,
  open integer not null
);

insert into realtime.connection_counts (client_ip, open)
select client_ip, count(*) from realtime.connections group by client_ip;

create function realtime.count_opened_connections() returns trigger
language plpgsql set search_path = pg_catalog, pg_temp as $$
begin
  insert into realtime.connection_counts as c (client_ip, open)
  select client_ip, count(*) from opened group by client_ip
  on conflict (client_ip) do update set open = c.open + excluded.open;
  return null;
end $$;

-- Every way a lease goes (its connection closed, its instance swept by the cascade) passes here. An address with no
-- connection left loses its row, so the table holds the addresses connected now, not every address ever seen.
create function realtime.count_closed_connections() returns trigger
language plpgsql set search_path = pg_catalog, pg_temp as $$
begin
  update realtime.connection_counts c set open = greatest(c.open - g.n, 0)
    from (select client_ip, count(*) as n from closed group by client_ip) g
   where c.client_ip = g.client_ip;
  delete from realtime.connection_counts c
   where c.open = 0 and c.client_ip in (select client_ip from closed);
  return null;
end $$;

create trigger connections_opened after insert on realtime.connections
  referencing new table as opened for each statement execute function realtime.count_opened_connections();
create trigger connections_closed after delete on realtime.connections
  referencing old table as closed for each statement execute function realtime.count_closed_connections();

-- The count is read from its own row now; nothing else looked leases up by address.
drop index realtime.connections_client_ip;
