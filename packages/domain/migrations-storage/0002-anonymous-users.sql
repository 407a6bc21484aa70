-- Anonymous users (domain/0014) get no more than a public reader in storage either: they read what anon reads
-- (public buckets) and write nothing, not even under their own `<user_id>/` folder, which objects_insert (storage
-- 0001) would otherwise allow any authenticated caller.
create policy objects_insert_not_anonymous on storage.objects as restrictive for insert to authenticated
  with check (not (select public.is_anonymous_caller()));
create policy objects_update_not_anonymous on storage.objects as restrictive for update to authenticated
  using (not (select public.is_anonymous_caller()));
create policy objects_delete_not_anonymous on storage.objects as restrictive for delete to authenticated
  using (not (select public.is_anonymous_caller()));
