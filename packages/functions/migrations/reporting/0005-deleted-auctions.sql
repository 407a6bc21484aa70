-- A deleted auction (domain/0031) serves nothing (issue 52): generate-sql's conversations are their user's own
-- rows, a branch that does not go through the membership helpers, so they stayed readable to their user. Their
-- messages follow (their policy reads query_conversations under its policies).
select domain.hide_deleted_auction_rows('public.query_conversations');
