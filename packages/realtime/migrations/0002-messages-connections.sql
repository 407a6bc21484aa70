-- Stored broadcasts for replay, and connection leases counted across instances.

-- Broadcasts stored with `persist` on private channels, replayed to joins that ask with
-- `config.broadcast.replay = {since, limit}`. Shaped as Supabase's realtime.messages (topic without the
-- `realtime:` prefix, extension, event, payload, private, inserted_at) so that policies on this table can later
-- decide who may read and write a private channel. Rows live until expires_at (at most the configured maximum age)
-- and each topic keeps only its newest messages up to the configured count; instances sweep the rest.
create table realtime.messages (
  id uuid primary key default gen_random_uuid(),
  topic text not null,
  extension text not null default 'broadcast' check (extension in ('broadcast', 'presence')),
  event text not null,
  payload jsonb,
  -- A byte payload (application/octet-stream): kept as bytes, never as JSON.
  binary_payload bytea,
  private boolean not null default true,
  inserted_at timestamptz not null default clock_timestamp(),
  expires_at timestamptz not null
);

create index messages_topic_inserted_at on realtime.messages (topic, inserted_at);
create index messages_expires_at on realtime.messages (expires_at);

-- One row per open WebSocket connection, held by the instance that serves it: REALTIME_MAX_CONNECTIONS_PER_IP is
-- counted over all instances. A crashed instance stops announcing itself and is swept; its leases go with it.
create unlogged table realtime.connections (
  id text primary key,
  client_ip text not null,
  instance_id text not null references realtime.instances on delete cascade,
  opened_at timestamptz not null default now()
);

create index connections_client_ip on realtime.connections (client_ip);
