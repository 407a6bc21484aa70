-- Mention detection (0006's messages_check) compared every member of the auction with the text, one regular
-- expression each, on every insert and edit: about 9 ms of CPU for a message at a large auction, most of a chat
-- insert's cost. A mention is written `@Full Name` or `@emailname`, so a text without an `@` mentions nobody; only
-- the detection's part of the function changes.
create or replace function public.messages_check() returns trigger
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
      where strpos(new.content, '@') > 0
        and am.auction_id = new.auction_id and am.user_id is distinct from new.user_id
        and ((nullif(trim(u.full_name), '') is not null and position(lower('@' || u.full_name) in lower(new.content)) > 0)
          or (u.email is not null and lower(new.content) ~ ('@' || regexp_replace(lower(split_part(u.email, '@', 1)), '([.+*?^$(){}|\[\]\\])', '\\\1', 'g') || '(\M|$)'))));
  end if;
  return new;
end $$;
