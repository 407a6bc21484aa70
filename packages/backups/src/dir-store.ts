// A backup target in a local (or mounted) directory. Files appear under their final name only when complete.
import { existsSync } from 'node:fs';
import { readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import type { BackupStore } from './backup-store.js';
import { copyWithChecksum, streamToFile } from './checksum.js';
import { makeDirs } from './target-dirs.js';

export function createDirStore(spec: string, root: string): BackupStore {
  const pathOf = (key: string) => join(root, key);
  const placed = async <T>(key: string, write: (temp: string) => Promise<T>): Promise<T> => {
    await makeDirs(dirname(pathOf(key)));
    const temp = `${pathOf(key)}.partial`;
    const result = await write(temp);
    await rename(temp, pathOf(key));
    return result;
  };
  const list = async (prefix: string) => {
    const dir = pathOf(prefix);
    const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
    return entries
      .filter((entry) => entry.isFile() && !entry.name.endsWith('.partial'))
      .map((entry) => relative(dir, join(entry.parentPath, entry.name)));
  };
  return {
    spec,
    putFile: (key, from) => placed(key, (temp) => copyWithChecksum(from, temp)),
    putStream: (key, from) => placed(key, (temp) => streamToFile(from, temp)),
    putText: (key, text) => placed(key, (temp) => writeFile(temp, text, { mode: 0o600 })),
    async getFile(key, to) {
      if (!existsSync(pathOf(key))) return undefined;
      return copyWithChecksum(pathOf(key), to);
    },
    getText: (key) => readFile(pathOf(key), 'utf8').catch(() => undefined),
    list,
    async entries(prefix) {
      const keys = await list(prefix);
      const times = await Promise.all(
        keys.map((key) =>
          stat(join(pathOf(prefix), key)).then(
            (s) => s.mtimeMs,
            () => 0,
          ),
        ),
      );
      return keys.map((key, i) => ({ key, modifiedMs: times[i] }));
    },
    removePrefix: (prefix) => rm(pathOf(prefix), { recursive: true, force: true }),
    close() {},
  };
}
