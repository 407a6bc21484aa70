-- The domain's rule (domain 0014): a table anon may not read refuses anonymous sign-ins too, by a restrictive
-- policy. The conversations of query-data came before the check of that rule (domain 0027) and lacked it: an
-- anonymous sign-in could keep conversations of its own.
select domain.refuse_anonymous('public.query_conversations');
select domain.refuse_anonymous('public.query_conversation_messages');
