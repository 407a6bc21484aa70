-- Fan-out as of 0005, with an id drawn for each delivery (issue 57). 0001 and 0005 drew the ids in
-- `cross join lateral (select gen_random_uuid() as id)`: a subquery that names no column of the endpoint row, which
-- the planner may run once and join to every endpoint (a nested loop with the Result outside). It chose that plan
-- once webhook_endpoints had statistics that made a sequential scan cheapest (autovacuum analyzes it past about 50
-- endpoints), in the custom plans each backend makes for its first five fan-outs: the two deliveries of an event to
-- two endpoints got one id, the second broke webhook_deliveries_pkey, and the write that emitted the event was
-- rolled back and answered 409 23505. A materialized CTE draws the id in the scan of the endpoints, once per row,
-- and the insert reads it twice (the delivery's id and the body's webhook_id) from the stored row.
create or replace function webhooks.fan_out_event() returns trigger
language plpgsql security definer set search_path = '' as $$
declare
  created integer;
begin
  if new.event_type not like 'auction.%'
     and exists (select 1 from public.auctions a where a.id = new.auction_id and a.deleted_at is not null) then
    return null;
  end if;
  with targets as materialized (
    select gen_random_uuid() as id, e.id as endpoint_id
      from public.webhook_endpoints e
     where e.auction_id = new.auction_id and e.is_active and new.event_type = any (e.events))
  insert into public.webhook_deliveries (id, endpoint_id, auction_id, event_id, event_type, payload)
  select t.id, t.endpoint_id, new.auction_id, new.id, new.event_type,
         webhooks.build_payload(new.event_type, new.occurred_at, t.id, new.auction_id, new.data)
    from targets t
  on conflict (event_id, endpoint_id) do nothing;
  get diagnostics created = row_count;
  if created > 0 then
    perform pg_notify('webhook_deliveries', '');
  end if;
  return null;
end $$;
