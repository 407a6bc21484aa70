// The background sweep of abandoned resumable uploads: every interval, uploads past their expiry are removed
// with their parts. Several instances may run it at once (the store deletes with SKIP LOCKED).
import type { StorageLog } from '../storage-backend.js';
import type { TusUploadService } from './tus-upload-service.js';

export interface TusSweepSchedule {
  /** The sweep in progress or the last one (tests wait on it). */
  readonly last: Promise<number>;
  stop(): Promise<void>;
}

/** Sweeps every `intervalMs` (0: never), one sweep at a time. */
export function scheduleTusSweep(tus: TusUploadService, intervalMs: number, log: StorageLog): TusSweepSchedule {
  let last: Promise<number> = Promise.resolve(0);
  let running = false;
  const run = () => {
    if (running) return;
    running = true;
    last = tus
      .sweepExpired()
      .then((removed) => {
        if (removed) log('storage: removed expired resumable uploads', { count: removed });
        return removed;
      })
      .catch((error: unknown) => {
        log('storage: resumable upload sweep failed', {
          error: error instanceof Error ? error.message : String(error),
        });
        return 0;
      })
      .finally(() => {
        running = false;
      });
  };
  const timer = intervalMs > 0 ? setInterval(run, intervalMs) : undefined;
  timer?.unref();
  return {
    get last() {
      return last;
    },
    async stop() {
      clearInterval(timer);
      await last;
    },
  };
}
