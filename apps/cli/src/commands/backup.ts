// `auction-ops backup create|list|restore|drill`: thin over @auction-ops/backups (docs/backups.md).
import { join, resolve } from 'node:path';
import {
  backupErrors,
  createBackup,
  ensureWritable,
  listBackups,
  pruneBackups,
  resolveTarget,
  restoreBackup,
  runRestoreDrill,
  summaryOf,
  type BackupSummary,
} from '@auction-ops/backups';
import { targetOverlap } from '@auction-ops/backups/target-overlap';
import { startDiskFloor } from '@auction-ops/database';
import { loadConfig } from '@auction-ops/server-config';
import { createFsBackend } from '@auction-ops/storage';
import { openDatabase } from '../database.js';
import { parseCommandArgs } from '../command-args.js';
import { UsageError } from './super-admin.js';

const USAGE = `usage: auction-ops backup create [--target T] [--json]
       auction-ops backup list [--target T] [--json]
       auction-ops backup restore <id|latest> --data-dir DIR [--to-time ISO-8601] [--target T] [--json]
       auction-ops backup drill [--target T] [--json]`;

const OPTIONS = {
  target: { type: 'string' },
  json: { type: 'boolean', default: false },
  'data-dir': { type: 'string' },
  'to-time': { type: 'string' },
} as const;

const megabytes = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
const line = (b: BackupSummary) => `${b.id}\t${b.finished_at}\t${megabytes(b.bytes)}`;

export async function backupCommand(args: string[]): Promise<void> {
  const { values, positionals } = parseCommandArgs(args, OPTIONS, USAGE);
  const [action, id, ...extra] = positionals;
  const config = loadConfig();
  if (config.DATABASE_URL) throw backupErrors.externalDatabase();
  const target = resolveTarget(values.target ?? config.BACKUP_TARGET);
  // The configured pair is checked at loadConfig; --target and --data-dir are checked here.
  const overlap =
    action === 'restore'
      ? values['data-dir'] && targetOverlap(values['data-dir'], target.spec, '--data-dir')
      : targetOverlap(config.DATA_DIR, target.spec);
  if (overlap) throw new UsageError(`${overlap}; keep them apart`);
  const print = (json: unknown, human: string) => console.log(values.json ? JSON.stringify(json, null, 2) : human);
  if (action === 'create' && !id) {
    await ensureWritable(target); // before a cluster is started for nothing
    const db = await openDatabase();
    try {
      const manifest = await createBackup({ ownerUrl: db.ownerUrl, dataDir: config.DATA_DIR, target });
      // BACKUP_KEEP applies to backups taken by hand too: older ones and what only they need are pruned.
      const pruned = config.BACKUP_KEEP ? await pruneBackups(target, config.BACKUP_KEEP) : undefined;
      const note = pruned?.backups.length ? `; pruned ${pruned.backups.join(', ')}` : '';
      print(
        { ...summaryOf(manifest), pruned: pruned?.backups ?? [] },
        `backup ${line(summaryOf(manifest))} in ${target.spec}${note}`,
      );
    } finally {
      await db.close();
      target.store.close();
    }
  } else if (action === 'list' && !id) {
    const backups = (await listBackups(target)).map(summaryOf);
    print(backups, backups.length ? backups.map(line).join('\n') : `no backups in ${target.spec}`);
  } else if (action === 'restore' && id && values['data-dir'] && extra.length === 0) {
    const dataDir = resolve(values['data-dir']);
    // Progress on stderr: stdout keeps the result alone (--json).
    const log = (message: string) => console.error(message);
    const restored = await restoreBackup({ target, id, dataDir, toTime: values['to-time'], log });
    const as = restored.to_time ? ` as of ${restored.to_time}` : ' with every archived change';
    print(
      restored,
      `restored backup ${restored.id}${as} into ${dataDir}; start it with DATA_DIR=${dataDir} pnpm start`,
    );
  } else if (action === 'drill' && !id) {
    const db = await openDatabase();
    const floor = await startDiskFloor({ path: config.DATA_DIR, floorMb: config.DISK_FREE_FLOOR_MB });
    // Objects are compared with the filesystem backend's bytes; on S3, with the digests the archive recorded.
    const objects = config.STORAGE_BACKEND === 's3' ? undefined : createFsBackend(join(config.DATA_DIR, 'storage'));
    try {
      const result = await runRestoreDrill({
        target,
        ownerUrl: db.ownerUrl,
        dataDir: config.DATA_DIR,
        scratchParent: config.BACKUP_DRILL_DIR,
        floor,
        jwtSecret: config.JWT_SECRET,
        sourceObject: objects && ((key) => objects.get(key)),
        log: (message) => console.error(message),
      });
      const took = 'duration_seconds' in result ? ` in ${result.duration_seconds} s` : '';
      print(result, `restore drill ${result.outcome}${took}: ${result.reason}`);
      // Only a pass proves the backups: a failure, a skip or another drill running exits 1.
      if (result.outcome !== 'passed') process.exitCode = 1;
    } finally {
      floor.stop();
      await db.close();
      target.store.close();
    }
  } else {
    throw new UsageError(USAGE);
  }
}
