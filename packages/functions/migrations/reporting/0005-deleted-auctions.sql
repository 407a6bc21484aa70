-- A deleted auction (domain/0031) serves nothing (issue 52): generate-sql's conversations are their user's own
-- rows, a branch that does not go through the membership helpers, so they stayed readable to their user. Their
-- messages follow (their policy reads query_conversations under its policies).
create policy query_conversations_not_deleted on public.query_conversations as restrictive for all to authenticated
  using (not (auction_id = any (array(select public.deleted_auction_ids()))))
  with check (not (auction_id = any (array(select public.deleted_auction_ids()))));
