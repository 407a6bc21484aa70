-- What the Supabase CLI's database provides before a project's migrations run, as far as the postgrest-js suite
-- relies on it: the API roles, the authenticator that switches to them, the extensions schema, and default
-- privileges so that tables, sequences and functions created in public are usable by the API roles.
create role anon nologin noinherit;
create role authenticated nologin noinherit;
create role service_role nologin noinherit bypassrls;
create role authenticator login noinherit password 'conformance';
grant anon, authenticated, service_role to authenticator;

create schema extensions;
create schema graphql_public;
grant usage on schema public, extensions, graphql_public to anon, authenticated, service_role;
alter default privileges in schema public grant all on tables to anon, authenticated, service_role;
alter default privileges in schema public grant all on sequences to anon, authenticated, service_role;
alter default privileges in schema public grant all on functions to anon, authenticated, service_role;
