// `auction-ops db upgrade [--old-bin-dir DIR] [--backup-target T | --no-backup]`: carries the embedded cluster of an
// older PostgreSQL major to this release's (@auction-ops/database upgradeCluster), keeping the old directory.
import { resolve } from 'node:path';
import { continuousArchiving } from '@auction-ops/backups';
import { upgradeCluster, upgradeErrors } from '@auction-ops/database';
import { migrationSets } from '@auction-ops/server-config/migration-sets';
import { loadConfig } from '@auction-ops/server-config';
import { firstBackup, newBackupTarget } from './db-upgrade-backup.js';

interface UpgradeArgs {
  oldBinDir?: string;
  backupTarget?: string;
  noBackup: boolean;
}

export async function dbCommand(args: UpgradeArgs): Promise<void> {
  const config = loadConfig();
  if (config.DATABASE_URL) throw upgradeErrors.external();
  const target = await newBackupTarget(config, args.backupTarget, args.noBackup);
  // Ctrl-C stops the upgrade in order (clusters stopped, data.upgrading removed); a second one kills at once.
  const interrupted = new AbortController();
  const onSigint = () => {
    console.log('interrupted: stopping both clusters and removing the new one; DATA_DIR stays as it was');
    process.off('SIGINT', onSigint);
    interrupted.abort(upgradeErrors.interrupted());
  };
  process.on('SIGINT', onSigint);
  const result = await upgradeCluster({
    signal: interrupted.signal,
    dataDir: config.DATA_DIR,
    migrationSets,
    oldBinDir: args.oldBinDir && resolve(args.oldBinDir),
    // The old cluster archives while it runs, as any cluster a command starts: its last segments reach the archive.
    oldSettings: continuousArchiving(config),
    log: (line) => console.log(line),
  }).finally(() => process.off('SIGINT', onSigint));
  console.log(
    `upgraded PostgreSQL ${result.oldMajor} -> ${result.newMajor}: ${result.tables} tables, ${result.rows} rows ` +
      `in ${result.seconds} s\nthe old cluster is kept in ${result.keptDir}: delete it once the server runs well ` +
      'on the new one and a backup of it exists (see docs/operations.md, "PostgreSQL major versions")',
  );
  if (!target) return;
  console.log(`taking a base backup of the upgraded cluster into ${target.spec}`);
  console.log(await firstBackup(config, target));
  console.log(
    `set BACKUP_TARGET=${target.spec} before starting the server: WAL archives do not continue across majors`,
  );
}
