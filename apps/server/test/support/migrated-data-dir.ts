// A DATA_DIR whose embedded cluster is initialised and migrated, for tests whose subject is not a first start
// (signals, restarts, backups): a copy of one built once per run by `auction-ops migrate` (the run's shared
// directory, @auction-ops/database/testing), not initdb and every migration again for each server.
import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { copyRunSharedDirectory } from '@auction-ops/database/testing';

const run = promisify(execFile);
const CLI = fileURLToPath(new URL('../../../cli/bin/auction-ops.js', import.meta.url));

/** A new DATA_DIR (under the system's temporary directory, named with `prefix`) holding a migrated cluster. */
export async function migratedDataDir(prefix: string): Promise<string> {
  const dataDir = mkdtempSync(join(tmpdir(), prefix));
  await copyRunSharedDirectory('migrated-data-dir', (dir) => migrate(dir), dataDir);
  return dataDir;
}

async function migrate(dir: string): Promise<void> {
  // The copies get their own keys: the secrets file is made at each copy's first start, not shared.
  await run(process.execPath, [CLI, 'migrate'], { env: { ...process.env, DATA_DIR: dir }, timeout: 170_000 });
}
