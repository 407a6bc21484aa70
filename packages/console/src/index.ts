// The admin console's public surface: the Hono app the server mounts at /console.
export { consoleRoutes, type ConsoleOptions } from './console-routes.js';
export type { ConsoleAccess } from './operator-guard.js';
export type { ServerStatus } from './status-route.js';
export type { Backups, BackupSummary } from './backups-route.js';
export type { AuctionExports } from './auction-export-route.js';
export {
  archiveCheck,
  backupsCheck,
  baseBackupCheck,
  bytesText,
  databaseCheck,
  diskCheck,
  drillCheck,
  replicaCheck,
  replicasCheck,
  webhookCheck,
  worstState,
  type Check,
  type CheckState,
} from './status-checks.js';
