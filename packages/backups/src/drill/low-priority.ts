// The drill's PostgreSQL at low priority, so that proving a backup does not slow the server it protects: once it
// accepts connections (replay goes on after that), its whole process group gets nice 19 and the idle I/O class.
// Archiving is off in it whatever its copied settings say: a drill must never write into the archive it proves.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type EmbeddedCluster, type EmbeddedOptions, startEmbeddedPostgres } from '@auction-ops/database';

const run = (command: string, args: string[]) =>
  new Promise<string | undefined>((resolve) =>
    execFile(command, args, (error) => resolve(error ? `${command}: ${error.message}` : undefined)),
  );

/** Lowers the CPU and I/O priority of the postmaster's process group; what could not be lowered is returned. */
async function lowerPriority(pgdata: string): Promise<string[]> {
  const pid = readFileSync(join(pgdata, 'postmaster.pid'), 'utf8').split('\n')[0]!.trim();
  // The postmaster leads its own process group (started detached): -g / -P reach every backend it forks.
  const problems = await Promise.all([run('renice', ['-n', '19', '-g', pid]), run('ionice', ['-c', '3', '-P', pid])]);
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
