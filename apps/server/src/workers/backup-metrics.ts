// The newest complete base backup in BACKUP_TARGET, for backup_base_last_success_timestamp_seconds. Listing the
// target reads every manifest (S3 requests), so it is read at start, when a base backup is announced on the database
// (createBackup notifies BASE_BACKUP_CHANNEL, whoever took it: the schedule, the console, `auction-ops backup
// create`), and every few minutes (an announcement missed while the listener reconnected), never per scrape. The
// gauge is declared even without BACKUP_TARGET (then it has no sample), so dashboards and absent() alerts find a
// declared metric.
import { BASE_BACKUP_CHANNEL, type BackupTarget, listBackups } from '@auction-ops/backups';
import { gaugeOnScrape } from '@auction-ops/observability';
import type { ServerContext } from '../context.js';

const REFRESH_MS = 5 * 60_000;

/** The gauge, in the process that runs the background work; `set` gives it the newest backup's end (seconds). */
export function baseBackupGauge(ctx: ServerContext): { set(seconds: number | undefined): void } {
  let newest: number | undefined;
  if (ctx.metrics)
    gaugeOnScrape(
      ctx.metrics.registry,
      {
        name: 'backup_base_last_success_timestamp_seconds',
        help: 'When the newest complete base backup in BACKUP_TARGET finished (unix seconds)',
      },
      () => newest,
    );
  return {
    set(seconds) {
      newest = seconds;
    },
  };
}

/**
 * Reads a figure from the target now, every few minutes and on refresh(), one read at a time: a refresh asked for
 * during a read runs once after it, so a burst of announcements costs one more listing, not one each.
 */
export function pollTarget<T>(ctx: ServerContext, what: string, read: () => Promise<T>, apply: (value: T) => void) {
  let reading = false;
  let again = false;
  const refresh = (): void => {
    if (reading) {
      again = true;
      return;
    }
    reading = true;
    void read()
      .then(apply, (error) => ctx.log.warn(`backup: ${what} failed`, { error: String(error) }))
      .finally(() => {
        reading = false;
        if (again) {
          again = false;
          refresh();
        }
      });
  };
  refresh();
  const timer = setInterval(refresh, REFRESH_MS);
  timer.unref();
  return { refresh, stop: () => clearInterval(timer) };
}

export function watchBaseBackups(
  ctx: ServerContext,
  target: BackupTarget,
  gauge: { set(seconds: number | undefined): void },
): { refresh(): void; stop(): Promise<void> } {
  const poll = pollTarget(
    ctx,
    'listing the base backups',
    () => listBackups(target),
    (backups) => {
      const last = backups.at(-1);
      gauge.set(last ? Date.parse(last.finished_at) / 1000 : undefined);
    },
  );
  // Listening starts after the first listing; a backup finished in between is caught by the listing after it.
  const listening = ctx.ownerSql.listen(BASE_BACKUP_CHANNEL, poll.refresh, poll.refresh).catch((error) => {
    ctx.log.warn('backup: listening for finished base backups failed', { error: String(error) });
    return undefined;
  });
  return {
    refresh: poll.refresh,
    async stop() {
      poll.stop();
      await (await listening)?.unlisten().catch(() => {});
    },
  };
}
