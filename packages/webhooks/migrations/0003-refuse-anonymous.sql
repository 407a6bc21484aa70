-- The domain's rule (domain 0014): a table anon may not read refuses anonymous sign-ins too, by a restrictive
-- policy. These tables came before the check of that rule (domain 0027) and lacked it; anonymous users hold no
-- admin role, so this changes no answer but the defence in depth.
select domain.refuse_anonymous('public.webhook_endpoints');
select domain.refuse_anonymous('public.webhook_deliveries');
select domain.refuse_anonymous('public.webhook_delivery_attempts');
