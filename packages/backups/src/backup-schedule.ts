// BACKUP_SCHEDULE: unattended base backups on a cron schedule (croner), each followed by pruning to BACKUP_KEEP.
// A run still going when the next is due is not overlapped (croner's protect).
import { Cron } from 'croner';
import type { BackupManifest } from './backup-manifest.js';
import { pruneBackups, type PruneResult } from './backup-prune.js';
import type { BackupTarget } from './backup-target.js';

export interface ScheduleOptions {
  pattern: string;
  keep?: number;
  target: BackupTarget;
  /** Takes one backup (createBackup with the server's cluster and DATA_DIR). */
  backup: () => Promise<BackupManifest>;
  onDone?: (manifest: BackupManifest, pruned?: PruneResult) => void;
  onError: (error: Error) => void;
}

/** The message for a pattern croner refuses, or undefined when it is valid (configuration validation). */
export function cronPatternProblem(pattern: string): string | undefined {
  try {
    new Cron(pattern, { paused: true }).stop();
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

export function scheduleBackups(options: ScheduleOptions): { stop(): Promise<void> } {
  let running: Promise<void> | undefined;
  const run = async () => {
    try {
      const manifest = await options.backup();
      const pruned = options.keep ? await pruneBackups(options.target, options.keep) : undefined;
      options.onDone?.(manifest, pruned);
    } catch (error) {
      options.onError(error as Error);
    }
  };
  const job = new Cron(options.pattern, { protect: true }, () => {
    running = run();
    return running;
  });
  return {
    async stop() {
      job.stop();
      await running;
    },
  };
}
