// One transaction under a request role and its JWT claims, as PostgREST runs a request: row-level security then
// decides what the work may see and change. (The REST engine pipelines its own variant of this for speed.)
import type postgres from 'postgres';
import { REQUEST_ROLES, type RequestRole } from './roles.js';

/**
 * Runs `work` in a transaction as `role` with `claims`. BEGIN and the context statement are written together and
 * answered in one round trip: postgres.js sends a statement as soon as it is asked for, while its own `begin()`
 * waits for BEGIN's answer before anything else. The role is still set by a statement of its own before the work,
 * as row-level security needs (privileges and policies are fixed when a statement starts).
 *
 * `work` gets the reserved connection typed as a transaction: everything but savepoints, which no request uses.
 */
export async function inRequestTransaction<T>(
  sql: postgres.Sql,
  role: RequestRole,
  claims: Readonly<Record<string, unknown>>,
  work: (tx: postgres.TransactionSql) => Promise<T>,
): Promise<T> {
  // The role reaches set_config as a value, but only the request roles may be assumed.
  if (!(REQUEST_ROLES as readonly string[]).includes(role)) throw new Error(`not a request role: ${String(role)}`);
  const conn = await sql.reserve();
  let begun = false;
  try {
    const begin = conn`begin`.then(() => {
      begun = true;
    });
    const context = conn`select set_config('role', ${role}, true),
      set_config('request.jwt.claims', ${JSON.stringify(claims)}, true)`;
    await Promise.all([begin, context]);
    const result = await work(conn as unknown as postgres.TransactionSql);
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
