-- The one event a restore of an auction emits (auction-ops auction restore): the rows it puts back raise no
-- per-row events (the restoring transaction runs with triggers off), so receivers hear of it once, here. `tables`
-- maps each table the restore changed to {removed, reverted, back, ids[]} (docs/auction-data.md).
insert into public.event_types (name, area, emitted_when, fields, sample, since_version) values
  ('auction.restored', 'auction data',
   'an auction''s rows are replaced by those of an earlier point in time (auction-ops auction restore)',
   '{"id": "uuid", "slug": "text", "restored_to": "timestamp", "backup_id": "text", "restored_at": "timestamp",
     "tables": "object"}',
   $${"id": "00000000-0000-4000-8000-000000000020", "slug": "riverside",
    "tables": {"public.locations": {"ids": ["00000000-0000-4000-8000-000000000004"], "back": 1, "removed": 0,
      "reverted": 0}},
    "backup_id": "20260301T120000Z", "restored_at": "2026-03-01T14:05:09.123+00:00",
    "restored_to": "2026-03-01T12:30:00.000+00:00"}$$,
   '0.3.0');
