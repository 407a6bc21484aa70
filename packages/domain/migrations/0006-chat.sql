-- Chat: channels, messages (threads, edits, soft delete, mentions), reactions, read state, notification
-- preferences, the messages_with_reply_count view, the unread RPCs and the chat events.

create table public.channels (
  id uuid primary key default gen_random_uuid(),
  auction_id uuid not null references public.auctions (id) on delete cascade,
  name text not null check (length(trim(name)) > 0),
  description text,
  location_id uuid references public.locations (id) on delete set null,
  is_default boolean not null default false,
  is_archived boolean not null default false,
  archived_at timestamptz,
  created_by uuid references public.users (id) on delete set null default auth.uid(),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create unique index channels_name_key on public.channels (auction_id, lower(name)) where not is_archived;
create index channels_auction_idx on public.channels (auction_id, is_archived, name);

create table public.messages (
  id uuid primary key default gen_random_uuid(),
  auction_id uuid not null references public.auctions (id) on delete cascade,
  channel_id uuid not null references public.channels (id) on delete cascade,
  user_id uuid references public.users (id) on delete set null default auth.uid(),
  content text not null check (length(content) <= 10000),
  message_type text not null default 'text' check (message_type in ('text', 'image', 'system')),
  parent_message_id uuid references public.messages (id) on delete cascade,
  mentions uuid[] not null default '{}',
  is_edited boolean not null default false,
  edited_at timestamptz,
  is_deleted boolean not null default false,
  deleted_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index messages_channel_top_idx on public.messages (channel_id, created_at desc) where parent_message_id is null;
create index messages_parent_idx on public.messages (parent_message_id, created_at) where parent_message_id is not null;
create index messages_auction_idx on public.messages (auction_id, created_at);
create index messages_channel_created_idx on public.messages (channel_id, created_at);

create table public.message_reactions (
  id uuid primary key default gen_random_uuid(),
  auction_id uuid not null references public.auctions (id) on delete cascade,
  message_id uuid not null references public.messages (id) on delete cascade,
  user_id uuid not null references public.users (id) on delete cascade default auth.uid(),
  emoji text not null check (length(emoji) between 1 and 64),
  created_at timestamptz not null default now(),
  unique (message_id, user_id, emoji)
);
create index message_reactions_auction_idx on public.message_reactions (auction_id);

create table public.channel_read_state (
  user_id uuid not null references public.users (id) on delete cascade default auth.uid(),
  channel_id uuid not null references public.channels (id) on delete cascade,
  auction_id uuid not null references public.auctions (id) on delete cascade,
  last_read_at timestamptz not null default now(),
  primary key (user_id, channel_id)
);

create table public.channel_notification_preferences (
  user_id uuid not null references public.users (id) on delete cascade default auth.uid(),
  channel_id uuid not null references public.channels (id) on delete cascade,
  auction_id uuid not null references public.auctions (id) on delete cascade,
  preference text not null default 'all' check (preference in ('all', 'mentions', 'none')),
  updated_at timestamptz not null default now(),
  primary key (user_id, channel_id)
);

create trigger channels_updated_at before update on public.channels
  for each row execute function public.set_updated_at();

create function public.channels_check() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  if tg_op = 'UPDATE' then
    new.auction_id := old.auction_id;
    new.created_by := old.created_by;
    if new.is_archived and not old.is_archived then new.archived_at := now(); end if;
    if not new.is_archived then new.archived_at := null; end if;
  elsif new.is_archived then
    new.archived_at := now();
  end if;
  if new.location_id is not null
     and not exists (select 1 from public.locations where id = new.location_id and auction_id = new.auction_id) then
    raise exception 'location belongs to another auction' using errcode = '23503';
  end if;
  return new;
end $$;
create trigger channels_check before insert or update on public.channels
  for each row execute function public.channels_check();

-- Messages: tenant key from the channel, one level of threads, mentions detected from @Full Name or
-- @emailname of the auction's members, edit and soft-delete bookkeeping.
create function public.messages_check() returns trigger
language plpgsql security definer set search_path = '' as $$
declare
  v_parent public.messages;
begin
  if tg_op = 'INSERT' then
    select auction_id into new.auction_id from public.channels where id = new.channel_id;
    if new.parent_message_id is not null then
      select * into v_parent from public.messages where id = new.parent_message_id;
      if v_parent.channel_id is distinct from new.channel_id then
        raise exception 'a reply must be in the same channel as its parent' using errcode = 'P0001';
      end if;
      if v_parent.parent_message_id is not null then
        new.parent_message_id := v_parent.parent_message_id;  -- replies to replies join the same thread
      end if;
    end if;
    new.is_edited := false;
    new.is_deleted := false;
    new.created_at := now();
  else
    new.auction_id := old.auction_id;
    new.channel_id := old.channel_id;
    new.user_id := old.user_id;
    new.parent_message_id := old.parent_message_id;
    new.created_at := old.created_at;
    if old.is_deleted then
      raise exception 'a deleted message cannot be changed' using errcode = 'P0001';
    end if;
    if new.is_deleted then
      -- Soft delete keeps the row (threads and counts stay intact) but not the words.
      new.deleted_at := now();
      new.content := '';
      new.mentions := '{}';
      return new;
    end if;
    if new.content is distinct from old.content then
      new.is_edited := true;
      new.edited_at := now();
    end if;
    new.updated_at := now();
  end if;
  if tg_op = 'INSERT' or new.content is distinct from old.content then
    new.mentions := array(
      select distinct m from unnest(coalesce(new.mentions, '{}')) m
      where exists (select 1 from public.auction_members am where am.auction_id = new.auction_id and am.user_id = m)
      union
      select am.user_id from public.auction_members am join public.users u on u.id = am.user_id
      where am.auction_id = new.auction_id and am.user_id is distinct from new.user_id
        and ((nullif(trim(u.full_name), '') is not null and position(lower('@' || u.full_name) in lower(new.content)) > 0)
          or (u.email is not null and lower(new.content) ~ ('@' || regexp_replace(lower(split_part(u.email, '@', 1)), '([.+*?^$(){}|\[\]\\])', '\\\1', 'g') || '(\M|$)'))));
  end if;
  return new;
end $$;
create trigger messages_check before insert or update on public.messages
  for each row execute function public.messages_check();

create function public.chat_children_fill() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  if tg_table_name = 'message_reactions' then
    select auction_id into new.auction_id from public.messages where id = new.message_id;
  else
    select auction_id into new.auction_id from public.channels where id = new.channel_id;
  end if;
  return new;
end $$;
create trigger message_reactions_fill before insert or update on public.message_reactions
  for each row execute function public.chat_children_fill();
create trigger channel_read_state_fill before insert or update on public.channel_read_state
  for each row execute function public.chat_children_fill();
create trigger channel_notification_preferences_fill before insert or update on public.channel_notification_preferences
  for each row execute function public.chat_children_fill();

create view public.messages_with_reply_count with (security_invoker = true) as
select
  m.id, m.auction_id, m.channel_id, m.user_id, m.content, m.message_type, m.parent_message_id, m.mentions, m.is_edited, m.edited_at, m.is_deleted, m.deleted_at,
  m.created_at, m.updated_at,
  coalesce(r.reply_count, 0)::integer as reply_count,
  r.last_reply_at
from public.messages m
left join lateral (
  select count(*) as reply_count, max(x.created_at) as last_reply_at
  from public.messages x where x.parent_message_id = m.id and not x.is_deleted
) r on true;

-- Row-level security ---------------------------------------------------------------------------------------
alter table public.channels enable row level security;
alter table public.messages enable row level security;
alter table public.message_reactions enable row level security;
alter table public.channel_read_state enable row level security;
alter table public.channel_notification_preferences enable row level security;

grant select, insert, update, delete on public.channels, public.messages, public.message_reactions,
  public.channel_read_state, public.channel_notification_preferences to authenticated;
grant all on public.channels, public.messages, public.message_reactions, public.channel_read_state,
  public.channel_notification_preferences to service_role;
grant select on public.messages_with_reply_count to authenticated, service_role;

-- True when the auction lets team members create channels (settings.members_can_create_channels). Invoker, so
-- it reveals nothing about auctions the caller cannot read.
create function public.members_can_create_channels(p_auction_id uuid) returns boolean
language sql stable set search_path = '' as $$
  select coalesce((settings ->> 'members_can_create_channels')::boolean, false) from public.auctions where id = p_auction_id
$$;
revoke execute on function public.members_can_create_channels(uuid) from public;
grant execute on function public.members_can_create_channels(uuid) to authenticated, service_role;

-- Every member reads the non-archived channels; admins also see archived ones.
create policy channels_select on public.channels for select to authenticated using (
  auction_id in (select public.admin_auction_ids())
  or (not is_archived and auction_id in (select public.current_user_auction_ids())));
create policy channels_insert on public.channels for insert to authenticated with check (
  auction_id in (select public.admin_auction_ids())
  or (auction_id in (select public.current_user_auction_ids()) and created_by = (select auth.uid())
      and public.members_can_create_channels(auction_id)));
create policy channels_update on public.channels for update to authenticated
  using (auction_id in (select public.admin_auction_ids()))
  with check (auction_id in (select public.admin_auction_ids()));
create policy channels_delete on public.channels for delete to authenticated
  using (auction_id in (select public.admin_auction_ids()));

-- Messages: members read all and post as themselves into non-archived channels; authors edit and soft-delete
-- their own; admins moderate everything in the auction.
-- Invoker: members read every non-archived channel of their auctions, so the answer is the same for them, and
-- nothing is revealed about other auctions' channels.
create function public.channel_is_open(p_channel_id uuid) returns boolean
language sql stable set search_path = '' as $$
  select exists (select 1 from public.channels where id = p_channel_id and not is_archived)
$$;
revoke execute on function public.channel_is_open(uuid) from public;
grant execute on function public.channel_is_open(uuid) to authenticated, service_role;

create policy messages_select on public.messages for select to authenticated
  using (auction_id in (select public.member_auction_ids()));
create policy messages_insert on public.messages for insert to authenticated with check (
  (select public.is_super_admin())
  or (auction_id in (select public.current_user_auction_ids()) and user_id = (select auth.uid())
      and public.channel_is_open(channel_id)));
create policy messages_update on public.messages for update to authenticated
  using (auction_id in (select public.admin_auction_ids())
    or (auction_id in (select public.current_user_auction_ids()) and user_id = (select auth.uid())))
  with check (auction_id in (select public.member_auction_ids()));
create policy messages_delete on public.messages for delete to authenticated
  using (auction_id in (select public.admin_auction_ids()));

create policy message_reactions_select on public.message_reactions for select to authenticated
  using (auction_id in (select public.member_auction_ids()));
create policy message_reactions_insert on public.message_reactions for insert to authenticated with check (
  user_id = (select auth.uid())
  and (auction_id in (select public.member_auction_ids())));
create policy message_reactions_delete on public.message_reactions for delete to authenticated
  using (auction_id in (select public.admin_auction_ids())
    or user_id = (select auth.uid()));

create policy channel_read_state_own on public.channel_read_state for all to authenticated
  using (user_id = (select auth.uid()))
  with check (user_id = (select auth.uid())
    and (auction_id in (select public.member_auction_ids())));
create policy channel_notification_preferences_own on public.channel_notification_preferences for all to authenticated
  using (user_id = (select auth.uid()))
  with check (user_id = (select auth.uid()) and auction_id in (select public.current_user_auction_ids()));

-- RPCs -----------------------------------------------------------------------------------------------------
create function public.mark_channel_as_read(p_channel_id uuid) returns jsonb
language plpgsql volatile security invoker set search_path = '' as $$
declare
  v_at timestamptz;
begin
  if not exists (select 1 from public.channels where id = p_channel_id) then
    raise exception 'channel not found or not accessible' using errcode = '42501';
  end if;
  insert into public.channel_read_state (user_id, channel_id, auction_id, last_read_at)
  select auth.uid(), c.id, c.auction_id, now() from public.channels c where c.id = p_channel_id
  on conflict (user_id, channel_id) do update set last_read_at = excluded.last_read_at
  returning last_read_at into v_at;
  return jsonb_build_object('channel_id', p_channel_id, 'last_read_at', v_at);
end $$;

-- Unread: messages (top-level and thread replies) by others, not deleted, newer than the caller's last read time
-- in each non-archived channel. A channel never opened counts from the moment the caller joined the auction.
create function public.get_unread_counts(p_auction_id uuid)
returns table (channel_id uuid, unread_count integer)
language sql stable security invoker set search_path = '' as $$
  select c.id, (
    select count(*) from public.messages m
    where m.channel_id = c.id and not m.is_deleted and m.user_id is distinct from auth.uid()
      and m.created_at > coalesce(rs.last_read_at, am.joined_at, '-infinity'::timestamptz))::integer
  from public.channels c
  left join public.channel_read_state rs on rs.channel_id = c.id and rs.user_id = auth.uid()
  left join public.auction_members am on am.auction_id = c.auction_id and am.user_id = auth.uid()
  where c.auction_id = p_auction_id and not c.is_archived
  order by c.name
$$;

create function public.get_total_unread_count(p_auction_id uuid) returns integer
language sql stable security invoker set search_path = '' as $$
  select coalesce(sum(unread_count), 0)::integer from public.get_unread_counts(p_auction_id)
$$;

revoke execute on function public.mark_channel_as_read(uuid), public.get_unread_counts(uuid),
  public.get_total_unread_count(uuid) from public;
grant execute on function public.mark_channel_as_read(uuid), public.get_unread_counts(uuid),
  public.get_total_unread_count(uuid) to authenticated, service_role;

-- Events ---------------------------------------------------------------------------------------------------
create function public.chat_events() returns trigger
language plpgsql security definer set search_path = '' as $$
declare
  v_channel text;
begin
  if tg_table_name = 'channels' then
    if tg_op = 'INSERT' then
      perform public.emit_event(new.auction_id, 'channel.created', jsonb_build_object(
        'id', new.id, 'name', new.name, 'description', new.description, 'location_id', new.location_id,
        'is_default', new.is_default, 'created_by', public.user_ref(new.created_by), 'created_at', new.created_at));
    elsif new.is_archived and not old.is_archived then
      perform public.emit_event(new.auction_id, 'channel.archived', jsonb_build_object(
        'id', new.id, 'name', new.name, 'location_id', new.location_id,
        'archived_by', public.user_ref(auth.uid()), 'archived_at', new.archived_at));
    end if;
    return null;
  end if;
  select name into v_channel from public.channels where id = new.channel_id;
  if tg_op = 'INSERT' then
    perform public.emit_event(new.auction_id, 'message.created', jsonb_build_object(
      'id', new.id, 'channel_id', new.channel_id, 'channel_name', v_channel, 'user_id', new.user_id,
      'sender_name', public.user_display_name(new.user_id), 'content', new.content, 'message_type', new.message_type,
      'is_thread_reply', new.parent_message_id is not null, 'parent_message_id', new.parent_message_id,
      'mentions', to_jsonb(new.mentions), 'created_at', new.created_at));
  elsif new.is_deleted and not old.is_deleted then
    perform public.emit_event(new.auction_id, 'message.deleted', jsonb_build_object(
      'id', new.id, 'channel_id', new.channel_id, 'channel_name', v_channel, 'user_id', new.user_id,
      'parent_message_id', new.parent_message_id, 'deleted_by', public.user_ref(auth.uid()),
      'deleted_at', new.deleted_at));
  elsif new.content is distinct from old.content then
    perform public.emit_event(new.auction_id, 'message.edited', jsonb_build_object(
      'id', new.id, 'channel_id', new.channel_id, 'channel_name', v_channel, 'user_id', new.user_id,
      'sender_name', public.user_display_name(new.user_id), 'previous_content', old.content, 'content', new.content,
      'parent_message_id', new.parent_message_id, 'mentions', to_jsonb(new.mentions), 'edited_at', new.edited_at));
  end if;
  return null;
end $$;
create trigger channels_events after insert or update of is_archived on public.channels
  for each row execute function public.chat_events();
create trigger messages_events after insert or update on public.messages
  for each row execute function public.chat_events();
