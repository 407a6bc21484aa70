-- Unread counts from rollups, so that get_unread_counts costs the number of days since a member's read point, not
-- the number of messages: per channel and UTC day the non-deleted messages (everyone's), and per channel, author
-- and day the author's own (a member's unread excludes their own messages). A member's unread in a channel is
--   whole days after the read point's day, from the rollups (all messages minus the member's own)
--   + the rest of the read point's own day, from the rows (the (channel_id, created_at) index)
-- which is exactly 0006's count (messages by others, not deleted, created after the read point). The read point
-- is still the member's last read time, or their joining time for a channel never opened.
--
-- Kept as 0012's rollups are (see there): statement triggers add signed deltas in the writing transaction, one
-- upsert per rollup in key order; deltas of a channel being deleted are dropped and its rows removed with it.
create table analytics.channel_message_days (
  channel_id uuid not null,
  day date not null,
  auction_id uuid not null,
  messages integer not null default 0,
  primary key (channel_id, day)
);
create table analytics.channel_author_days (
  channel_id uuid not null,
  user_id uuid not null,
  day date not null,
  auction_id uuid not null,
  messages integer not null default 0,
  primary key (channel_id, user_id, day)
);

-- Readable as the messages they count are: by the auction's members.
do $$
declare t text;
begin
  foreach t in array array['channel_message_days', 'channel_author_days'] loop
    execute format('alter table analytics.%I enable row level security', t);
    execute format('grant select on analytics.%I to authenticated', t);
    execute format('grant all on analytics.%I to service_role', t);
    execute format('create policy %I on analytics.%I for select to authenticated
      using (auction_id in (select public.member_auction_ids()))', t || '_select', t);
    perform domain.refuse_anonymous(format('analytics.%I', t)::regclass);
  end loop;
end $$;

create function analytics.utc_day(p_at timestamptz) returns date
language sql immutable set search_path = '' as $$ select (p_at at time zone 'UTC')::date $$;

-- Signed deltas of messages (counted while not deleted) into both rollups.
create function analytics.add_message_days(p_channel uuid[], p_user uuid[], p_at timestamptz[], p_auction uuid[],
  p_sign integer[]) returns void
language sql volatile set search_path = '' as $$
  insert into analytics.channel_message_days as h (channel_id, day, auction_id, messages)
  select c, analytics.utc_day(at), a, sum(n)::integer from unnest(p_channel, p_at, p_auction, p_sign) as d(c, at, a, n)
  where exists (select from public.channels x where x.id = c)
  group by 1, 2, 3 having sum(n) <> 0
  order by 1, 2
  on conflict (channel_id, day) do update set messages = h.messages + excluded.messages;
  insert into analytics.channel_author_days as h (channel_id, user_id, day, auction_id, messages)
  select c, u, analytics.utc_day(at), a, sum(n)::integer
  from unnest(p_channel, p_user, p_at, p_auction, p_sign) as d(c, u, at, a, n)
  where u is not null and exists (select from public.channels x where x.id = c)
  group by 1, 2, 3, 4 having sum(n) <> 0
  order by 1, 2, 3
  on conflict (channel_id, user_id, day) do update set messages = h.messages + excluded.messages;
$$;

-- A transition table exists only for the events of its trigger: one function per event.
create function analytics.messages_inserted() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  perform analytics.add_message_days(array_agg(channel_id), array_agg(user_id), array_agg(created_at),
    array_agg(auction_id), array_agg(1))
  from new_rows where not is_deleted;
  return null;
end $$;
create function analytics.messages_updated() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  perform analytics.add_message_days(array_agg(channel_id), array_agg(user_id), array_agg(created_at),
    array_agg(auction_id), array_agg(sg))
  from (
    select channel_id, user_id, created_at, auction_id, 1 as sg from new_rows where not is_deleted
    union all
    select channel_id, user_id, created_at, auction_id, -1 from old_rows where not is_deleted) d;
  return null;
end $$;
create function analytics.messages_deleted() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  perform analytics.add_message_days(array_agg(channel_id), array_agg(user_id), array_agg(created_at),
    array_agg(auction_id), array_agg(-1))
  from old_rows where not is_deleted;
  return null;
end $$;

create function analytics.channel_deleted() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  delete from analytics.channel_message_days where channel_id = old.id;
  delete from analytics.channel_author_days where channel_id = old.id;
  return null;
end $$;

create trigger rollup_messages_insert after insert on public.messages
  referencing new table as new_rows for each statement execute function analytics.messages_inserted();
create trigger rollup_messages_update after update on public.messages
  referencing old table as old_rows new table as new_rows for each statement execute function analytics.messages_updated();
create trigger rollup_messages_delete after delete on public.messages
  referencing old table as old_rows for each statement execute function analytics.messages_deleted();
create trigger rollup_channel_delete after delete on public.channels
  for each row execute function analytics.channel_deleted();

create function analytics.expected_channel_message_days(p_auction_id uuid)
returns table (channel_id uuid, day date, auction_id uuid, messages integer)
language sql stable set search_path = '' as $$
  select m.channel_id, analytics.utc_day(m.created_at), m.auction_id, count(*)::integer
  from public.messages m where not m.is_deleted and (p_auction_id is null or m.auction_id = p_auction_id)
  group by 1, 2, 3
$$;
create function analytics.expected_channel_author_days(p_auction_id uuid)
returns table (channel_id uuid, user_id uuid, day date, auction_id uuid, messages integer)
language sql stable set search_path = '' as $$
  select m.channel_id, m.user_id, analytics.utc_day(m.created_at), m.auction_id, count(*)::integer
  from public.messages m
  where not m.is_deleted and m.user_id is not null and (p_auction_id is null or m.auction_id = p_auction_id)
  group by 1, 2, 3, 4
$$;

-- differences() and rebuild() cover these rollups too: 0012's versions keep their job for the measures' rollups
-- under new names, and the public names combine them with the chat's.
alter function analytics.differences(uuid) rename to measure_differences;
alter function analytics.rebuild(uuid) rename to rebuild_measures;

create function analytics.chat_differences(p_auction_id uuid)
returns table (rollup text, location_id uuid, bucket jsonb, stored jsonb, expected jsonb)
language sql stable set search_path = '' as $$
  with stored as (
    select 'channel_message_days' as rollup, to_jsonb(h) as r from analytics.channel_message_days h
    where h.messages <> 0 and (p_auction_id is null or h.auction_id = p_auction_id)
    union all
    select 'channel_author_days', to_jsonb(h) from analytics.channel_author_days h
    where h.messages <> 0 and (p_auction_id is null or h.auction_id = p_auction_id)
  ), wanted as (
    select 'channel_message_days' as rollup, to_jsonb(x) as r from analytics.expected_channel_message_days(p_auction_id) x
    union all
    select 'channel_author_days', to_jsonb(x) from analytics.expected_channel_author_days(p_auction_id) x
  )
  select coalesce(s.rollup, e.rollup), null::uuid, coalesce(s.r, e.r) - 'messages' - 'auction_id',
    s.r -> 'messages', e.r -> 'messages'
  from stored s full join wanted e on e.rollup = s.rollup and e.r - 'messages' = s.r - 'messages'
  where s.r is distinct from e.r
  order by 1, 3
$$;

create function analytics.differences(p_auction_id uuid default null)
returns table (rollup text, location_id uuid, bucket jsonb, stored jsonb, expected jsonb)
language sql stable set search_path = '' as $$
  select * from analytics.measure_differences(p_auction_id)
  union all
  select * from analytics.chat_differences(p_auction_id)
$$;

-- Writers of messages wait (SHARE) so nothing changes halfway; reads go on.
create function analytics.rebuild(p_auction_id uuid default null) returns void
language plpgsql volatile set search_path = '' as $$
begin
  perform analytics.rebuild_measures(p_auction_id);
  lock table public.messages in share mode;
  delete from analytics.channel_message_days where p_auction_id is null or auction_id = p_auction_id;
  delete from analytics.channel_author_days where p_auction_id is null or auction_id = p_auction_id;
  insert into analytics.channel_message_days select * from analytics.expected_channel_message_days(p_auction_id);
  insert into analytics.channel_author_days select * from analytics.expected_channel_author_days(p_auction_id);
end $$;

create or replace function public.get_unread_counts(p_auction_id uuid)
returns table (channel_id uuid, unread_count integer)
language sql stable security invoker set search_path = '' as $$
  select c.id, (
    coalesce((select sum(d.messages) from analytics.channel_message_days d
              where d.channel_id = c.id and d.day > analytics.utc_day(r.at)), 0)
    - coalesce((select sum(o.messages) from analytics.channel_author_days o
                where o.channel_id = c.id and o.user_id = me.id and o.day > analytics.utc_day(r.at)), 0)
    + (select count(*) from public.messages m
       where m.channel_id = c.id and not m.is_deleted and m.user_id is distinct from me.id
         and m.created_at > r.at and m.created_at < (analytics.utc_day(r.at) + 1)::timestamp at time zone 'UTC')
  )::integer
  from (select auth.uid() as id) me
  cross join public.channels c
  left join public.channel_read_state rs on rs.channel_id = c.id and rs.user_id = me.id
  left join public.auction_members am on am.auction_id = c.auction_id and am.user_id = me.id
  cross join lateral (select coalesce(rs.last_read_at, am.joined_at, '-infinity'::timestamptz) as at) r
  where c.auction_id = p_auction_id and not c.is_archived
  order by c.name
$$;

revoke execute on all functions in schema analytics from public;
grant execute on function analytics.hour_of(timestamptz), analytics.whole_hours(timestamptz, timestamptz),
  analytics.split_hours(text, timestamptz, timestamptz), analytics.utc_day(timestamptz) to authenticated, service_role;
grant execute on function analytics.differences(uuid), analytics.rebuild(uuid), analytics.measure_differences(uuid),
  analytics.rebuild_measures(uuid), analytics.chat_differences(uuid), analytics.expected_submission_hours(uuid),
  analytics.expected_submission_type_hours(uuid), analytics.expected_defect_hours(uuid),
  analytics.expected_defect_days(uuid), analytics.expected_channel_message_days(uuid),
  analytics.expected_channel_author_days(uuid), analytics.local_day(timestamptz, uuid) to service_role;

select analytics.rebuild(null);
