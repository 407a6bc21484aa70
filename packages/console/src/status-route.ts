// GET /console/api/status: what the server knows about itself that no table holds (version, processes, database,
// replicas, limits), for a super admin's access token only.
import { Hono } from 'hono';
import { type ConsoleAccess, refusal } from './operator-guard.js';

export type ServerStatus = Record<string, unknown>;

export interface StatusRouteOptions {
  access: (token: string) => Promise<ConsoleAccess>;
  status: () => Promise<ServerStatus>;
}

export function statusRoute(options: StatusRouteOptions): Hono {
  return new Hono().get('/', async (c) => {
    return (await refusal(c, options.access, 'read the server status')) ?? c.json(await options.status());
  });
}
