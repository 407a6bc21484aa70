// Continuous archiving of stored objects: every version the storage backend stores is copied to the target's
// objects/ as it is written (before the row naming it commits), so a restore to any instant has the bytes of
// every object its database names. Versions are never overwritten, so the archive only grows until pruned.
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { StorageBackend } from '@auction-ops/storage';
import type { BackupTarget } from './backup-target.js';
import { errors } from './backup-errors.js';

export type ArchiveLog = (message: string, fields: Record<string, unknown>) => void;

async function archiveVersion(backend: StorageBackend, target: BackupTarget, key: string): Promise<void> {
  const stored = await target.store.putStream(`objects/${key}`, await backend.get(key));
  await target.store.putText(`objects/${key}.sha256`, `${stored.sha256}\n`);
}

/**
 * The backend with archiving added. A failing target does not fail the upload (writes must not stop because a
 * backup disk is away): it is logged as an error, and the next base backup holds the object anyway.
 */
export function archivingBackend(backend: StorageBackend, target: BackupTarget, log: ArchiveLog): StorageBackend {
  const archive = async (key: string) => {
    try {
      await archiveVersion(backend, target, key);
    } catch (error) {
      log('backup: could not archive a stored object; it is covered again by the next base backup', {
        key,
        target: target.spec,
        error: (error as Error).message,
      });
    }
  };
  return {
    ...backend,
    kind: backend.kind,
    async put(key, file, info) {
      await backend.put(key, file, info);
      await archive(key);
    },
    async copy(from, to) {
      await backend.copy(from, to);
      await archive(to);
    },
  };
}

/** Copies every archived object version into a restored DATA_DIR (the filesystem backend's layout), verified. */
export async function restoreObjects(target: BackupTarget, dataDir: string, backupId: string): Promise<number> {
  let count = 0;
  for (const key of await target.store.list('objects')) {
    const [bucket, version] = key.split('/') as [string, string];
    if (!version || version.endsWith('.sha256')) continue;
    const dir = join(dataDir, 'storage', 'objects', bucket, version.slice(0, 2));
    if (existsSync(join(dir, version))) continue;
    mkdirSync(dir, { recursive: true });
    const copied = await target.store.getFile(`objects/${key}`, join(dir, version));
    const recorded = (await target.store.getText(`objects/${key}.sha256`))?.trim();
    if (!copied || copied.sha256 !== recorded) throw errors.damaged(backupId, `archived object ${key}`);
    count++;
  }
  return count;
}
