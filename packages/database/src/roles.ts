// The Postgres roles of the request model (as in PostgREST/Supabase): requests log in as `authenticator`,
// which owns nothing and may only switch to anon, authenticated or service_role for one transaction.
// Roles are cluster-wide while a database may be shared by several servers, so the authenticator's password is
// kept in the database itself (an owner-only table): every instance, and every database of a test cluster,
// reads the same one instead of resetting it to its own.
import { randomBytes } from 'node:crypto';
import postgres from 'postgres';

export const REQUEST_ROLES = ['anon', 'authenticated', 'service_role'] as const;
export type RequestRole = (typeof REQUEST_ROLES)[number];
export const AUTHENTICATOR = 'authenticator';

const SETTINGS = `
  create schema if not exists auction_ops;
  revoke all on schema auction_ops from public;
  create table if not exists auction_ops.settings (key text primary key, value text not null);`;

/**
 * Creates the roles if missing and returns the authenticator's password: `preferred` if given (and then set),
 * else the one stored in this database, else a new one. Idempotent; needs CREATEROLE the first time.
 */
export async function ensureRoles(ownerUrl: string, preferred?: string): Promise<string> {
  const sql = postgres(ownerUrl, { max: 1, onnotice: () => {} });
  try {
    return await sql.begin(async (tx) => {
      // Roles are cluster-wide: serialise concurrent creators (tests, several servers starting at once).
      await tx`select pg_advisory_xact_lock(hashtext('auction-ops roles'))`;
      const [{ existed }] = await tx<
        { existed: boolean }[]
      >`select exists (select from pg_roles where rolname = 'authenticator') as existed`;
      await tx.unsafe(`
        do $$ begin
          if not exists (select from pg_roles where rolname = 'anon') then create role anon nologin noinherit; end if;
          if not exists (select from pg_roles where rolname = 'authenticated') then
            create role authenticated nologin noinherit;
          end if;
          if not exists (select from pg_roles where rolname = 'service_role') then
            create role service_role nologin noinherit bypassrls;
          end if;
          if not exists (select from pg_roles where rolname = 'authenticator') then
            create role authenticator login noinherit;
          end if;
        end $$;
        grant anon, authenticated, service_role to authenticator;
        ${SETTINGS}`);
      const [stored] = await tx<
        { value: string }[]
      >`select value from auction_ops.settings where key = 'authenticator_password'`;
      const password = preferred ?? stored?.value ?? randomBytes(24).toString('base64url');
      if (!existed || password !== stored?.value) {
        // DDL takes no bind parameters: pass the password through a transaction-local setting instead.
        await tx`select set_config('auction_ops.authenticator_password', ${password}, true)`;
        await tx.unsafe(`do $$ begin
          execute format('alter role authenticator password %L', current_setting('auction_ops.authenticator_password'));
        end $$`);
        await storePassword(tx, password);
      }
      return password;
    });
  } finally {
    await sql.end();
  }
}

/**
 * Makes `ms` the statement timeout of every session the authenticator logs in to this database: requests outside
 * the REST engine (auth, storage, functions, realtime's checks), which sets its own per transaction, then cannot
 * wait on a lock or a slow query without end while holding one of the pool's few connections. A role default
 * applies at login, so it holds through a transaction pooler too (startup parameters would not). Written only when
 * it differs, under the roles' lock: pg_db_role_setting is shared, and two instances may start at once.
 */
export async function setRequestStatementTimeout(ownerUrl: string, ms: number): Promise<void> {
  const sql = postgres(ownerUrl, { max: 1, onnotice: () => {} });
  try {
    await sql.begin(async (tx) => {
      await tx`select pg_advisory_xact_lock(hashtext('auction-ops roles'))`;
      if ((await requestStatementTimeout(tx)) === ms) return;
      // DDL takes no bind parameters: the value goes through a transaction-local setting and format's %L.
      await tx`select set_config('auction_ops.request_statement_timeout', ${`${ms}ms`}, true)`;
      await tx.unsafe(`do $$ begin
        execute format('alter role authenticator in database %I set statement_timeout = %L',
                       current_database(), current_setting('auction_ops.request_statement_timeout'));
      end $$`);
    });
  } finally {
    await sql.end();
  }
}

/** The authenticator's statement timeout in this database, as `setRequestStatementTimeout` writes it (ms). */
export async function requestStatementTimeout(
  sql: postgres.Sql | postgres.TransactionSql,
): Promise<number | undefined> {
  const [row] = await sql<{ ms: string | null }[]>`
    select substring(c from '^statement_timeout=([0-9]+)ms$') as ms
      from pg_db_role_setting s, unnest(s.setconfig) c
     where s.setrole = (select oid from pg_roles where rolname = ${AUTHENTICATOR})
       and s.setdatabase = (select oid from pg_database where datname = current_database())
       and starts_with(c, 'statement_timeout=')`;
  return row?.ms ? Number(row.ms) : undefined;
}

async function storePassword(sql: postgres.Sql | postgres.TransactionSql, password: string): Promise<void> {
  await sql`insert into auction_ops.settings (key, value) values ('authenticator_password', ${password})
            on conflict (key) do update set value = excluded.value`;
}

/** Records the authenticator password in another database of the same cluster (test databases). */
export async function recordAuthenticatorPassword(ownerUrl: string, password: string): Promise<void> {
  const sql = postgres(ownerUrl, { max: 1, onnotice: () => {} });
  try {
    await sql.unsafe(SETTINGS);
    await storePassword(sql, password);
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
