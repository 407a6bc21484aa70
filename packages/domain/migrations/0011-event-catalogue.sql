-- The event catalogue: one row per event type, declared by the migration of the area that emits it (a new area
-- inserts its own rows in its own migration). Everything else reads it: webhook subscriptions and test_webhook
-- (the webhooks package), the outbox (a foreign key: an event not in the catalogue fails the change that emits it),
-- the events test and docs/event-catalogue.md (generated from it by the domain's catalogue test).
create table public.event_types (
  name text primary key check (name ~ '^[a-z_]+\.[a-z_]+$'),
  -- The part of the domain that emits it (the docs group by it).
  area text not null,
  -- When it is emitted.
  emitted_when text not null,
  -- The fields of `data`, as the docs list them; `sample` is an example with exactly these top-level keys.
  data_fields text not null,
  sample jsonb not null check (jsonb_typeof(sample) = 'object'),
  -- The release that introduced it.
  since_version text not null default '1.0'
);
alter table public.event_types enable row level security;
-- Public knowledge (the webhook set-up screens list it); only migrations write it.
grant select on public.event_types to anon, authenticated, service_role;
create policy event_types_read on public.event_types for select using (true);

-- Not validated against old rows (every one is in the catalogue; a large outbox is not rescanned on upgrade).
alter table public.event_outbox add constraint event_outbox_event_type_fkey
  foreign key (event_type) references public.event_types (name) not valid;


-- lots
insert into public.event_types (name, area, emitted_when, data_fields, sample) values
  ('submission.created', 'lots',
   'at commit of the transaction that inserted the submission (so entries written with it are included)',
   'id, location_id, location_name, user_id, submitted_by, submitted_at, entries[{type_id, type_name, car_count, '
   'image_url}], total_car_count, image_url',
   $${"id": "00000000-0000-4000-8000-000000000001",
    "entries": [{"type_id": "00000000-0000-4000-8000-000000000002", "car_count": 7, "image_url": "https://i/x.jpg",
      "type_name": "Sold"}],
    "user_id": "00000000-0000-4000-8000-000000000003", "image_url": "https://i/main.jpg",
    "location_id": "00000000-0000-4000-8000-000000000004", "submitted_at": "2026-03-01T14:05:09.123+00:00",
    "submitted_by": "Sample Member", "location_name": "North lot", "total_car_count": 7}$$),
  ('submission.updated', 'lots',
   'a submission row changes, or an entry is added/changed/removed in a later transaction',
   'the submission.created fields + updated_by {id,name}, updated_at',
   $${"id": "00000000-0000-4000-8000-000000000005",
    "entries": [{"type_id": "00000000-0000-4000-8000-000000000002", "car_count": 5, "image_url": null,
      "type_name": "Sold"}],
    "user_id": "00000000-0000-4000-8000-000000000003", "image_url": null,
    "updated_at": "2026-03-01T14:05:09.123+00:00",
    "updated_by": {"id": "00000000-0000-4000-8000-000000000003", "name": "Sample Member"},
    "location_id": "00000000-0000-4000-8000-000000000004", "submitted_at": "2026-03-01T14:05:09.123+00:00",
    "submitted_by": "Sample Member", "location_name": "North lot", "total_car_count": 5}$$);

-- inspections
insert into public.event_types (name, area, emitted_when, data_fields, sample) values
  ('inspection.created', 'inspections',
   'at commit of the inserting transaction',
   'id, location_id, location_name, user_id, inspector_name, vin_number, barcode, submitted_at, defect_count, '
   'defects[{category, notes}] (defects posted in a later request arrive as inspection.defect_added)',
   $${"id": "00000000-0000-4000-8000-000000000006", "barcode": "BC-9",
    "defects": [{"category": "Scratch", "notes": "Rear bumper"}],
    "user_id": "00000000-0000-4000-8000-000000000003", "vin_number": "2HGFG12678H500001",
    "location_id": "00000000-0000-4000-8000-000000000004", "defect_count": 1,
    "submitted_at": "2026-03-01T14:05:09.123+00:00", "location_name": "North lot",
    "inspector_name": "Sample Member"}$$),
  ('inspection.defect_added', 'inspections',
   'each defect row inserted',
   'id, inspection_id, category_id, category, notes, vin_number, barcode, location_id, location_name, added_by '
   '{id,name}, created_at',
   $${"id": "00000000-0000-4000-8000-000000000007", "notes": "hood", "barcode": "BC-9",
    "added_by": {"id": "00000000-0000-4000-8000-000000000003", "name": "Sample Member"}, "category": "Dent",
    "created_at": "2026-03-01T14:05:09.123+00:00", "vin_number": "2HGFG12678H500001",
    "category_id": "00000000-0000-4000-8000-000000000008",
    "location_id": "00000000-0000-4000-8000-000000000004",
    "inspection_id": "00000000-0000-4000-8000-000000000006", "location_name": "North lot"}$$);

-- problem reports
insert into public.event_types (name, area, emitted_when, data_fields, sample) values
  ('problem.created', 'problem reports',
   'report inserted',
   'id, issue_name, area, location_id, location_name, status, prepared_by {id,name}, assigned_to {id,name}, '
   'action_count, completed_action_count, submitted_at, updated_at',
   $${"id": "00000000-0000-4000-8000-000000000009", "area": "Entrance", "status": "open",
    "issue_name": "Broken gate", "updated_at": "2026-03-01T14:05:09.123+00:00",
    "assigned_to": {"id": "00000000-0000-4000-8000-000000000010", "name": "Sample Admin"},
    "location_id": "00000000-0000-4000-8000-000000000004",
    "prepared_by": {"id": "00000000-0000-4000-8000-000000000003", "name": "Sample Member"}, "action_count": 0,
    "submitted_at": "2026-03-01T14:05:09.123+00:00", "location_name": "North lot", "completed_action_count": 0}$$),
  ('problem.status_changed', 'problem reports',
   'status changes',
   'id, issue_name, area, location_id, location_name, previous_status, new_status, prepared_by {id,name}, '
   'assigned_to {id,name}, action_count, completed_action_count, updated_at',
   $${"id": "00000000-0000-4000-8000-000000000011", "area": "Yard", "issue_name": "Flat tires",
    "new_status": "in_progress", "updated_at": "2026-03-01T14:05:09.123+00:00", "assigned_to": null,
    "location_id": "00000000-0000-4000-8000-000000000004",
    "prepared_by": {"id": "00000000-0000-4000-8000-000000000003", "name": "Sample Member"}, "action_count": 1,
    "location_name": "North lot", "previous_status": "open", "completed_action_count": 0}$$),
  ('problem.assigned', 'problem reports',
   'inserted with an assignee, or assigned_to changes to a person',
   'id, issue_name, area, location_id, location_name, status, prepared_by, assigned_to, previous_assigned_to, '
   'assigned_by ({id,name} each), submitted_at, updated_at',
   $${"id": "00000000-0000-4000-8000-000000000009", "area": "Entrance", "status": "open",
    "issue_name": "Broken gate", "updated_at": "2026-03-01T14:05:09.123+00:00",
    "assigned_by": {"id": "00000000-0000-4000-8000-000000000003", "name": "Sample Member"},
    "assigned_to": {"id": "00000000-0000-4000-8000-000000000010", "name": "Sample Admin"},
    "location_id": "00000000-0000-4000-8000-000000000004",
    "prepared_by": {"id": "00000000-0000-4000-8000-000000000003", "name": "Sample Member"},
    "submitted_at": "2026-03-01T14:05:09.123+00:00", "location_name": "North lot", "previous_assigned_to": null}$$),
  ('problem.action_completed', 'problem reports',
   'an action is inserted as or moves to `complete`',
   'id (action), problem_id, issue_name, location_id, location_name, issue, countermeasure, responsible_person, '
   'completion_date, completed_at, completed_by {id,name}, action_count, completed_action_count',
   $${"id": "00000000-0000-4000-8000-000000000012", "issue": "sweep", "issue_name": "Flat tires",
    "problem_id": "00000000-0000-4000-8000-000000000011", "location_id": "00000000-0000-4000-8000-000000000004",
    "action_count": 1, "completed_at": "2026-03-01T14:05:09.123+00:00",
    "completed_by": {"id": "00000000-0000-4000-8000-000000000003", "name": "Sample Member"},
    "location_name": "North lot", "countermeasure": null, "completion_date": null, "responsible_person": null,
    "completed_action_count": 1}$$);

-- chat
insert into public.event_types (name, area, emitted_when, data_fields, sample) values
  ('message.created', 'chat',
   'message inserted',
   'id, channel_id, channel_name, user_id, sender_name, content, message_type, is_thread_reply, parent_message_id,'
   ' mentions[uuid], created_at',
   $${"id": "00000000-0000-4000-8000-000000000013", "content": "ping @Sample Admin and @owner",
    "user_id": "00000000-0000-4000-8000-000000000003",
    "mentions": ["00000000-0000-4000-8000-000000000010", "00000000-0000-4000-8000-000000000014"],
    "channel_id": "00000000-0000-4000-8000-000000000015", "created_at": "2026-03-01T14:05:09.123+00:00",
    "sender_name": "Sample Member", "channel_name": "yard", "message_type": "text", "is_thread_reply": false,
    "parent_message_id": null}$$),
  ('message.edited', 'chat',
   'content changes',
   'id, channel_id, channel_name, user_id, sender_name, previous_content, content, parent_message_id, mentions, '
   'edited_at',
   $${"id": "00000000-0000-4000-8000-000000000013", "content": "ping all",
    "user_id": "00000000-0000-4000-8000-000000000003",
    "mentions": ["00000000-0000-4000-8000-000000000010", "00000000-0000-4000-8000-000000000014"],
    "edited_at": "2026-03-01T14:05:09.123+00:00", "channel_id": "00000000-0000-4000-8000-000000000015",
    "sender_name": "Sample Member", "channel_name": "yard", "previous_content": "ping @Sample Admin and @owner",
    "parent_message_id": null}$$),
  ('message.deleted', 'chat',
   'is_deleted becomes true (content is blanked)',
   'id, channel_id, channel_name, user_id, parent_message_id, deleted_by {id,name}, deleted_at',
   $${"id": "00000000-0000-4000-8000-000000000016", "user_id": "00000000-0000-4000-8000-000000000010",
    "channel_id": "00000000-0000-4000-8000-000000000015", "deleted_at": "2026-03-01T14:05:09.123+00:00",
    "deleted_by": {"id": "00000000-0000-4000-8000-000000000010", "name": "Sample Admin"},
    "channel_name": "yard", "parent_message_id": "00000000-0000-4000-8000-000000000013"}$$),
  ('channel.created', 'chat',
   'channel inserted',
   'id, name, description, location_id, is_default, created_by {id,name}, created_at',
   $${"id": "00000000-0000-4000-8000-000000000015", "name": "yard", "created_at": "2026-03-01T14:05:09.123+00:00",
    "created_by": {"id": "00000000-0000-4000-8000-000000000010", "name": "Sample Admin"}, "is_default": false,
    "description": "Yard crew", "location_id": null}$$),
  ('channel.archived', 'chat',
   'is_archived becomes true',
   'id, name, location_id, archived_by {id,name}, archived_at',
   $${"id": "00000000-0000-4000-8000-000000000015", "name": "yard", "archived_at": "2026-03-01T14:05:09.123+00:00",
    "archived_by": {"id": "00000000-0000-4000-8000-000000000010", "name": "Sample Admin"}, "location_id": null}$$);

-- membership
insert into public.event_types (name, area, emitted_when, data_fields, sample) values
  ('member.invited', 'membership',
   'invite_user_to_auction',
   'invitation_id, email, role, invited_by {id,name}, expires_at, created_at (never the token)',
   $${"role": "team_member", "email": "newbie@example.com", "created_at": "2026-03-01T14:05:09.123+00:00",
    "expires_at": "2026-03-08T14:05:09.123+00:00",
    "invited_by": {"id": "00000000-0000-4000-8000-000000000010", "name": "Sample Admin"},
    "invitation_id": "00000000-0000-4000-8000-000000000017"}$$),
  ('member.joined', 'membership',
   'accept_auction_invite',
   'user_id, email, full_name, role, invited_by {id,name}, joined_at',
   $${"role": "team_member", "email": "newbie@example.com", "user_id": "00000000-0000-4000-8000-000000000018",
    "full_name": "New Bie", "joined_at": "2026-03-01T14:05:09.123+00:00",
    "invited_by": {"id": "00000000-0000-4000-8000-000000000010", "name": "Sample Admin"}}$$),
  ('member.role_changed', 'membership',
   'a member''s role changes (including both rows of an ownership transfer)',
   'member_id, user_id, name, previous_role, new_role, changed_by {id,name}, changed_at',
   $${"name": "New Bie", "user_id": "00000000-0000-4000-8000-000000000018", "new_role": "admin",
    "member_id": "00000000-0000-4000-8000-000000000019", "changed_at": "2026-03-01T14:05:09.123+00:00",
    "changed_by": {"id": "00000000-0000-4000-8000-000000000010", "name": "Sample Admin"},
    "previous_role": "team_member"}$$),
  ('member.removed', 'membership',
   'a member row is deleted (not when the whole auction is deleted)',
   'member_id, user_id, name, role, removed_by {id,name}, removed_at',
   $${"name": "New Bie", "role": "admin", "user_id": "00000000-0000-4000-8000-000000000018",
    "member_id": "00000000-0000-4000-8000-000000000019", "removed_at": "2026-03-01T14:05:09.123+00:00",
    "removed_by": {"id": "00000000-0000-4000-8000-000000000018", "name": "New Bie"}}$$);
