// Keeps the embedded PostgreSQL running: when the postmaster dies (killed, crashed, out of memory) it is started
// again in the same directory and on the same port, so every pool's URL stays valid; PostgreSQL's crash recovery
// replays the WAL by itself, so no committed write is lost. Restarts back off, and after too many failures within
// the window the supervisor gives up, so that the process can exit for its own supervisor (systemd, Docker).
import { type EmbeddedCluster, type EmbeddedOptions, startEmbeddedPostgres } from './embedded-postgres.js';

export interface RestartPolicy {
  /** Deaths and failed starts within `windowMs` that make the supervisor give up. */
  maxFailures: number;
  windowMs: number;
}

export interface SupervisorOptions extends Omit<EmbeddedOptions, 'onUnexpectedExit'> {
  restart: RestartPolicy;
  /** Loud lines for operators: every death, every restart, the giving up. */
  report: (level: 'info' | 'warn' | 'error', message: string, fields?: Record<string, unknown>) => void;
  /** PostgreSQL could not be kept running; the caller should stop and exit non-zero. */
  onGiveUp: (error: Error) => void;
}

const FIRST_DELAY_MS = 250;
const MAX_DELAY_MS = 10_000;

export async function startSupervisedPostgres(options: SupervisorOptions): Promise<EmbeddedCluster> {
  const { restart, report, onGiveUp, ...embedded } = options;
  const failures: number[] = [];
  let inARow = 0;
  let downSince = 0;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let attempt: Promise<void> | undefined;

  const onUnexpectedExit = (code: number | null, signal: NodeJS.Signals | null) => {
    downSince = Date.now();
    report('error', 'embedded PostgreSQL exited unexpectedly; restarting it', { code, signal, port: current.port });
    failed();
  };
  let current = await startEmbeddedPostgres({ ...embedded, onUnexpectedExit });
  const port = current.port;

  /** Counts a failure, then gives up or schedules the next start. */
  function failed(): void {
    const now = Date.now();
    failures.push(now);
    while (failures.length > 0 && now - failures[0]! > restart.windowMs) failures.shift();
    if (failures.length >= restart.maxFailures) {
      const seconds = Math.round(restart.windowMs / 1000);
      const error = new Error(`embedded PostgreSQL failed ${failures.length} times within ${seconds} s; giving up`);
      report('error', error.message, { port });
      stopped = true;
      onGiveUp(error);
      return;
    }
    const delay = Math.min(MAX_DELAY_MS, FIRST_DELAY_MS * 2 ** inARow);
    inARow++;
    timer = setTimeout(() => {
      attempt = start();
    }, delay);
  }

  async function start(): Promise<void> {
    if (stopped) return;
    try {
      current = await startEmbeddedPostgres({ ...embedded, port, onUnexpectedExit });
      inARow = 0;
      report('warn', 'embedded PostgreSQL restarted', { port, down_ms: Date.now() - downSince });
      // stop() may have come while it started: this instance is the one to stop.
      if (stopped) await current.stop();
    } catch (error) {
      report('error', 'embedded PostgreSQL failed to restart', { port, error: (error as Error).message });
      if (!stopped) failed();
    }
  }

  return {
    url: current.url,
    port,
    dataDir: current.dataDir,
    // Whether the postmaster is down right now (between a death and its restart, or after stop()).
    hasExited: () => current.hasExited(),
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await attempt;
      await current.stop();
    },
  };
}
