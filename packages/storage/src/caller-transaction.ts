// Every metadata statement runs in one transaction under the caller's role and claims, as PostgREST does,
// so row-level security on storage.objects decides what the caller may see and change.
import type postgres from 'postgres';
import {
  checkRequestRole,
  inRequestTransaction,
  REQUEST_ROLES,
  RESERVE_TIMEOUT_MS,
  reserveWithin,
  type RequestRole,
  requestContext,
} from '@auction-ops/database';
import { errors } from './storage-errors.js';

export type { RequestRole };

export interface Caller {
  role: RequestRole;
  claims: Record<string, unknown>;
}

const ROLES = new Set<string>(REQUEST_ROLES);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const ANON: Caller = { role: 'anon', claims: { role: 'anon' } };
export const SERVICE: Caller = { role: 'service_role', claims: { role: 'service_role' } };

/** The caller of verified claims; a role outside the three request roles is refused. */
export function callerFromClaims(claims: Record<string, unknown> | undefined): Caller {
  if (!claims) return ANON;
  const role = claims.role;
  if (typeof role !== 'string' || !ROLES.has(role)) throw errors.unauthorized(`role ${String(role)} is not allowed`);
  return { role: role as RequestRole, claims };
}

/** The owner recorded on rows the caller writes (the token's subject when it is a user id). */
export function callerUserId(caller: Caller): string | null {
  const sub = caller.claims.sub;
  return typeof sub === 'string' && UUID.test(sub) ? sub : null;
}

export function asCaller<T>(
  sql: postgres.Sql,
  caller: Caller,
  work: (tx: postgres.ReservedSql) => Promise<T>,
): Promise<T> {
  // A bounded wait for a connection: on a cut network an upload gets 503 (storage-errors.ts), not a hang.
  return inRequestTransaction(sql, caller.role, caller.claims, work, { reserveTimeoutMs: RESERVE_TIMEOUT_MS });
}

type Settled<T> = { ok: true; value: T } | { ok: false; reason: unknown };

function settle<T>(query: PromiseLike<T>): Promise<Settled<T>> {
  return Promise.resolve(query).then(
    (value) => ({ ok: true as const, value }),
    (reason: unknown) => ({ ok: false as const, reason }),
  );
}

/**
 * One statement under the caller's role and claims in one round trip: BEGIN, the context, the statement and COMMIT are
 * written to one connection together and answered together (postgres.js sends a statement as soon as it is asked for),
 * where asCaller answers BEGIN and the context first, then runs the work, then COMMIT. The role is still set by a
 * statement of its own before the work, as row-level security needs (privileges and policies are fixed when a statement
 * starts). The rows are answered only if all four succeeded: a failed BEGIN or context statement never lets them out,
 * and a failed statement aborts the transaction, whose COMMIT then rolls back.
 */
async function inOneRoundTrip<T extends readonly postgres.Row[]>(
  sql: postgres.Sql,
  caller: Caller,
  readOnly: boolean,
  statement: (conn: postgres.ReservedSql) => postgres.PendingQuery<T>,
): Promise<T> {
  checkRequestRole(caller.role);
  const conn = await reserveWithin(sql, RESERVE_TIMEOUT_MS);
  try {
    const begin = settle(readOnly ? conn`begin read only` : conn`begin`);
    const context = settle(requestContext(conn, caller.role, caller.claims));
    const rows = settle(statement(conn));
    const commit = settle(conn`commit`);
    const results = [await begin, await context, await rows, await commit];
    const failed = results.find((result) => !result.ok);
    if (failed && !failed.ok) throw failed.reason;
    const answer = await rows;
    if (!answer.ok) throw answer.reason;
    return answer.value;
  } finally {
    conn.release();
  }
}

/** One read-only statement as the caller, in one round trip (see inOneRoundTrip). */
export function readAsCaller<T extends readonly postgres.Row[]>(
  sql: postgres.Sql,
  caller: Caller,
  read: (conn: postgres.ReservedSql) => postgres.PendingQuery<T>,
): Promise<T> {
  return inOneRoundTrip(sql, caller, true, read);
}

/** One statement that may write, as the caller, in one round trip (see inOneRoundTrip). */
export function writeAsCaller<T extends readonly postgres.Row[]>(
  sql: postgres.Sql,
  caller: Caller,
  write: (conn: postgres.ReservedSql) => postgres.PendingQuery<T>,
): Promise<T> {
  return inOneRoundTrip(sql, caller, false, write);
}
