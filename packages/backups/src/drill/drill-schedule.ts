// BACKUP_DRILL_INTERVAL: a restore drill every so often, counted from the last one recorded in the target (so a
// server restarted daily still drills), never overlapping itself. The first drill of a target with no record waits
// one interval from the start: a server that has just started has nothing proven to lose by waiting.
import type { BackupTarget } from '../backup-target.js';
import { readDrillRecord } from './drill-record.js';
import type { DrillResult } from './restore-drill.js';

interface DrillScheduleOptions {
  intervalMs: number;
  target: BackupTarget;
  drill: () => Promise<DrillResult>;
  onDone: (result: DrillResult) => void;
  onError: (error: Error) => void;
}

/** A due drill waits at least this long after the start, so that it does not compete with the start itself. */
const AFTER_START_MS = 60_000;
/** setTimeout's limit (about 24.8 days): a longer wait is taken in steps. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export function scheduleDrills(options: DrillScheduleOptions): { stop(): Promise<void> } {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let stopped = false;
  const wait = (dueAt: number) => {
    if (stopped) return;
    const delay = Math.max(0, dueAt - Date.now());
    timer = setTimeout(() => (Date.now() >= dueAt ? void run() : wait(dueAt)), Math.min(delay, MAX_TIMER_MS));
    timer.unref();
  };
  const run = async () => {
    running = options.drill().then(options.onDone, options.onError);
    await running;
    running = undefined;
    wait(Date.now() + options.intervalMs);
  };
  void readDrillRecord(options.target)
    .catch(() => undefined)
    .then((last) => {
      const fromLast = last ? Date.parse(last.started_at) + options.intervalMs : Date.now() + options.intervalMs;
      wait(Math.max(fromLast, Date.now() + AFTER_START_MS));
    });
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
