// /console/api/backups: the backups of BACKUP_TARGET (GET, newest first) and a new one (POST), for super admins
// only. Backups exist only where the server runs the embedded cluster with BACKUP_TARGET set (docs/backups.md);
// elsewhere GET says so and POST answers 409.
import { Hono } from 'hono';
import { type ConsoleAccess, refusal } from './operator-guard.js';

export type BackupSummary = Record<string, unknown>;

export interface Backups {
  list(): Promise<BackupSummary[]>;
  create(): Promise<BackupSummary>;
}

export interface BackupsRouteOptions {
  access: (token: string) => Promise<ConsoleAccess>;
  /** Undefined when the server takes no backups. */
  backups?: Backups;
}

export function backupsRoute(options: BackupsRouteOptions): Hono {
  const { backups } = options;
  const app = new Hono();
  app.get('/', async (c) => {
    const refused = await refusal(c, options.access, 'list backups');
    if (refused) return refused;
    return c.json(backups ? { configured: true, backups: await backups.list() } : { configured: false, backups: [] });
  });
  app.post('/', async (c) => {
    const refused = await refusal(c, options.access, 'create backups');
    if (refused) return refused;
    if (!backups) return c.json({ message: 'backups are not configured: set BACKUP_TARGET (embedded cluster)' }, 409);
    return c.json(await backups.create(), 201);
  });
  return app;
}
