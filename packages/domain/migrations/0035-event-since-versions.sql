-- `since_version` of the event catalogue names a release of auction-ops, always as `x.y.z`: the release whose
-- CHANGELOG.md entry names the migration that declares the type (or, while that migration is unreleased, the minor
-- release after the newest one; apps/server/test/event-catalogue-doc.test.ts checks both). The types 0011 declared
-- said `1.0`, the default, which read as a release 1.0 that does not exist: they came with 0.1.0. Without a default
-- an area's migration must say it.
update public.event_types set since_version = '0.1.0' where since_version = '1.0';
alter table public.event_types alter column since_version drop default;
alter table public.event_types add constraint event_types_since_version_check
  check (since_version ~ '^\d+\.\d+\.\d+$');
