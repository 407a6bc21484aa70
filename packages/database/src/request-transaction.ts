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
 * How long a request of the families that opt in (storage) waits for a free pool connection: the data interface's
 * PGRST003 deadline. Without one, a request waits as long as the pool cannot connect (a cut network), past any
 * client's patience, instead of getting its family's 503.
 */
export const RESERVE_TIMEOUT_MS = 10_000;

/** No pool connection came free in time: the database unreachable, or every connection busy. The code names a
 * timeout, as postgres.js's CONNECT_TIMEOUT does, so the families' error tables answer 503 as for a lost database. */
export class PoolTimeoutError extends Error {
  override name = 'PoolTimeoutError';
  readonly code = 'POOL_TIMEOUT';
  constructor(timeoutMs: number) {
    super(`no database connection came free within ${timeoutMs} ms`);
  }
}

/**
 * A reserved connection of `sql`, or PoolTimeoutError after `timeoutMs`. A reservation that arrives after the
 * deadline is released at once: postgres.js cannot withdraw a queued reservation.
 */
export async function reserveWithin(sql: postgres.Sql, timeoutMs: number): Promise<postgres.ReservedSql> {
  const pending = sql.reserve();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new PoolTimeoutError(timeoutMs)), timeoutMs);
  });
  try {
    return await Promise.race([pending, deadline]);
  } catch (error) {
    pending.then(
      (c) => c.release(),
      () => {},
    );
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Runs `work` in a transaction as `role` with `claims`. BEGIN and the context statement are written together and
 * answered in one round trip: postgres.js sends a statement as soon as it is asked for, while its own `begin()`
 * waits for BEGIN's answer before anything else. The role is still set by a statement of its own before the work,
 * as row-level security needs (privileges and policies are fixed when a statement starts).
 *
 * `work` gets the reserved connection inside the transaction (a reserved connection has no savepoints).
 * `reserveTimeoutMs` bounds the wait for a connection (see RESERVE_TIMEOUT_MS); unset, it is unbounded.
 */
export async function inRequestTransaction<T>(
  sql: postgres.Sql,
  role: RequestRole,
  claims: Readonly<Record<string, unknown>>,
  work: (tx: postgres.ReservedSql) => Promise<T>,
  options: { reserveTimeoutMs?: number } = {},
): Promise<T> {
  checkRequestRole(role);
  const conn = options.reserveTimeoutMs ? await reserveWithin(sql, options.reserveTimeoutMs) : await sql.reserve();
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
