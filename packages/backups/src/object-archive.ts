// Continuous archiving of stored objects: every version the storage backend stores is copied to the target's
// objects/ as it is written (before the row naming it commits), so a restore to any instant has the bytes of
// every object its database names. Versions are never overwritten, so the archive only ever grows (until pruned).
import {
  createWriteStream,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { StorageBackend } from '@auction-ops/storage';
import type { BackupTarget } from './backup-target.js';
import { copyWithChecksum, hashingTap } from './checksum.js';
import { errors } from './backup-errors.js';

export type ArchiveLog = (message: string, fields: Record<string, unknown>) => void;

async function archiveVersion(backend: StorageBackend, target: BackupTarget, key: string): Promise<void> {
  const [bucket, version] = key.split('/') as [string, string];
  const dir = join(target.root, 'objects', bucket);
  mkdirSync(dir, { recursive: true });
  const file = join(dir, version);
  const tap = hashingTap();
  await pipeline(await backend.get(key), tap.stream, createWriteStream(`${file}.partial`));
  writeFileSync(`${file}.sha256`, `${tap.result().sha256}\n`);
  renameSync(`${file}.partial`, file);
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
  const root = join(target.root, 'objects');
  if (!existsSync(root)) return 0;
  let count = 0;
  for (const bucket of readdirSync(root)) {
    for (const name of readdirSync(join(root, bucket))) {
      if (name.endsWith('.sha256') || name.endsWith('.partial')) continue;
      const dir = join(dataDir, 'storage', 'objects', bucket, name.slice(0, 2));
      if (existsSync(join(dir, name))) continue;
      mkdirSync(dir, { recursive: true });
      const copied = await copyWithChecksum(join(root, bucket, name), join(dir, name));
      const recorded = readFileSync(join(root, bucket, `${name}.sha256`), 'utf8').trim();
      if (copied.sha256 !== recorded) throw errors.damaged(backupId, `archived object ${bucket}/${name}`);
      count++;
    }
  }
  return count;
}
