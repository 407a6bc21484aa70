// Pruning of the delivery logs: attempt logs and finished deliveries older than the retention age go, once when
// the dispatcher starts and hourly after that. What counts as old is decided in SQL (webhooks.prune_logs).
import type { DeliveryStore } from './delivery-store.js';
import type { DispatcherLog } from './dispatcher-log.js';

/** Hourly: the logs grow with deliveries, and a day's worth is cheap to remove in one statement. */
const PRUNE_INTERVAL_MS = 3_600_000;

export interface LogPruning {
  stop(): void;
}

/** Prunes now and every hour until stopped; a failed round is logged and the next one tries again. */
export function startLogPruning(store: DeliveryStore, retentionDays: number, log: DispatcherLog): LogPruning {
  async function prune() {
    try {
      const removed = await store.prune(retentionDays);
      if (removed.attempts > 0 || removed.deliveries > 0) log.info('pruned webhook logs', removed);
    } catch (error) {
      log.warn('webhook log pruning failed', { error: String(error) });
    }
  }
  // unref: pruning alone must not keep the process alive.
  const timer = setInterval(() => void prune(), PRUNE_INTERVAL_MS).unref();
  void prune();
  return { stop: () => clearInterval(timer) };
}
