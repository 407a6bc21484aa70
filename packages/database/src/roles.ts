// The Postgres roles of the request model (as in PostgREST/Supabase): requests log in as `authenticator`,
// which owns nothing and may only switch to anon, authenticated or service_role for one transaction.
import postgres from 'postgres';

export const REQUEST_ROLES = ['anon', 'authenticated', 'service_role'] as const;
export type RequestRole = (typeof REQUEST_ROLES)[number];
export const AUTHENTICATOR = 'authenticator';

/** Creates the roles if missing and sets the authenticator's password. Idempotent; needs CREATEROLE. */
export async function ensureRoles(ownerUrl: string, authenticatorPassword: string): Promise<void> {
  const sql = postgres(ownerUrl, { max: 1, onnotice: () => {} });
  try {
    await sql.begin(async (tx) => {
      // Roles are cluster-wide: serialise concurrent creators (tests, two servers starting at once).
      await tx`select pg_advisory_xact_lock(hashtext('auction-ops roles'))`;
      await tx.unsafe(`
        do $$ begin
          if not exists (select from pg_roles where rolname = 'anon') then create role anon nologin noinherit; end if;
          if not exists (select from pg_roles where rolname = 'authenticated') then create role authenticated nologin noinherit; end if;
          if not exists (select from pg_roles where rolname = 'service_role') then create role service_role nologin noinherit bypassrls; end if;
          if not exists (select from pg_roles where rolname = 'authenticator') then create role authenticator login noinherit; end if;
        end $$;
        grant anon, authenticated, service_role to authenticator;
      `);
      // DDL takes no bind parameters: pass the password through a transaction-local setting instead.
      await tx`select set_config('auction_ops.authenticator_password', ${authenticatorPassword}, true)`;
      await tx.unsafe(`do $$ begin
        execute format('alter role authenticator password %L', current_setting('auction_ops.authenticator_password'));
      end $$`);
    });
  } finally {
    await sql.end();
  }
}

/** The URL the request pool uses: same server and database as the owner URL, logged in as authenticator. */
export function authenticatorUrl(ownerUrl: string, password: string): string {
  const url = new URL(ownerUrl);
  url.username = AUTHENTICATOR;
  url.password = encodeURIComponent(password);
  return url.toString();
}
