-- Generated from the migrations by apps/server/test/schema-snapshot.test.ts (`pnpm schema:snapshot`): do not
-- edit. Read the schema in force here; change it in a new migration (packages/*/migrations*).

-- object: schema reporting_data
create schema reporting_data;
grant usage on schema reporting_data to authenticated;
grant usage on schema reporting_data to service_role;

-- object: function reporting_data.dataset_visible(uuid)
CREATE OR REPLACE FUNCTION reporting_data.dataset_visible(p_dataset_id uuid)
 RETURNS boolean
 LANGUAGE sql
 STABLE
 SET search_path TO ''
AS $function$
  select exists (select 1 from public.datasets where id = p_dataset_id and status in ('ready', 'importing'))
$function$;
grant execute on function reporting_data.dataset_visible(uuid) to authenticated;
grant execute on function reporting_data.dataset_visible(uuid) to service_role;

-- object: table reporting_data.imports
create table reporting_data.imports (
  dataset_id uuid not null,
  staging_table text not null,
  mode text not null,
  previous_status text not null,
  started_at timestamp with time zone not null default now()
);
alter table reporting_data.imports add constraint imports_dataset_id_fkey FOREIGN KEY (dataset_id) REFERENCES public.datasets(id) ON DELETE CASCADE;
alter table reporting_data.imports add constraint imports_mode_check CHECK ((mode = ANY (ARRAY['create'::text, 'append'::text, 'replace'::text])));
alter table reporting_data.imports add constraint imports_pkey PRIMARY KEY (dataset_id);

-- object: table reporting_data.report_cache
create table reporting_data.report_cache (
  key text not null,
  dataset_id uuid not null,
  body text not null,
  content_type text not null,
  row_count integer not null,
  expires_at timestamp with time zone not null,
  bytes integer generated always as ((octet_length(key) + octet_length(body))) stored
);
alter table reporting_data.report_cache enable row level security;
alter table reporting_data.report_cache add constraint report_cache_pkey PRIMARY KEY (key);
CREATE INDEX report_cache_dataset_idx ON reporting_data.report_cache USING btree (dataset_id);
CREATE INDEX report_cache_expiry_idx ON reporting_data.report_cache USING btree (expires_at);
