// Directories of a backup target, made one level at a time. Node's recursive mkdir never returns under some pseudo
// file systems: under /proc/sys it gets ENOENT, finds the parent there, and tries again without end (seen:
// `backup create --target /proc/sys/x` spun a core until killed). One level at a time, the first refusal answers.
import { existsSync, mkdirSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';

/** The directories of `path` that do not exist yet, outermost first. */
function missingDirs(path: string): string[] {
  const missing: string[] = [];
  for (let dir = resolve(path); !existsSync(dir) && dirname(dir) !== dir; dir = dirname(dir)) missing.unshift(dir);
  return missing;
}

const exists = (error: unknown) => (error as NodeJS.ErrnoException).code === 'EEXIST';

export function makeDirsSync(path: string): void {
  for (const dir of missingDirs(path)) {
    try {
      mkdirSync(dir);
    } catch (error) {
      if (!exists(error)) throw error;
    }
  }
}

export async function makeDirs(path: string): Promise<void> {
  for (const dir of missingDirs(path))
    await mkdir(dir).catch((error: unknown) => {
      if (!exists(error)) throw error;
    });
}
