// DATA_DIR's free-space floor in this process (DISK_FREE_FLOOR_MB, @auction-ops/database's disk floor): started
// with the server, its crossings logged, its figures exported as metrics. Uploads, CSV imports and local backups
// ask it before they write (docs/operations.md, "A full disk").
import { bytesText } from '@auction-ops/console';
import { DISK_FLOOR_OPERATIONS, type DiskFloor, type DiskReading, startDiskFloor } from '@auction-ops/database';
import { counterOnScrape, gaugeOnScrape } from '@auction-ops/observability';
import { Counter, type Registry } from 'prom-client';
import type { Config } from '@auction-ops/server-config';
import type { Logger } from './logger.js';

const fields = (r: DiskReading) => ({
  path: r.path,
  free: bytesText(r.freeBytes),
  floor: bytesText(r.floorBytes),
  freeBytes: r.freeBytes,
  floorBytes: r.floorBytes,
});

export function startDataDirFloor(config: Config, log: Logger): Promise<DiskFloor> {
  let readFailing = false;
  return startDiskFloor({
    path: config.DATA_DIR,
    floorMb: config.DISK_FREE_FLOOR_MB,
    onCross: (below, reading) => {
      readFailing = false;
      if (below)
        log.error(
          'disk: free space is under the floor (DISK_FREE_FLOOR_MB); uploads and CSV imports answer 507 and local ' +
            'backups are skipped until space is freed, so that PostgreSQL keeps room for its WAL',
          fields(reading),
        );
      else log.info('disk: free space is back over the floor; uploads, imports and backups resume', fields(reading));
    },
    // Logged once per run of failures; the last reading stands meanwhile.
    onReadError: (error) => {
      if (!readFailing) log.warn('disk: free space could not be read', { path: config.DATA_DIR, error: String(error) });
      readFailing = true;
    },
  });
}

/**
 * The floor's metrics. Free space describes the whole server, so only the process with the background role reports
 * it (a cluster scrape sums the processes); refusals are counted by each process where they happen.
 */
export function registerDiskFloorMetrics(registry: Registry, floor: DiskFloor, background: boolean): void {
  if (background) {
    gaugeOnScrape(
      registry,
      {
        name: 'data_dir_free_bytes',
        help: 'Free bytes on the filesystem holding DATA_DIR (statfs, for unprivileged users)',
      },
      () => floor.reading().freeBytes,
    );
    gaugeOnScrape(
      registry,
      {
        name: 'data_dir_free_floor_bytes',
        help: 'The free-space floor under which uploads, imports and local backups are refused',
      },
      () => floor.reading().floorBytes,
    );
  }
  new Counter({
    name: 'disk_floor_refusals_total',
    help: 'Writes refused because free space on DATA_DIR is under its floor, by operation (upload, import, backup, drill)',
    labelNames: ['operation'],
    registers: [registry],
    collect() {
      const { refusals } = floor.counts();
      this.reset();
      for (const operation of DISK_FLOOR_OPERATIONS) this.inc({ operation }, refusals[operation]);
    },
  });
  counterOnScrape(
    registry,
    { name: 'disk_full_errors_total', help: 'Writes that failed because the disk was full (ENOSPC) despite the floor' },
    () => floor.counts().diskFull,
  );
}
