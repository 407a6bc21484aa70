-- A delete of an auction says what happened (issue 52, item 7). The data interface's DELETE no longer runs the
-- BEFORE DELETE trigger of 0031 (which skipped every row, so an owner's delete and a refused one both answered
-- `[]`): the server's REST engine calls public.delete_auction for each auction the caller can read (its softDeletes
-- option), answering with the marked auction or the function's refusal (42501 -> 403). Direct SQL deletes by the
-- request roles still go through the trigger; this migration makes them refuse in the same way.

-- Every member reaches the trigger, which calls public.delete_auction: an admin's or team member's DELETE is then
-- refused with 42501 instead of finding no row. (The trigger never lets a request role remove the row, so the
-- policy only decides who is told "no": the members, who can read the auction anyway.) Others still find no row.
alter policy auctions_delete on public.auctions
  using ((select public.is_super_admin()) or id = any (array(select public.current_user_auction_ids())));

-- As in 0031, except for an auction already deleted: deleting it again changes nothing and answers NULL (the engine
-- leaves the row out of its answer, as the trigger's skip did). The service role still reads deleted auctions, so
-- the engine passes them on; and two deletes racing each other both read the auction live, the second waiting on
-- the row lock here: it must find nothing to do, not fail (P0002 would be a 500). Unknown ids are still P0002.
create or replace function public.delete_auction(p_auction_id uuid) returns public.auctions
language plpgsql volatile security definer set search_path = '' as $$
declare
  v public.auctions;
begin
  select * into v from public.auctions where id = p_auction_id for update;
  if not found then
    raise exception 'no such auction' using errcode = 'P0002';
  end if;
  if v.deleted_at is not null then
    return null;
  end if;
  if not (auth.role() = 'service_role' or public.is_super_admin()
          or public.get_user_auction_role(p_auction_id) is not distinct from 'owner') then
    raise exception 'only an owner of the auction may delete it' using errcode = '42501';
  end if;
  update public.auctions
     set deleted_at = now(), deleted_by = auth.uid(),
         purge_after = now() + (select grace from domain.deletion_settings)
   where id = p_auction_id
  returning * into v;
  perform domain.emit_event(v.id, 'auction.deleted', jsonb_build_object(
    'id', v.id, 'name', v.name, 'slug', v.slug, 'deleted_by', public.user_ref(v.deleted_by),
    'deleted_at', v.deleted_at, 'purge_after', v.purge_after));
  return v;
end $$;
