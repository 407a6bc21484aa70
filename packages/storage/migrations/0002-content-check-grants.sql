-- How an upload's declared type is checked (see content-type-policy.ts): 'strict', our original rule (the bytes
-- decide), stays the default of buckets made in SQL, such as the domain's lot-images; buckets made through the
-- API get 'declared', Supabase's rule (the bucket service sets it).
alter table storage.buckets add column content_check text not null default 'strict'
  check (content_check in ('strict', 'declared'));

-- As in Supabase, the request roles hold every privilege on the storage tables and row-level security alone
-- decides: a policy an operator adds for anonymous uploads takes effect. The shipped policies stay as they are
-- (writes to authenticated callers only), so anon's new privileges open nothing by themselves.
grant select, insert, update, delete on storage.objects to anon, authenticated;
grant select, insert, update, delete on storage.buckets to anon, authenticated;
