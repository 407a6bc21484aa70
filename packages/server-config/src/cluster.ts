// Processes per server: WEB_CONCURRENCY server processes share the port (node:cluster). Unset, it is one per core
// (at most one per request connection), and 1 under NODE_ENV=test so tests run the single process.
import { availableParallelism } from 'node:os';
import * as v from 'valibot';
import { positiveInt } from './fields.js';

export const clusterSettings = {
  WEB_CONCURRENCY: v.optional(positiveInt),
};

/** The number of server processes: WEB_CONCURRENCY, else the cores (1 in tests), never more than DB_POOL_SIZE. */
export function resolveConcurrency(
  given: number | undefined,
  poolSize: number,
  env: Record<string, string | undefined>,
): number | string {
  if (given !== undefined) {
    // Every process needs at least one request connection of the DB_POOL_SIZE total.
    return given <= poolSize ? given : `must not exceed DB_POOL_SIZE (${poolSize}), the request connections in all`;
  }
  if (env.NODE_ENV === 'test') return 1;
  return Math.max(1, Math.min(availableParallelism(), poolSize));
}
