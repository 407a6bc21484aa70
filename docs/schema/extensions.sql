-- Generated from the migrations by apps/server/test/schema-snapshot.test.ts (`pnpm schema:snapshot`): do not
-- edit. Read the schema in force here; change it in a new migration (packages/*/migrations*).

-- object: schema extensions
create schema extensions;
