// What a starting cluster is doing, for the operator watching it. A cluster that was not shut down cleanly (killed,
// a power loss) replays its WAL before it accepts connections, and after a busy hour that takes minutes: the start
// says so beforehand, repeats PostgreSQL's own progress line while it waits, and waits as long as PostgreSQL says it
// is starting up instead of killing a recovery that would have finished.
import { closeSync, existsSync, fstatSync, openSync, readSync } from 'node:fs';
import { join } from 'node:path';
import postgres from 'postgres';

/**
 * pg_control's `state` (DBState): a uint32 after the system identifier (8 bytes), pg_control_version and
 * catalog_version_no (4 each), unchanged in every major from 9.0 to 17. 1 and 2 are the two clean shutdowns.
 */
const STATE_OFFSET = 16;
const SHUT_DOWN = 1;
const SHUT_DOWN_IN_RECOVERY = 2;

/** Whether the cluster in `pgdata` was last shut down cleanly; true for a directory without a cluster. */
export function shutDownCleanly(pgdata: string): boolean {
  const control = join(pgdata, 'global', 'pg_control');
  if (!existsSync(control)) return true;
  const fd = openSync(control, 'r');
  try {
    const bytes = Buffer.alloc(4);
    readSync(fd, bytes, 0, 4, STATE_OFFSET);
    const state = bytes.readUInt32LE(0);
    return state === SHUT_DOWN || state === SHUT_DOWN_IN_RECOVERY;
  } finally {
    closeSync(fd);
  }
}

/** SQLSTATE 57P03: "the database system is starting up" (or in recovery without hot standby). */
const CANNOT_CONNECT_NOW = '57P03';

interface StartupWait {
  url: string;
  /** The cluster's log, whose last line is quoted in the progress lines. */
  logFile: string;
  hasExited(): boolean;
  log?: (line: string) => void;
  /** How long to wait for a postmaster that does not answer at all (refused connections, bad password). */
  unansweredTimeoutMs?: number;
  progressIntervalMs?: number;
}

/**
 * Resolves once the cluster accepts connections. Fails when the postmaster exits, or answers nothing but refusals for
 * `unansweredTimeoutMs`; never while PostgreSQL answers that it is starting up (a crash recovery has no deadline).
 */
export async function waitUntilAccepting(wait: StartupWait): Promise<void> {
  const { unansweredTimeoutMs = 60_000, progressIntervalMs = 10_000 } = wait;
  const began = Date.now();
  let lastAnswer = began;
  let nextProgress = began + progressIntervalMs;
  for (;;) {
    if (wait.hasExited()) throw new Error(`postgres exited during start; see ${wait.logFile}`);
    const answer = await tryConnect(wait.url);
    if (answer === 'accepting') return;
    const now = Date.now();
    if (answer === 'starting up') lastAnswer = now;
    else if (now - lastAnswer > unansweredTimeoutMs)
      throw new Error(`timed out after ${unansweredTimeoutMs} ms waiting for postgres to accept connections`);
    if (now >= nextProgress) {
      const seconds = Math.round((now - began) / 1000);
      const said = lastLine(wait.logFile);
      wait.log?.(`PostgreSQL is still starting (${seconds} s)${said ? `; its log: ${said}` : ''}`);
      nextProgress = now + progressIntervalMs;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function tryConnect(url: string): Promise<'accepting' | 'starting up' | 'unanswered'> {
  const sql = postgres(url, { max: 1, connect_timeout: 2, onnotice: () => {} });
  try {
    await sql`select 1`;
    return 'accepting';
  } catch (error) {
    return (error as { code?: string }).code === CANNOT_CONNECT_NOW ? 'starting up' : 'unanswered';
  } finally {
    await sql.end({ timeout: 1 });
  }
}

/** The last non-empty line of a log file (read from its last 4 KB), without PostgreSQL's timestamp prefix. */
function lastLine(file: string): string | undefined {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return undefined;
  }
  try {
    const size = fstatSync(fd).size;
    const length = Math.min(size, 4096);
    const tail = Buffer.alloc(length);
    readSync(fd, tail, 0, length, size - length);
    const lines = tail
      .toString('utf8')
      .split('\n')
      .filter((l) => l.trim() !== '');
    return lines.at(-1)?.replace(/^\d{4}-\d\d-\d\d [\d:.]+ \S+ \[\d+\] /, '');
  } finally {
    closeSync(fd);
  }
}
