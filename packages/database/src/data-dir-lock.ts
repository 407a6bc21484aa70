// One server per DATA_DIR: a second one would start a second postmaster on the same files or race the first.
import { openSync, writeSync, closeSync, readFileSync, unlinkSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { isAlive } from './process-alive.js';

export class DataDirInUseError extends Error {
  constructor(dataDir: string, pid: number) {
    super(
      `DATA_DIR ${dataDir} is in use by another auction-ops server (pid ${pid}); stop it or choose another DATA_DIR`,
    );
    this.name = 'DataDirInUseError';
  }
}

/** Takes the lock or throws DataDirInUseError. A lock left by a dead process is taken over. */
export function lockDataDir(dataDir: string): { release(): void } {
  mkdirSync(dataDir, { recursive: true });
  const file = join(dataDir, 'server.pid');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(file, 'wx', 0o600);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return {
        release() {
          try {
            if (Number(readFileSync(file, 'utf8')) === process.pid) unlinkSync(file);
          } catch {
            /* already gone */
          }
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const pid = Number(readFileSync(file, 'utf8'));
      if (pid && pid !== process.pid && isAlive(pid)) throw new DataDirInUseError(dataDir, pid);
      unlinkSync(file);
    }
  }
  throw new Error(`could not lock DATA_DIR ${dataDir}`);
}
