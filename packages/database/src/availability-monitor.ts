// Whether the database answers, known without asking it per request: one connection of its own asks `select 1`
// every interval (four times as often while the database is down) and at once when that connection closes, which is
// how a killed or restarting PostgreSQL shows first. Requests read `up` and answer 503 at once instead of queueing
// on pools that cannot connect.
import postgres from 'postgres';
import { reconnectBackoff } from './reconnect-backoff.js';

export interface AvailabilityMonitor {
  /** The last check's answer (true until a check failed). */
  readonly up: boolean;
  /** The reason of the last failed check while down. */
  readonly reason: string | undefined;
  /**
   * Checks now and says whether the database answered. Joins a check under way; if that one failed, asks once more,
   * since it may have started before the database came back.
   */
  check(): Promise<boolean>;
  close(): Promise<void>;
}

export interface AvailabilityOptions {
  url: string;
  intervalMs: number;
  /** A check that has not answered by then failed. */
  timeoutMs?: number;
  report: (level: 'info' | 'warn' | 'error', message: string, fields?: Record<string, unknown>) => void;
}

export function startAvailabilityMonitor(options: AvailabilityOptions): AvailabilityMonitor {
  const timeoutMs = options.timeoutMs ?? 2000;
  let up = true;
  let reason: string | undefined;
  let downSince = 0;
  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  let checking: Promise<boolean> | undefined;
  const sql = postgres(options.url, {
    max: 1,
    idle_timeout: 0,
    max_lifetime: 0,
    connect_timeout: Math.ceil(timeoutMs / 1000),
    backoff: reconnectBackoff,
    fetch_types: false,
    onnotice: () => {},
    connection: { application_name: 'auction-ops-check' },
    // A closed connection while up is the first sign of a dead server; check now rather than at the next tick.
    onclose: () => {
      if (up && !closed) void check();
    },
  });

  function check(): Promise<boolean> {
    if (closed) return Promise.resolve(up);
    checking ??= ask().finally(() => {
      checking = undefined;
      schedule();
    });
    return checking;
  }

  async function ask(): Promise<boolean> {
    let timeout: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        sql`select 1`,
        new Promise((_, reject) => {
          // The timeout counts only time this process had. On a busy host it may get no CPU for a while: then the
          // query may not have gone out, or its answer waits in the socket while timers, which the event loop runs
          // before reading sockets, are already due. Taken as down, the database would be declared unreachable and
          // requests answered 503 for nothing. A timer that fired late is armed again (a few times at most); an
          // expiry is judged after that turn's reads.
          let armedAt = performance.now();
          let rearms = 0;
          const expire = () => {
            if (performance.now() - armedAt > timeoutMs * 1.5 && rearms++ < 3) {
              armedAt = performance.now();
              timeout = setTimeout(expire, timeoutMs);
              return;
            }
            setImmediate(() => reject(new Error(`no answer within ${timeoutMs} ms`)));
          };
          timeout = setTimeout(expire, timeoutMs);
        }),
      ]);
      if (!up) options.report('warn', 'database reachable again', { down_ms: Date.now() - downSince });
      up = true;
      reason = undefined;
    } catch (error) {
      reason = (error as Error).message;
      if (up) {
        downSince = Date.now();
        options.report('error', 'database unreachable; answering 503 until it is back', { error: reason });
      }
      up = false;
    } finally {
      clearTimeout(timeout);
    }
    return up;
  }

  function schedule(): void {
    clearTimeout(timer);
    if (closed) return;
    timer = setTimeout(() => void check(), up ? options.intervalMs : Math.ceil(options.intervalMs / 4));
    timer.unref();
  }

  // At once: the check's connection is then open, and its closing is noticed from the start.
  void check();
  return {
    get up() {
      return up;
    },
    get reason() {
      return reason;
    },
    async check() {
      const joined = checking !== undefined;
      const answer = await check();
      return answer || !joined ? answer : check();
    },
    async close() {
      closed = true;
      clearTimeout(timer);
      await sql.end({ timeout: 1 });
    },
  };
}
