// BACKUP_KEEP: removes base backups past the newest N, and what only they needed: archived WAL older than the
// oldest kept backup's start, and archived object versions stored before it started (any object a kept backup's
// restore can name was in that backup's own files, or was written after it started).
import type { BackupTarget } from './backup-target.js';
import { listBackups } from './backup-manifest.js';

export interface PruneResult {
  backups: string[];
  walSegments: number;
  objects: number;
}

/** The segment's position in the WAL stream, without its timeline (history files have none: never pruned). */
const segmentNumber = (name: string) => (/^[0-9A-F]{24}$/.test(name) ? name.slice(8) : undefined);

export async function pruneBackups(target: BackupTarget, keep: number): Promise<PruneResult> {
  const backups = await listBackups(target);
  const removed = backups.slice(0, Math.max(0, backups.length - keep));
  const oldestKept = backups[removed.length];
  const result: PruneResult = { backups: removed.map((b) => b.id), walSegments: 0, objects: 0 };
  if (!oldestKept) return result;
  // The backups first: a crash half-way leaves extra archive, never a listed backup missing its WAL.
  for (const backup of removed) await target.store.removePrefix(`backups/${backup.id}`);
  const first = segmentNumber(oldestKept.start_wal)!;
  for (const name of await target.store.list('wal')) {
    const number = segmentNumber(name.replace(/\.sha256$/, ''));
    if (number === undefined || number >= first) continue;
    await target.store.removePrefix(`wal/${name}`);
    if (!name.endsWith('.sha256')) result.walSegments++;
  }
  const startedMs = Date.parse(oldestKept.started_at);
  for (const { key, modifiedMs } of await target.store.entries('objects')) {
    if (modifiedMs >= startedMs) continue;
    await target.store.removePrefix(`objects/${key}`);
    if (!key.endsWith('.sha256')) result.objects++;
  }
  return result;
}
