-- Trigger functions, and the helpers that only other database functions call (none is executable by a client role), live in the private `domain`
-- schema (no request role may use it; the data interface does not expose it), not in `public`: clients could
-- never call them, yet the generated `Database` type listed them as functions. A trigger refers to its function by
-- identity, so moving it changes nothing for the table; functions that call a moved helper by name are recreated
-- with the new name below. A new area puts its trigger functions in `domain` too (packages/domain/README.md), and
-- the domain's schema test fails on a trigger function in `public`.
do $$
declare
  v_name text;
  v_def text;
  v_moved text[] := array[
    -- trigger functions
    'auction_members_events', 'auction_members_keep_owner', 'auctions_add_owner', 'auctions_before_insert',
    'auctions_before_update', 'auctions_mfa_setting_guard', 'channels_check', 'chat_children_fill', 'chat_events',
    'children_follow_location', 'location_assignments_fill', 'location_submission_types_fill',
    'lot_submission_entries_fill', 'lot_submissions_created_event', 'lot_submissions_fill',
    'lot_submissions_updated_event', 'messages_check', 'problem_actions_completed_event', 'problem_children_fill',
    'problem_reports_check', 'problem_reports_events', 'quality_defects_added_event', 'quality_defects_fill',
    'quality_inspections_created_event', 'quality_inspections_fill', 'set_updated_at',
    -- helpers no client role may execute: the outbox writer, the payloads of events, a caller's role, tokens
    'emit_event', 'submission_event_data', 'inspection_event_data', 'problem_event_data', 'caller_role',
    'extensions_random_bytes'];
begin
  for v_name in select unnest(v_moved) loop
    execute format('alter function public.%I set schema domain', v_name);
  end loop;
  -- Callers name their helpers schema-qualified (search_path is empty in every function here).
  for v_def in
    select pg_catalog.pg_get_functiondef(p.oid)
      from pg_catalog.pg_proc p join pg_catalog.pg_namespace n on n.oid = p.pronamespace
     where n.nspname in ('public', 'domain') and p.prokind = 'f'
       and p.prosrc ~ ('public\.(' || array_to_string(v_moved, '|') || ')\(')
  loop
    execute regexp_replace(v_def, 'public\.(' || array_to_string(v_moved, '|') || ')\(', 'domain.\1(', 'g');
  end loop;
end $$;
