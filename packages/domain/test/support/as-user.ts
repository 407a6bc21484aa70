// Runs SQL the way the REST engine does: one transaction logged in as authenticator, with the role and the JWT
// claims set transaction-locally. Lets tests exercise row-level security and RPCs at the SQL level.
import postgres from 'postgres';
import { inRequestTransaction } from '@auction-ops/database';

export type Claims = { sub?: string; role: 'anon' | 'authenticated' | 'service_role'; [k: string]: unknown };

const clients = new Map<string, postgres.Sql>();

function client(url: string): postgres.Sql {
  let sql = clients.get(url);
  if (!sql) {
    sql = postgres(url, { max: 2, onnotice: () => {} });
    clients.set(url, sql);
  }
  return sql;
}

export async function closeClients(): Promise<void> {
  await Promise.all([...clients.values()].map((c) => c.end()));
  clients.clear();
}

export function claimsFor(userId: string | null): Claims {
  return userId ? { sub: userId, role: 'authenticated', aud: 'authenticated' } : { role: 'anon' };
}

/** Runs fn in a request-like transaction; the transaction commits unless fn throws. */
export async function asUser<T>(
  requestUrl: string,
  claims: Claims,
  fn: (tx: postgres.ReservedSql) => Promise<T>,
): Promise<T> {
  return inRequestTransaction(client(requestUrl), claims.role, claims, fn);
}

/** The SQLSTATE of a failed call, or 'ok'. */
export async function sqlState(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return 'ok';
  } catch (error) {
    return (error as { code?: string }).code ?? String(error);
  }
}

class Rollback extends Error {
  constructor(readonly value: unknown) {
    super('rollback');
  }
}

/** Like asUser, but always rolls back: for probing what a role may do without changing the data. */
export async function probeAsUser<T>(
  requestUrl: string,
  claims: Claims,
  fn: (tx: postgres.ReservedSql) => Promise<T>,
): Promise<T> {
  try {
    await asUser(requestUrl, claims, async (tx) => {
      throw new Rollback(await fn(tx));
    });
  } catch (error) {
    if (error instanceof Rollback) return error.value as T;
    throw error;
  }
  throw new Error('unreachable');
}
