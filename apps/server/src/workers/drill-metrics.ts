// The restore drill's metrics, from its record in BACKUP_TARGET (drills run in this process on schedule, or from
// `auction-ops backup drill` anywhere): read at start, after each drill and every few minutes, never per scrape.
// Declared even without BACKUP_TARGET (then without samples), like the base backup gauge.
import { type BackupTarget, type DrillRecord, readDrillRecord } from '@auction-ops/backups';
import { counterOnScrape, gaugeOnScrape } from '@auction-ops/observability';
import type { ServerContext } from '../context.js';
import { pollTarget } from './backup-metrics.js';

interface DrillMetrics {
  set(record: DrillRecord | null): void;
}

export function drillMetrics(ctx: ServerContext): DrillMetrics {
  // undefined: not read (no target, or the read failed); null: read, and no drill has run.
  let last: DrillRecord | null | undefined;
  if (ctx.metrics) {
    gaugeOnScrape(
      ctx.metrics.registry,
      {
        name: 'backup_drill_last_success_timestamp_seconds',
        help: 'When the newest restore drill that passed finished (unix seconds)',
      },
      () => (last?.last_success_at ? Date.parse(last.last_success_at) / 1000 : undefined),
    );
    // Kept in the record, so it counts every failure since the target's first drill, across restarts.
    counterOnScrape(
      ctx.metrics.registry,
      { name: 'backup_drill_failures_total', help: 'Restore drills that failed (recorded in BACKUP_TARGET)' },
      () => (last === undefined ? undefined : (last?.failures_total ?? 0)),
    );
  }
  return {
    set(record) {
      last = record;
    },
  };
}

export function watchDrills(ctx: ServerContext, target: BackupTarget, metrics: DrillMetrics) {
  return pollTarget(
    ctx,
    'reading the restore drill record',
    () => readDrillRecord(target),
    (record) => metrics.set(record ?? null),
  );
}
