// A process's children, read from /proc: the server cluster's workers for the tests and for `pnpm bench day`.
import { readdirSync, readFileSync } from 'node:fs';

/**
 * Pids whose parent is `parent`, oldest pid first. With `sameCommand`, only those running the parent's own command
 * line: node:cluster forks its workers with it, while what else a server starts differs (PostgreSQL, esbuild, the
 * PostgreSQL watchdog, which is Node too but renames itself). A command's name will not do: Node 24 calls its main
 * thread `MainThread` where Node 20 said `node`.
 */
export function childPids(parent: number, { sameCommand = false } = {}): number[] {
  const command = (pid: number | string) => readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  let own: string | undefined;
  try {
    own = sameCommand ? command(parent) : undefined;
  } catch {
    return []; // the parent is gone, and its children with it or adopted by another
  }
  const out: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const [, rest] = /^\d+ \(.*\) (.*)$/s.exec(readFileSync(`/proc/${name}/stat`, 'utf8')) ?? [];
      if (Number(rest?.split(' ')[1]) !== parent) continue;
      if (own === undefined || command(name) === own) out.push(Number(name));
    } catch {
      // gone meanwhile
    }
  }
  return out.sort((a, b) => a - b);
}

/** The workers of a cluster whose primary is `primary`. */
export const workerPids = (primary: number): number[] => childPids(primary, { sameCommand: true });
