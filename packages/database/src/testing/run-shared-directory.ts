// A directory built once per test run and copied for each file that asks: a DATA_DIR whose embedded cluster is
// initialised and migrated costs a server start about 10 s on CI's 2-core machine (initdb and every migration),
// a copy of it a second or two. The first file to ask builds it; files in other workers wait for it. It lives in
// the run's temporary directory (global-setup.ts), removed with the run's cluster.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { inject } from 'vitest';

const run = promisify(execFile);

/** How long a file waits for another worker's build: initdb and every migration on a loaded machine, with room. */
const BUILD_DEADLINE_MS = 180_000;

/**
 * Copies the run's directory `name` into `into` (an empty directory), building it first with `build` (given an
 * empty directory) if no file of the run has. Ownership and modes are kept (`cp -a`): an embedded cluster's files
 * belong to the user PostgreSQL runs as when the tests run as root.
 */
export async function copyRunSharedDirectory(
  name: string,
  build: (dir: string) => Promise<void>,
  into: string,
): Promise<void> {
  const root = dirname(inject('pgClusterFile'));
  const done = join(root, `shared-${name}`);
  const failed = `${done}.error`;
  if (!existsSync(done) && !existsSync(failed)) await buildOnce(done, failed, build);
  const deadline = Date.now() + BUILD_DEADLINE_MS;
  while (!existsSync(done)) {
    if (existsSync(failed)) throw new Error(`building the run's ${name} failed:\n${readFileSync(failed, 'utf8')}`);
    if (Date.now() > deadline) throw new Error(`the run's ${name} was not built within ${BUILD_DEADLINE_MS / 1000} s`);
    await new Promise((r) => setTimeout(r, 100));
  }
  await run('cp', ['-a', `${done}/.`, into]);
}

/** Builds the directory if this process is the first to claim it (mkdir is atomic across processes). */
async function buildOnce(done: string, failed: string, build: (dir: string) => Promise<void>): Promise<void> {
  try {
    mkdirSync(`${done}.claimed`);
  } catch {
    return; // another worker builds it
  }
  const building = `${done}.building`;
  try {
    mkdirSync(building);
    await build(building);
    renameSync(building, done);
  } catch (error) {
    writeFileSync(failed, error instanceof Error ? (error.stack ?? error.message) : String(error));
    rmSync(building, { recursive: true, force: true });
  }
}
