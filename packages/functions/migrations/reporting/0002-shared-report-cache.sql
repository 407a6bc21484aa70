-- execute-query's shared cache tier: a report result stored once for every server process and instance, so a
-- repeated report is answered from cache whichever process gets it. Unlogged: a cache need not survive a crash
-- (PostgreSQL empties unlogged tables after one) and costs no WAL. Only the server's owner connection reads it.
create unlogged table reporting_data.report_cache (
  key text primary key,
  dataset_id uuid not null,
  body text not null,
  content_type text not null,
  row_count integer not null,
  expires_at timestamptz not null
);
create index report_cache_dataset_idx on reporting_data.report_cache (dataset_id);
create index report_cache_expiry_idx on reporting_data.report_cache (expires_at);
revoke all on reporting_data.report_cache from public;
