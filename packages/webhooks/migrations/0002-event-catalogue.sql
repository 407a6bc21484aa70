-- Event types and test_webhook's samples come from the domain's catalogue (public.event_types), where each area
-- declares the events it emits; this package no longer keeps lists of its own.
create or replace function webhooks.event_types() returns text[]
language sql stable set search_path = '' as $$
  select coalesce(array_agg(name order by name), '{}') from public.event_types
$$;

create or replace function webhooks.sample_event_data(p_event_type text) returns jsonb
language sql stable set search_path = '' as $$
  select sample from public.event_types where name = p_event_type
$$;
