// An earlier release checked out and installed beside this checkout: a detached git worktree at the release's
// commit with its own node_modules, so its server runs exactly as that release shipped (its own build, its own
// migrations). Removed with `git worktree remove --force`, which also forgets it in the repository.
import { execFile } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { Launch } from '../../test/support/release-process.js';

const run = promisify(execFile);
export const REPO = fileURLToPath(new URL('../../../../', import.meta.url));

export interface OldRelease {
  dir: string;
  version: string;
  /** Its `pnpm start` (bin/start.mjs since 0.1.0; before it, `node --import tsx src/main.ts` in apps/server). */
  launch: Launch;
  /** Its `auction-ops` command. */
  cliBin: string;
  /** Milliseconds the checkout and install took. */
  buildMs: number;
  remove(): Promise<void>;
}

export async function checkOutRelease(commit: string): Promise<OldRelease> {
  const started = performance.now();
  const parent = mkdtempSync(join(tmpdir(), 'auction-ops-old-release-'));
  // Run as root, the embedded PostgreSQL runs as the postgres user, which must reach the checkout's binaries.
  chmodSync(parent, 0o755);
  const dir = join(parent, 'checkout');
  const remove = async () => {
    await run('git', ['worktree', 'remove', '--force', dir], { cwd: REPO }).catch(() => {});
    rmSync(parent, { recursive: true, force: true });
  };
  try {
    await run('git', ['worktree', 'add', '--detach', dir, commit], { cwd: REPO });
    await run('npx', ['-y', 'pnpm@10', 'install', '--frozen-lockfile', '--prefer-offline'], {
      cwd: dir,
      env: { ...process.env, CI: 'true' },
      maxBuffer: 64 * 1024 * 1024,
    });
  } catch (error) {
    await remove();
    throw error;
  }
  const version = JSON.parse(readFileSync(join(dir, 'apps/server/package.json'), 'utf8')).version as string;
  return {
    dir,
    version,
    launch: existsSync(join(dir, 'apps/server/bin/start.mjs'))
      ? join(dir, 'apps/server/bin/start.mjs')
      : { args: ['--import', 'tsx', 'src/main.ts'], cwd: join(dir, 'apps/server') },
    cliBin: join(dir, 'apps/cli/bin/auction-ops.js'),
    buildMs: performance.now() - started,
    remove,
  };
}
