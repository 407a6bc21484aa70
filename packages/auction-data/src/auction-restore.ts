// Restore of ONE auction to a point in time: the newest base backup before that time is restored (with the WAL
// archive, packages/backups) into a scratch directory, started as a temporary cluster (no archiving), the auction
// is exported from it, and that archive replaces the auction's current rows in one transaction (auction-import.ts).
// Other auctions are not read or written.
import { randomBytes } from 'node:crypto';
import { chmodSync, createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import postgres from 'postgres';
import { backupErrors, type BackupTarget, listBackups, newestEndedBy, restoreBackup } from '@auction-ops/backups';
import { parseIsoInstant } from '@auction-ops/backups/iso-instant';
import { startEmbeddedPostgres } from '@auction-ops/database';
import { createFsBackend, type StorageBackend } from '@auction-ops/storage';
import { errors } from './auction-data-errors.js';
import { exportAuction, resolveAuction } from './auction-export.js';
import { replaceAuction } from './auction-import.js';
import type { LossReport } from './loss-report.js';

export interface RestoreAuctionOptions {
  /** Owner URL of the live database. */
  url: string;
  backend: Pick<StorageBackend, 'put' | 'remove'>;
  spoolDir: string;
  target: BackupTarget;
  /** Slug or id. */
  auction: string;
  /** ISO-8601. */
  toTime: string;
  /** Where the scratch cluster is restored (removed afterwards). */
  scratchRoot: string;
  confirm: (report: LossReport) => Promise<boolean>;
  progress?: (message: string) => void;
}

export interface RestoreAuctionResult {
  auction: { id: string; slug: string };
  backup_id: string;
  to_time: string;
  report: LossReport;
  quietRealtime: boolean;
}

export async function restoreAuction(options: RestoreAuctionOptions): Promise<RestoreAuctionResult> {
  const log = options.progress ?? (() => {});
  // Checked before the database is read: `yesterday` is a mistake to name, not a time before every backup.
  const time = parseIsoInstant(options.toTime);
  if (!time) throw backupErrors.badTime(options.toTime);
  const live = postgres(options.url, { max: 1, onnotice: () => {} });
  let auction: { id: string; slug: string };
  try {
    auction = await resolveAuction(live, options.auction);
  } finally {
    await live.end();
  }
  const backup = newestEndedBy(await listBackups(options.target), time);
  if (!backup) throw errors.noBackupBefore(time.toISOString());

  const scratch = mkdtempSync(join(options.scratchRoot, 'auction-restore-'));
  // As root, the restored PostgreSQL runs as its own user: it must reach the scratch directory.
  chmodSync(scratch, 0o711);
  try {
    const dataDir = join(scratch, 'data');
    log(`restoring backup ${backup.id} to ${time.toISOString()} into ${scratch}`);
    await restoreBackup({ target: options.target, id: backup.id, dataDir, toTime: time.toISOString(), log });
    const archive = join(scratch, 'auction.archive');
    // Secrets travel too (the endpoints that come back keep signing), sealed with a passphrase that never leaves
    // this process.
    const passphrase = randomBytes(24).toString('base64url');
    const cluster = await startEmbeddedPostgres({ dir: join(dataDir, 'postgres') });
    const old = postgres(cluster.url, { max: 2, onnotice: () => {} });
    const oldObjects = createFsBackend(join(dataDir, 'storage'));
    try {
      log('exporting the auction as it was');
      await exportAuction({
        sql: old,
        backend: oldObjects,
        auction: auction.id,
        out: createWriteStream(archive),
        secretsPassphrase: passphrase,
        progress: (m) => log(`  then: ${m}`),
      });
    } finally {
      await old.end({ timeout: 5 });
      await oldObjects.close();
      await cluster.stop();
    }
    const { report, quietRealtime } = await replaceAuction({
      url: options.url,
      backend: options.backend,
      spoolDir: options.spoolDir,
      file: archive,
      passphrase,
      auctionId: auction.id,
      confirm: options.confirm,
      progress: log,
      event: {
        id: auction.id,
        slug: auction.slug,
        restored_to: time.toISOString(),
        backup_id: backup.id,
        restored_at: new Date().toISOString(),
      },
    });
    return { auction, backup_id: backup.id, to_time: time.toISOString(), report, quietRealtime };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
