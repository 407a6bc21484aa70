// The overdue-submission scheduler inside the server: runs check-pending-submissions at every multiple of the
// interval since the epoch (like a cron `*/15`), so every server fires at the same moments and the advisory lock
// lets exactly one of them do the run.
import { runPendingCheck, type PendingCheckDeps } from './pending-check.js';

export interface PendingScheduler {
  stop(): Promise<void>;
}

export function startPendingScheduler(
  deps: PendingCheckDeps & { log: { info(msg: string, fields?: Record<string, unknown>): void } },
  intervalMinutes: number,
): PendingScheduler {
  const intervalMs = Math.max(1000, Math.round(intervalMinutes * 60_000));
  let timer: NodeJS.Timeout | undefined;
  let current: Promise<void> = Promise.resolve();
  let stopped = false;

  function schedule() {
    if (stopped) return;
    const wait = intervalMs - (Date.now() % intervalMs);
    timer = setTimeout(tick, wait);
  }

  function tick() {
    current = runPendingCheck(deps, { wait: false })
      .then((result) => {
        if (result && result.notifications_sent > 0)
          deps.log.info('overdue submissions notified', {
            overdue_locations: result.overdue_locations,
            notified_users: result.notified_users,
          });
      })
      .catch((error) => deps.log.warn('pending submission check failed', { error: String(error) }))
      .finally(schedule);
  }

  schedule();
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await current;
    },
  };
}
