// The drill's PostgreSQL at low priority, so that proving a backup does not slow the server it protects: once it
// accepts connections (replay goes on after that), the postmaster and its processes get nice 19 and the idle I/O
// class.
// Archiving is off in it whatever its copied settings say: a drill must never write into the archive it proves.
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type EmbeddedCluster, type EmbeddedOptions, startEmbeddedPostgres } from '@auction-ops/database';

const run = (command: string, args: string[]) =>
  new Promise<string | undefined>((resolve) =>
    execFile(command, args, (error) => resolve(error ? `${command}: ${error.message}` : undefined)),
  );

/** The processes whose parent is `pid` (Linux's /proc; elsewhere none, and renice/ionice are Linux tools anyway). */
function childrenOf(pid: string): string[] {
  let entries: string[];
  try {
    entries = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return [];
  }
  return entries.filter((entry) => {
    try {
      // Field 4 of /proc/<pid>/stat, after the command name in parentheses (which may hold spaces).
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1] === pid;
    } catch {
      return false; // gone meanwhile
    }
  });
}

/**
 * Lowers the CPU and I/O priority of the postmaster and the processes it has forked (each leads its own process
 * group, so they are named one by one); backends it forks later inherit both. What could not be lowered is returned.
 */
async function lowerPriority(pgdata: string): Promise<string[]> {
  const pid = readFileSync(join(pgdata, 'postmaster.pid'), 'utf8').split('\n')[0]!.trim();
  const pids = [pid, ...childrenOf(pid)];
  const problems = await Promise.all([
    run('renice', ['-n', '19', '-p', ...pids]),
    run('ionice', ['-c', '3', '-p', ...pids]),
  ]);
  return problems.filter((p): p is string => p !== undefined);
}

export function lowPriorityStarter(log: (message: string) => void) {
  return async (options: EmbeddedOptions): Promise<EmbeddedCluster> => {
    const cluster = await startEmbeddedPostgres({ ...options, settings: { ...options.settings, archive_mode: 'off' } });
    const problems = await lowerPriority(cluster.dataDir).catch((error: Error) => [error.message]);
    // Not a reason to fail the drill: it still proves the backup, at the normal priority.
    if (problems.length) log(`could not lower the drill's PostgreSQL priority: ${problems.join('; ')}`);
    return cluster;
  };
}
