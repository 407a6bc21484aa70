// One transaction under a request role and its JWT claims, as PostgREST runs a request: row-level security then
// decides what the work may see and change. (The REST engine pipelines its own variant of this for speed.)
import type postgres from 'postgres';
import { REQUEST_ROLES, type RequestRole } from './roles.js';

export async function inRequestTransaction<T>(
  sql: postgres.Sql,
  role: RequestRole,
  claims: Readonly<Record<string, unknown>>,
  work: (tx: postgres.TransactionSql) => Promise<T>,
): Promise<T> {
  // The role reaches set_config as a value, but only the request roles may be assumed.
  if (!(REQUEST_ROLES as readonly string[]).includes(role)) throw new Error(`not a request role: ${String(role)}`);
  const [result] = (await sql.begin(async (tx) => {
    await tx`select set_config('role', ${role}, true), set_config('request.jwt.claims', ${JSON.stringify(claims)},
      true)`;
    return [await work(tx)];
  })) as unknown as [T];
  return result;
}
