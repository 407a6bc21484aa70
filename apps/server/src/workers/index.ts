// Background workers started with the server (each switchable off by configuration).
import type { ServerContext, Worker } from '../context.js';
import { startWebhookWorker } from './webhooks.js';
import { startNotificationWorker } from './notifications.js';
import { startImportSweeper } from './imports.js';
import { startBackupWorker } from './backups.js';
import { startAuctionPurgeWorker } from './auction-purge.js';
import type { Services } from '../services/index.js';

export async function startWorkers(ctx: ServerContext, services: Services): Promise<Worker[]> {
  if (!ctx.config.WORKERS_ENABLED) return [];
  const workers = [
    await startWebhookWorker(ctx),
    await startNotificationWorker(ctx),
    await startImportSweeper(ctx),
    await startAuctionPurgeWorker(ctx, services.storage),
  ];
  const backups = await startBackupWorker(ctx, services.storage);
  return backups ? [...workers, backups] : workers;
}
