-- One declaration per event: `fields` declares the names and types of an event's `data` once. Everything else
-- follows from it or is checked against it: `data_fields` (the documented list) is rendered from it, the sample
-- must conform to it (a check constraint), and the domain's events test checks every event the triggers emit
-- against it both ways (a field the declaration lacks, or a declared field the payload lacks, fails).
--
-- The notation, as JSON: an object of field name -> type. A type is a name (`uuid`, `text`, `integer`, `boolean`,
-- `timestamp`, `date`, `user` for the {id, name} person reference, or `object` for an object whose keys are data
-- themselves, such as table names), with a trailing `?` when the value may be null; a nested object of the same
-- kind; or a one-element array whose element is such a type.

-- The ways `p_data` departs from `p_fields`, one line each (empty when it conforms); `p_path` prefixes the names.
create function domain.event_data_mismatches(p_data jsonb, p_fields jsonb, p_path text default '')
returns text[] language plpgsql immutable set search_path = '' as $$
declare
  v_out text[] := '{}';
  v_key text;
  v_type jsonb;
  v_value jsonb;
  v_name text;
  v_nullable boolean;
  v_element jsonb;
begin
  if jsonb_typeof(p_data) is distinct from 'object' then
    return array[coalesce(nullif(p_path, ''), 'data') || ': not an object'];
  end if;
  for v_key in select k from jsonb_object_keys(p_data) k where not p_fields ? k order by k loop
    v_out := v_out || (p_path || v_key || ': not declared');
  end loop;
  for v_key, v_type in select key, value from jsonb_each(p_fields) order by key loop
    if not p_data ? v_key then
      v_out := v_out || (p_path || v_key || ': declared but missing');
      continue;
    end if;
    v_value := p_data -> v_key;
    if jsonb_typeof(v_type) = 'object' then
      v_out := v_out || domain.event_data_mismatches(v_value, v_type, p_path || v_key || '.');
    elsif jsonb_typeof(v_type) = 'array' then
      if jsonb_typeof(v_value) <> 'array' then
        v_out := v_out || (p_path || v_key || ': not an array');
      else
        for v_element in select e from jsonb_array_elements(v_value) e loop
          if jsonb_typeof(v_type -> 0) = 'object' then
            v_out := v_out || domain.event_data_mismatches(v_element, v_type -> 0, p_path || v_key || '[].');
          elsif not domain.event_value_is(v_element, v_type ->> 0) then
            v_out := v_out || (p_path || v_key || '[]: not ' || (v_type ->> 0));
          end if;
        end loop;
      end if;
    else
      v_name := rtrim(v_type #>> '{}', '?');
      v_nullable := (v_type #>> '{}') like '%?';
      if jsonb_typeof(v_value) = 'null' then
        if not v_nullable then
          v_out := v_out || (p_path || v_key || ': null, declared ' || v_name);
        end if;
      elsif not domain.event_value_is(v_value, v_name) then
        v_out := v_out || (p_path || v_key || ': not ' || v_name);
      end if;
    end if;
  end loop;
  return v_out;
end $$;

-- Whether a non-null JSON value is of a declared scalar type (or a person reference).
create function domain.event_value_is(p_value jsonb, p_type text) returns boolean
language sql immutable set search_path = '' as $$
  select case p_type
    when 'uuid' then jsonb_typeof(p_value) = 'string'
      and (p_value #>> '{}') ~ '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'
    when 'text' then jsonb_typeof(p_value) = 'string'
    when 'integer' then jsonb_typeof(p_value) = 'number' and (p_value #>> '{}') ~ '^-?[0-9]+$'
    when 'boolean' then jsonb_typeof(p_value) = 'boolean'
    when 'timestamp' then jsonb_typeof(p_value) = 'string'
      and (p_value #>> '{}') ~ '^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?([+-]\d{2}:\d{2}|Z)$'
    when 'date' then jsonb_typeof(p_value) = 'string' and (p_value #>> '{}') ~ '^\d{4}-\d{2}-\d{2}$'
    when 'object' then jsonb_typeof(p_value) = 'object'
    when 'user' then jsonb_typeof(p_value) = 'object'
      and cardinality(domain.event_data_mismatches(p_value, '{"id": "uuid", "name": "text"}')) = 0
    else false
  end
$$;

-- (plpgsql: the two call each other, and a plpgsql body is not checked against functions not created yet.)
create function domain.event_type_text(p_type jsonb) returns text
language plpgsql immutable set search_path = '' as $$
begin
  return case jsonb_typeof(p_type)
    when 'object' then '{' || domain.event_fields_text(p_type) || '}'
    when 'array' then '[' || domain.event_type_text(p_type -> 0) || ']'
    else p_type #>> '{}'
  end;
end $$;

-- The documented list of a declaration: `id uuid, entries [{car_count integer, ...}], assigned_to user?`, `id`
-- first and the rest by name.
create function domain.event_fields_text(p_fields jsonb) returns text
language sql immutable set search_path = '' as $$
  select string_agg(key || ' ' || domain.event_type_text(value), ', ' order by key <> 'id', key)
    from jsonb_each(p_fields)
$$;


alter table public.event_types add column fields jsonb check (jsonb_typeof(fields) = 'object');

update public.event_types set fields = v.fields::jsonb
  from (values
    ('submission.created', $${"id": "uuid", "location_id": "uuid", "location_name": "text", "user_id": "uuid?",
      "submitted_by": "text?", "submitted_at": "timestamp", "total_car_count": "integer", "image_url": "text?",
      "entries": [{"type_id": "uuid", "type_name": "text", "car_count": "integer", "image_url": "text?"}]}$$),
    ('submission.updated', $${"id": "uuid", "location_id": "uuid", "location_name": "text", "user_id": "uuid?",
      "submitted_by": "text?", "submitted_at": "timestamp", "total_car_count": "integer", "image_url": "text?",
      "entries": [{"type_id": "uuid", "type_name": "text", "car_count": "integer", "image_url": "text?"}],
      "updated_by": "user?", "updated_at": "timestamp"}$$),
    ('inspection.created', $${"id": "uuid", "location_id": "uuid", "location_name": "text", "user_id": "uuid?",
      "inspector_name": "text?", "vin_number": "text", "barcode": "text?", "submitted_at": "timestamp",
      "defect_count": "integer", "defects": [{"category": "text", "notes": "text?"}]}$$),
    ('inspection.defect_added', $${"id": "uuid", "inspection_id": "uuid", "category_id": "uuid",
      "category": "text", "notes": "text?", "vin_number": "text", "barcode": "text?", "location_id": "uuid",
      "location_name": "text", "added_by": "user?", "created_at": "timestamp"}$$),
    ('problem.created', $${"id": "uuid", "issue_name": "text", "area": "text?", "location_id": "uuid?",
      "location_name": "text?", "status": "text", "prepared_by": "user?", "assigned_to": "user?",
      "action_count": "integer", "completed_action_count": "integer", "submitted_at": "timestamp",
      "updated_at": "timestamp"}$$),
    ('problem.status_changed', $${"id": "uuid", "issue_name": "text", "area": "text?", "location_id": "uuid?",
      "location_name": "text?", "previous_status": "text", "new_status": "text", "prepared_by": "user?",
      "assigned_to": "user?", "action_count": "integer", "completed_action_count": "integer",
      "updated_at": "timestamp"}$$),
    ('problem.assigned', $${"id": "uuid", "issue_name": "text", "area": "text?", "location_id": "uuid?",
      "location_name": "text?", "status": "text", "prepared_by": "user?", "assigned_to": "user",
      "previous_assigned_to": "user?", "assigned_by": "user?", "submitted_at": "timestamp",
      "updated_at": "timestamp"}$$),
    ('problem.action_completed', $${"id": "uuid", "problem_id": "uuid", "issue_name": "text",
      "location_id": "uuid?", "location_name": "text?", "issue": "text?", "countermeasure": "text?",
      "responsible_person": "text?", "completion_date": "date?", "completed_at": "timestamp?",
      "completed_by": "user?", "action_count": "integer", "completed_action_count": "integer"}$$),
    ('message.created', $${"id": "uuid", "channel_id": "uuid", "channel_name": "text", "user_id": "uuid?",
      "sender_name": "text?", "content": "text", "message_type": "text", "is_thread_reply": "boolean",
      "parent_message_id": "uuid?", "mentions": ["uuid"], "created_at": "timestamp"}$$),
    ('message.edited', $${"id": "uuid", "channel_id": "uuid", "channel_name": "text", "user_id": "uuid?",
      "sender_name": "text?", "previous_content": "text", "content": "text", "parent_message_id": "uuid?",
      "mentions": ["uuid"], "edited_at": "timestamp"}$$),
    ('message.deleted', $${"id": "uuid", "channel_id": "uuid", "channel_name": "text", "user_id": "uuid?",
      "parent_message_id": "uuid?", "deleted_by": "user?", "deleted_at": "timestamp"}$$),
    ('channel.created', $${"id": "uuid", "name": "text", "description": "text?", "location_id": "uuid?",
      "is_default": "boolean", "created_by": "user?", "created_at": "timestamp"}$$),
    ('channel.archived', $${"id": "uuid", "name": "text", "location_id": "uuid?", "archived_by": "user?",
      "archived_at": "timestamp"}$$),
    ('member.invited', $${"invitation_id": "uuid", "email": "text", "role": "text", "invited_by": "user?",
      "expires_at": "timestamp", "created_at": "timestamp"}$$),
    ('member.joined', $${"user_id": "uuid", "email": "text?", "full_name": "text?", "role": "text",
      "invited_by": "user?", "joined_at": "timestamp"}$$),
    ('member.removed', $${"member_id": "uuid", "user_id": "uuid", "name": "text", "role": "text",
      "removed_by": "user?", "removed_at": "timestamp"}$$),
    ('member.role_changed', $${"member_id": "uuid", "user_id": "uuid", "name": "text", "previous_role": "text",
      "new_role": "text", "changed_by": "user?", "changed_at": "timestamp"}$$)
  ) as v (name, fields)
 where event_types.name = v.name;

-- What the old free-text lists said beyond the fields stays with when the event is emitted.
update public.event_types set emitted_when = emitted_when || '; defects posted in a later request arrive as '
  || 'inspection.defect_added' where name = 'inspection.created';
update public.event_types set emitted_when = emitted_when || '; the invitation''s token is never in the event'
  where name = 'member.invited';
update public.event_types set emitted_when = emitted_when || '; `id` is the action''s'
  where name = 'problem.action_completed';

-- Every event, and every later one, declares its fields; the documented list is rendered from them (a generated
-- column of the same name, so readers of the old column keep working); the sample conforms.
alter table public.event_types alter column fields set not null;
alter table public.event_types drop column data_fields;
alter table public.event_types add column data_fields text not null
  generated always as (domain.event_fields_text(fields)) stored;
alter table public.event_types add constraint event_types_sample_conforms
  check (cardinality(domain.event_data_mismatches(sample, fields)) = 0);
