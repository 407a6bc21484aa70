-- The shared report cache, bounded and closed to every request role. `bytes` is what an entry costs (key and
-- body), so the server can evict the oldest entries once the table holds more than QUERY_CACHE_SHARED_MAX_BYTES.
-- Row-level security without a policy, and no grant to a request role: only the owner connection of the server
-- reads or writes it (service_role bypasses row-level security but has no privilege on the table either).
alter table reporting_data.report_cache
  add column bytes integer generated always as (octet_length(key) + octet_length(body)) stored;
alter table reporting_data.report_cache enable row level security;
revoke all on reporting_data.report_cache from anon, authenticated, service_role;
