-- The auction rule for private channels, as policies on realtime.messages among any others: members of an auction
-- (and super admins) may read and write its topics, `auction:<id>` and `auction:<id>:<anything>`. Apps add their
-- own policies for other topics beside these.

-- The auction a topic belongs to; null when the topic is not an auction's.
create function realtime.auction_of_topic(topic text) returns uuid
language sql immutable as $$
  select (substring(topic from
    '^auction:([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})(:.*)?$'))::uuid
$$;
grant execute on function realtime.auction_of_topic(text) to anon, authenticated, service_role;

create policy auction_members_read_auction_topics on realtime.messages for select to authenticated
  using (realtime.auction_of_topic(topic) is not null and realtime.in_tenant(realtime.auction_of_topic(topic)));

create policy auction_members_write_auction_topics on realtime.messages for insert to authenticated
  with check (realtime.auction_of_topic(topic) is not null and realtime.in_tenant(realtime.auction_of_topic(topic)));
