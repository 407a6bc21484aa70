// A small detached process started with each embedded PostgreSQL, which stops it (fast shutdown) when the process
// that started it is gone, however it went: `kill -9` and the OOM killer leave no chance to stop it in order.
// It learns of the death from its standard input, a pipe whose only writer is the starting process: the kernel
// closes it when that process ends, so there is no pid to poll and no pid reuse to guard against. Before it signals,
// it checks that postmaster.pid still names the postmaster it watches (a pid the kernel may since have reused).
import { spawn } from 'node:child_process';

/**
 * Its title in the process list, followed by the postmaster.pid it watches: `ps -eo pid,args | grep` finds it.
 */
export const WATCHDOG_MARK = 'auction-ops-postgres-watchdog';

// Plain JavaScript run with `node -e`: nothing to resolve or ship beside the server's bundle.
const SCRIPT = `
const fs = require('node:fs');
const [, mark, pidText, pidFile, logFile] = process.argv;
const pid = Number(pidText);
process.title = mark + ' ' + pidFile;
const alive = (p) => { try { process.kill(p, 0); return true; } catch (e) { return e.code === 'EPERM'; } };
const named = () => { try { return Number(fs.readFileSync(pidFile, 'utf8').split('\\n')[0]); } catch { return 0; } };
let done = false;
function starterGone() {
  if (done) return;
  done = true;
  const current = named();
  if (alive(pid) && (current === 0 || current === pid)) {
    try {
      fs.appendFileSync(logFile, new Date().toISOString() + ' auction-ops: the process that started this PostgreSQL'
        + ' (postmaster ' + pid + ') is gone; fast shutdown (watchdog ' + process.pid + ')\\n');
    } catch {}
    try { process.kill(pid, 'SIGINT'); } catch {}
  }
  process.exit(0);
}
process.stdin.on('end', starterGone);
process.stdin.on('close', starterGone);
process.stdin.on('error', starterGone);
process.stdin.resume();
// Stopped in order (or dead on its own): nothing left to watch.
setInterval(() => { if (!alive(pid)) process.exit(0); }, 1000);
`;

interface Watchdog {
  /** The watchdog's pid. */
  readonly pid: number | undefined;
  /** After the postmaster exited: ends the watchdog (a signal, not the pipe, which would read as our death). */
  release(): void;
}

/**
 * Starts the watchdog of the postmaster `postmasterPid` (its cluster's postmaster.pid is `pidFile`; the line it
 * writes when it acts goes to `logFile`, PostgreSQL's own log). It holds nothing of ours open: the starting process
 * exits as it would without it.
 */
export function startWatchdog(postmasterPid: number, pidFile: string, logFile: string): Watchdog {
  const child = spawn(process.execPath, ['-e', SCRIPT, WATCHDOG_MARK, String(postmasterPid), pidFile, logFile], {
    // Its own session: a Ctrl-C or a signal to the server's process group does not reach it.
    detached: true,
    stdio: ['pipe', 'ignore', 'ignore'],
    // No NODE_OPTIONS (e.g. --import tsx of a test run): it needs nothing but node.
    env: { PATH: process.env.PATH ?? '' },
  });
  child.on('error', () => {});
  child.stdin?.on('error', () => {});
  child.unref();
  // The pipe must not keep the server's event loop alive.
  (child.stdin as unknown as { unref?: () => void } | null)?.unref?.();
  return {
    pid: child.pid,
    release: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    },
  };
}
