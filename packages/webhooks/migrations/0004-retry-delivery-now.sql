-- Retry a queued delivery now: its next attempt becomes due at once (the console's "Retry now", for a receiver that
-- is back before the schedule's next attempt). Same rules as the replays: the managers of the auction, super
-- admins and the service role; a disabled endpoint is refused (test deliveries excepted, as in the replays).
create function public.retry_webhook_delivery_now(delivery_id uuid) returns jsonb
language plpgsql volatile security definer set search_path = '' as $$
declare
  d public.webhook_deliveries;
  active boolean;
begin
  select * into d from public.webhook_deliveries x where x.id = retry_webhook_delivery_now.delivery_id for update;
  if not found or not webhooks.can_manage(d.auction_id) then
    raise exception 'webhook delivery not found' using errcode = 'P0002';
  end if;
  select e.is_active into active from public.webhook_endpoints e where e.id = d.endpoint_id;
  if not active and not d.is_test then
    raise exception 'webhook endpoint is disabled' using errcode = '22023', hint = 'set is_active to true first';
  end if;
  if d.status <> 'queued' then
    raise exception 'webhook delivery is not queued (it is %)', d.status using errcode = '22023',
      hint = 'replay_webhook_delivery sends a delivered or failed one again';
  end if;
  if d.locked_until is not null and d.locked_until > now() then
    raise exception 'webhook delivery is being attempted now' using errcode = '55006',
      hint = 'wait for the attempt to end';
  end if;
  update public.webhook_deliveries x set next_attempt_at = now() where x.id = d.id;
  perform pg_notify('webhook_deliveries', '');
  return jsonb_build_object('delivery_id', d.id, 'status', 'queued');
end $$;

revoke execute on function public.retry_webhook_delivery_now(uuid) from public;
grant execute on function public.retry_webhook_delivery_now(uuid) to authenticated, service_role;
