// The purge job as a server worker (AUCTION_PURGE_ENABLED): at start, every AUCTION_PURGE_INTERVAL_MINUTES, and at
// once when a super admin asks for a purge now (NOTIFY auction_purge). Instances share it through SKIP LOCKED.
// Every process with workers writes AUCTION_DELETE_GRACE_DAYS into the database first, as the webhook worker
// does with its settings.
import type { StorageService } from '@auction-ops/storage';
import type { ServerContext, Worker } from '../context.js';
import { purgeDueAuctions, syncDeletionSettings } from '../auctions/auction-purge.js';

export async function startAuctionPurgeWorker(ctx: ServerContext, storage: StorageService): Promise<Worker> {
  const c = ctx.config;
  await syncDeletionSettings(ctx.ownerSql, c.AUCTION_DELETE_GRACE_DAYS);
  if (!c.AUCTION_PURGE_ENABLED) return { name: 'auction-purge', stop: async () => {} };
  let running: Promise<void> = Promise.resolve();
  let again = false;
  let stopped = false;
  const run = () => {
    if (stopped) return running;
    again = true;
    running = running.then(async () => {
      while (again && !stopped) {
        again = false;
        try {
          const purged = await purgeDueAuctions({
            sql: ctx.ownerSql,
            removeKeys: (keys) => storage.backend.remove(keys),
            log: ctx.log,
          });
          for (const p of purged) ctx.log.info('auction purged', { auction_id: p.id, objects: p.objects });
        } catch (error) {
          ctx.log.error('auction purge failed', { error: String(error) });
        }
      }
    });
    return running;
  };
  const listener = await ctx.ownerSql.listen('auction_purge', () => void run());
  void run();
  const timer = setInterval(() => void run(), c.AUCTION_PURGE_INTERVAL_MINUTES * 60_000);
  timer.unref();
  return {
    name: 'auction-purge',
    async stop() {
      stopped = true;
      clearInterval(timer);
      await listener.unlisten().catch(() => {});
      await running;
    },
  };
}
