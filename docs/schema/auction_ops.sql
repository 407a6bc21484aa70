-- Generated from the migrations by apps/server/test/schema-snapshot.test.ts (`pnpm schema:snapshot`): do not
-- edit. Read the schema in force here; change it in a new migration (packages/*/migrations*).

-- object: schema auction_ops
create schema auction_ops;

-- object: table auction_ops.migrations
create table auction_ops.migrations (
  package text not null,
  name text not null,
  checksum text not null,
  applied_at timestamp with time zone not null default now(),
  release text
);
alter table auction_ops.migrations add constraint migrations_pkey PRIMARY KEY (package, name);

-- object: table auction_ops.releases
create table auction_ops.releases (
  version text not null,
  first_started_at timestamp with time zone not null default now(),
  last_started_at timestamp with time zone not null default now()
);
alter table auction_ops.releases add constraint releases_pkey PRIMARY KEY (version);

-- object: table auction_ops.settings
create table auction_ops.settings (
  key text not null,
  value text not null
);
alter table auction_ops.settings add constraint settings_pkey PRIMARY KEY (key);
