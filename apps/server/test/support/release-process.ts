// A release's server as its own process (`node apps/server/bin/start.mjs` of that checkout): started with an
// environment, ready once it printed its banner and /health answers, stopped with SIGTERM as an operator would.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';

export interface ReleaseProcess {
  child: ChildProcess;
  url: string;
  anonKey: string;
  serviceRoleKey: string;
  /** Milliseconds from spawn to a healthy server. */
  startMs: number;
  output(): string;
  stop(): Promise<number | null>;
}

export interface Exited {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * How a release's server is started: its start script, or (before `bin/start.mjs` existed) Node's arguments and the
 * directory they are resolved from, e.g. `--import tsx src/main.ts` in apps/server.
 */
export type Launch = string | { args: readonly string[]; cwd: string };

/** Spawns the server; resolves with its exit when it ends before `ready` says so. */
function spawnServer(launch: Launch, env: Record<string, string>) {
  const { args, cwd } = typeof launch === 'string' ? { args: [launch], cwd: undefined } : launch;
  const child = spawn(process.execPath, args, {
    cwd,
    env: { ...process.env, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => {
    stdout += d;
  });
  child.stderr.on('data', (d) => {
    stderr += d;
  });
  const exited = new Promise<Exited>((resolve) =>
    child.once('exit', (code) => resolve({ code, stdout, stderr: stderr })),
  );
  return { child, exited, stdout: () => stdout, stderr: () => stderr };
}

export async function startRelease(
  launch: Launch,
  env: Record<string, string>,
  timeoutMs = 180_000,
): Promise<ReleaseProcess> {
  const started = performance.now();
  const proc = spawnServer(launch, env);
  let ended: Exited | undefined;
  void proc.exited.then((e) => {
    ended = e;
  });
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (ended) throw new Error(`the server exited (${ended.code}) at start: ${ended.stderr}${ended.stdout}`);
    if (Date.now() > deadline) {
      proc.child.kill('SIGKILL');
      throw new Error(`the server did not start within ${timeoutMs} ms: ${proc.stderr()}${proc.stdout()}`);
    }
    const banner = proc.stdout();
    const url = /running at (\S+)/.exec(banner)?.[1];
    const anonKey = /anon key:\s+(\S+)/.exec(banner)?.[1];
    const serviceRoleKey = /service_role key:\s+(\S+)/.exec(banner)?.[1];
    if (url && anonKey && serviceRoleKey && (await healthy(url)))
      return {
        child: proc.child,
        url,
        anonKey,
        serviceRoleKey,
        startMs: performance.now() - started,
        output: () => proc.stderr() + proc.stdout(),
        async stop() {
          if (!ended) proc.child.kill('SIGTERM');
          return (await proc.exited).code;
        },
      };
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Runs a server expected to refuse to start: its exit code and output, or a timeout. */
export async function runRefusedRelease(
  startScript: string,
  env: Record<string, string>,
  timeoutMs = 120_000,
): Promise<Exited> {
  const proc = spawnServer(startScript, env);
  const timer = setTimeout(() => proc.child.kill('SIGKILL'), timeoutMs);
  try {
    return await proc.exited;
  } finally {
    clearTimeout(timer);
  }
}

async function healthy(url: string): Promise<boolean> {
  try {
    return (await fetch(`${url}/health`)).ok;
  } catch {
    return false;
  }
}

/** A release's `auction-ops` command; exit code and output. */
export async function runCli(cliBin: string, env: Record<string, string>, ...args: string[]) {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [cliBin, ...args], {
      env: { ...process.env, LOG_LEVEL: 'warn', ...env },
      maxBuffer: 16 * 1024 * 1024,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}
