// One transaction under a request role and its JWT claims, as PostgREST runs a request: row-level security then
// decides what the work may see and change. (The REST engine pipelines its own variant of this for speed.)
import type postgres from 'postgres';
import { REQUEST_ROLES, type RequestRole } from './roles.js';

/** Refuses a role that is not a request role: the role reaches set_config as a value, but only these may be assumed. */
export function checkRequestRole(role: string): asserts role is RequestRole {
  if (!(REQUEST_ROLES as readonly string[]).includes(role)) throw new Error(`not a request role: ${String(role)}`);
}

/**
 * The statement that makes the rest of a transaction run as `role` with `claims` (transaction-local settings), for
 * callers that pipeline it with BEGIN and their statements themselves. `role` must have passed checkRequestRole.
 */
export function requestContext(
  conn: postgres.Sql,
  role: RequestRole,
  claims: Readonly<Record<string, unknown>>,
): postgres.PendingQuery<postgres.Row[]> {
  const settings = JSON.stringify(claims);
  return conn`select set_config('role', ${role}, true), set_config('request.jwt.claims', ${settings}, true)`;
}

/**
 * Runs `work` in a transaction as `role` with `claims`. BEGIN and the context statement are written together and
 * answered in one round trip: postgres.js sends a statement as soon as it is asked for, while its own `begin()`
 * waits for BEGIN's answer before anything else. The role is still set by a statement of its own before the work,
 * as row-level security needs (privileges and policies are fixed when a statement starts).
 *
 * `work` gets the reserved connection inside the transaction (a reserved connection has no savepoints).
 */
export async function inRequestTransaction<T>(
  sql: postgres.Sql,
  role: RequestRole,
  claims: Readonly<Record<string, unknown>>,
  work: (tx: postgres.ReservedSql) => Promise<T>,
): Promise<T> {
  checkRequestRole(role);
  const conn = await sql.reserve();
  let begun = false;
  try {
    const begin = conn`begin`.then(() => {
      begun = true;
    });
    await Promise.all([begin, requestContext(conn, role, claims)]);
    const result = await work(conn);
    // COMMIT ends the transaction whether it succeeds or fails: nothing to roll back after it.
    begun = false;
    await conn`commit`;
    return result;
  } catch (error) {
    // Queued behind whatever the work left running; never leaves an open transaction on a pooled connection.
    if (begun) await conn`rollback`.catch(() => {});
    throw error;
  } finally {
    conn.release();
  }
}
