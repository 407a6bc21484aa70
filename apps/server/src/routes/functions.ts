// /functions/v1: a thin Hono adapter over the functions family's dispatcher (services/), which resolves the
// caller, applies the per-user limits and renders errors.
import { Hono } from 'hono';
import type { FunctionDispatcher } from '@auction-ops/functions';
import type { AppEnv } from '../context.js';

export function functionRoutes(dispatcher: FunctionDispatcher): Hono<AppEnv> {
  // Everything under the mount reaches the dispatcher, so an unknown or nested name is its NOT_FOUND too.
  return new Hono<AppEnv>().all('*', (c) =>
    dispatcher.dispatch({
      name: c.req.path.replace(/^\/functions\/v1\/?/, ''),
      request: c.req.raw,
      claims: c.get('claims'),
      tokenRefused: c.get('authError') !== undefined,
      clientIp: c.get('clientIp'),
    }),
  );
}
