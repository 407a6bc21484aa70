// As root the embedded PostgreSQL runs as a system user of its own (embedded-postgres.ts), which must be able to pass
// through every directory above its cluster. One it cannot pass (a `mktemp -d` directory is mode 700) made postgres
// exit at start with nothing but "see the log" to say why: the check names the directory instead, before anything
// is written.
import { execFileSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

interface SystemUser {
  uid: number;
  gid: number;
}

export class UnreachableDirectoryError extends Error {
  override name = 'UnreachableDirectoryError';
}

/** Every group of `user` (its primary and its supplementary ones): a directory's group grants through any. */
function groupsOf(user: SystemUser): Set<number> {
  try {
    const name = execFileSync('id', ['-nu', String(user.uid)], { encoding: 'utf8' }).trim();
    return new Set(execFileSync('id', ['-G', name], { encoding: 'utf8' }).trim().split(/\s+/).map(Number));
  } catch {
    return new Set([user.gid]);
  }
}

/**
 * The nearest directory at or above `path` that `user` may not pass through (no search permission for it), if
 * any. Directories that do not exist yet are skipped: they will be made by the caller, for the user.
 */
export function untraversableAncestor(path: string, user: SystemUser): string | undefined {
  const groups = groupsOf(user);
  const found: string[] = [];
  for (let dir = resolve(path); ; dir = dirname(dir)) {
    let stat: { mode: number; uid: number; gid: number } | undefined;
    try {
      stat = statSync(dir);
    } catch {
      stat = undefined;
    }
    if (stat) {
      const bit = stat.uid === user.uid ? 0o100 : groups.has(stat.gid) ? 0o010 : 0o001;
      if ((stat.mode & bit) === 0) found.push(dir);
    }
    if (dirname(dir) === dir) break;
  }
  // The one nearest the root is the first in the way.
  return found.at(-1);
}

/** Throws, naming the directory in the way, when `user` cannot reach `path`. */
export function assertReachable(path: string, user: SystemUser, who = 'PostgreSQL'): void {
  const blocked = untraversableAncestor(path, user);
  if (!blocked) return;
  const mode = (statSync(blocked).mode & 0o777).toString(8);
  throw new UnreachableDirectoryError(
    `${who} runs as the system user with uid ${user.uid}, which cannot pass through ${blocked} (mode ${mode}) to ` +
      `reach ${resolve(path)}: let it through (chmod o+x ${blocked}) or choose a directory outside it`,
  );
}
