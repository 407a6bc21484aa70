// A base backup and DATA_DIR's free-space floor: a directory target on DATA_DIR's filesystem asks the floor for
// about the size of DATA_DIR and is refused under it; S3, or a directory on another filesystem, is not asked.
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BackupError } from './backup-errors.js';
import { type BackupSpaceFloor, checkBackupSpace } from './backup-space.js';
import type { BackupTarget } from './backup-target.js';

const MIB = 1024 * 1024;
const root = mkdtempSync(join(tmpdir(), 'backup-space-'));
const dataDir = join(root, 'data');
mkdirSync(join(dataDir, 'storage', 'objects'), { recursive: true });
writeFileSync(join(dataDir, 'storage', 'objects', 'one'), Buffer.alloc(3000));
writeFileSync(join(dataDir, 'jwt-secret'), 'x'.repeat(40));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const dirTarget = (dir: string): BackupTarget => ({ spec: dir, dir, store: {} as never });

function floor(admits: boolean): BackupSpaceFloor & { asked: number[] } {
  const asked: number[] = [];
  return {
    asked,
    admit: (_op, bytes = 0) => {
      asked.push(bytes);
      return admits;
    },
    reading: () => ({ freeBytes: 70 * MIB, floorBytes: 64 * MIB }),
  };
}

describe('checkBackupSpace', () => {
  it('asks the floor for about the size of DATA_DIR when the target shares its filesystem', () => {
    const ok = floor(true);
    checkBackupSpace(dirTarget(join(root, 'backups-not-made-yet')), dataDir, ok);
    expect(ok.asked).toEqual([3040]);
  });

  it('refuses, naming the floor, when the backup would take free space under it', () => {
    const refusing = floor(false);
    let refusal: unknown;
    try {
      checkBackupSpace(dirTarget(join(root, 'backups')), dataDir, refusing);
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(BackupError);
    expect((refusal as Error).message).toMatch(
      /^backup skipped: .* is on DATA_DIR's filesystem, .* under the floor of 67\.1 MB kept for PostgreSQL's WAL/,
    );
  });

  it('does not ask for S3, without a floor, or for a directory on another filesystem', () => {
    const refusing = floor(false);
    checkBackupSpace({ spec: 's3://b/p', store: {} as never }, dataDir, refusing);
    checkBackupSpace(dirTarget(join(root, 'backups')), dataDir, undefined);
    // /dev/shm is a filesystem of its own on Linux (tmpfs); elsewhere this case has nothing to show.
    const shm = '/dev/shm';
    let other = false;
    try {
      other = statSync(shm).dev !== statSync(dataDir).dev;
    } catch {}
    if (other) checkBackupSpace(dirTarget(join(shm, 'backups')), dataDir, refusing);
    expect(refusing.asked).toEqual([]);
  });
});
