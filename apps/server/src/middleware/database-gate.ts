// While the database does not answer (restarting, unreachable), requests of the families that need it get 503 at
// once in their family's error shape, with Retry-After, instead of waiting on pools that cannot connect.
// /health says so itself; realtime keeps its sockets and tells its channels (docs/operations.md).
import type { Context } from 'hono';
import { AuthError } from '@auction-ops/auth-core';
import { FunctionError } from '@auction-ops/functions';
import { errors as restErrors } from '@auction-ops/rest-engine';
import { StorageError } from '@auction-ops/storage';
import type { AvailabilityMonitor } from '@auction-ops/database';
import type { AppEnv } from '../context.js';

const MESSAGE = 'The database is not reachable; try again shortly';
const HEADERS = { 'retry-after': '1' };

function unavailableBody(family: string, reason: string): unknown {
  switch (family) {
    case 'rest':
      return JSON.parse(restErrors.connection(reason).body());
    case 'auth':
      return new AuthError(503, 'unexpected_failure', MESSAGE).toBody();
    case 'storage':
      return new StorageError(503, 'DatabaseError', MESSAGE).toBody();
    default:
      return new FunctionError('INTERNAL_ERROR', MESSAGE, undefined, 503).toJSON();
  }
}

const FAMILY = /^\/(auth|rest|storage|functions)\/v1(\/|$)/;

/** The 503 answer for this request while the database is down; undefined when it may pass. */
export function databaseUnavailable(c: Context<AppEnv>, database: AvailabilityMonitor): Response | undefined {
  if (database.up) return undefined;
  const family = FAMILY.exec(c.req.path)?.[1];
  if (!family || c.req.method === 'OPTIONS') return undefined;
  return c.json(unavailableBody(family, database.reason ?? 'database unreachable'), 503, HEADERS);
}
