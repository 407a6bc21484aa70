-- A deleted auction (domain/0031) serves nothing (issue 52). Its webhooks: nobody manages them (test, replay,
-- retry now), super admins no longer read them, and its events other than its own lifecycle (auction.deleted,
-- auction.undeleted, auction.purged) fan out to no endpoint. Deliveries queued before the deletion are held by the
-- dispatcher (src/delivery-store.ts) and go out if the deletion is undone.

-- The service role too: its maintenance of a deleted auction is the deletion's own RPCs, not its webhooks.
create or replace function webhooks.can_manage(p_auction_id uuid) returns boolean
language sql stable security definer set search_path = '' as $$
  select not exists (select 1 from public.auctions a where a.id = p_auction_id and a.deleted_at is not null)
    and (auth.role() = 'service_role' or public.is_super_admin() or public.is_auction_admin_or_above(p_auction_id))
$$;

-- The policies' super-admin branch does not go through the membership helpers, which leave deleted auctions out.
select domain.hide_deleted_auction_rows('public.webhook_endpoints');
select domain.hide_deleted_auction_rows('public.webhook_deliveries');
select domain.hide_deleted_auction_rows('public.webhook_delivery_attempts');

-- Fan-out as of 0001, skipping a deleted auction's events (a service-role write still makes them) but for its
-- lifecycle ones. One primary-key lookup per event.
create or replace function webhooks.fan_out_event() returns trigger
language plpgsql security definer set search_path = '' as $$
declare
  created integer;
begin
  if new.event_type not like 'auction.%'
     and exists (select 1 from public.auctions a where a.id = new.auction_id and a.deleted_at is not null) then
    return null;
  end if;
  insert into public.webhook_deliveries (id, endpoint_id, auction_id, event_id, event_type, payload)
  select x.id, e.id, new.auction_id, new.id, new.event_type,
         webhooks.build_payload(new.event_type, new.occurred_at, x.id, new.auction_id, new.data)
    from public.webhook_endpoints e
   cross join lateral (select gen_random_uuid() as id) x
   where e.auction_id = new.auction_id and e.is_active and new.event_type = any (e.events)
  on conflict (event_id, endpoint_id) do nothing;
  get diagnostics created = row_count;
  if created > 0 then
    perform pg_notify('webhook_deliveries', '');
  end if;
  return null;
end $$;
