// GET /console/api/status: what the server knows about itself that no table holds (version, processes, database,
// replicas, limits), for a super admin's access token only. Whether the token's user is one is asked of the
// database under that user's claims, so the same row-level rule decides as everywhere else.
import { Hono } from 'hono';

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/** How the server judges a bearer token: no user, a user who is not a super admin, or a super admin. */
export type ConsoleAccess = 'unauthenticated' | 'forbidden' | 'allowed';

export type ServerStatus = Record<string, unknown>;

export interface StatusRouteOptions {
  access: (token: string) => Promise<ConsoleAccess>;
  status: () => Promise<ServerStatus>;
}

export function statusRoute(options: StatusRouteOptions): Hono {
  return new Hono().get('/', async (c) => {
    c.header('cache-control', 'no-store');
    const token = c.req.header('authorization')?.match(BEARER)?.[1];
    const access = token ? await options.access(token) : 'unauthenticated';
    if (access === 'unauthenticated') {
      c.header('www-authenticate', 'Bearer realm="console"');
      return c.json({ message: 'sign in first' }, 401);
    }
    if (access === 'forbidden') return c.json({ message: 'only super admins may read the server status' }, 403);
    return c.json(await options.status());
  });
}
