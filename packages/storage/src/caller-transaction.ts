// Every metadata statement runs in one transaction under the caller's role and claims, as PostgREST does,
// so row-level security on storage.objects decides what the caller may see and change.
import type postgres from 'postgres';
import { inRequestTransaction, REQUEST_ROLES, type RequestRole } from '@auction-ops/database';
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
  work: (tx: postgres.TransactionSql) => Promise<T>,
): Promise<T> {
  return inRequestTransaction(sql, caller.role, caller.claims, work);
}
