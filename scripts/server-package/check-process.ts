// The pieces of `pnpm check:server-package`: commands whose output is shown when they fail, the installed server
// as a child process read up to its banner, and waiting on conditions with deadlines instead of sleeps.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';

/** npm run from pnpm inherits pnpm's own npm_config_* settings, which npm warns about; the operator has none. */
export function plainEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.toLowerCase().startsWith('npm_')));
  return { ...env, ...extra };
}

/** Runs a command; on failure throws with everything it printed. */
export async function run(cmd: string, args: string[], cwd: string, env = plainEnv()): Promise<string> {
  try {
    const { stdout } = await promisify(execFile)(cmd, args, { cwd, env, maxBuffer: 64 << 20 });
    return stdout;
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string; message: string };
    throw new Error(`${cmd} ${args.join(' ')} failed: ${e.message}\n${e.stdout ?? ''}${e.stderr ?? ''}`);
  }
}

/** Runs a command like `run`, and answers everything it printed, stdout then stderr. */
export async function runAll(cmd: string, args: string[], cwd: string, env = plainEnv()): Promise<string> {
  try {
    const { stdout, stderr } = await promisify(execFile)(cmd, args, { cwd, env, maxBuffer: 64 << 20 });
    return `${stdout}${stderr}`;
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string; message: string };
    throw new Error(`${cmd} ${args.join(' ')} failed: ${e.message}\n${e.stdout ?? ''}${e.stderr ?? ''}`);
  }
}

/** Polls `condition` until it holds; throws `what` past the deadline. */
export async function waitFor(what: string, condition: () => boolean | Promise<boolean>, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export interface StartedServer {
  child: ChildProcess;
  url: string;
  anonKey: string;
  serviceRoleKey: string;
  output(): string;
}

/** Spawns the server in its own process group and resolves once it printed its banner (every worker listens). */
export function startServer(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<StartedServer> {
  const child = spawn(cmd, args, { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const output = () => out;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no banner within 120 s:\n${out}`)), 120_000);
    const read = (chunk: Buffer) => {
      out += chunk.toString();
      const m = /running at (\S+)\n\s+anon key:\s+(\S+)\n\s+service_role key:\s+(\S+)/.exec(out);
      if (!m) return;
      clearTimeout(timer);
      resolve({ child, url: m[1]!, anonKey: m[2]!, serviceRoleKey: m[3]!, output });
    };
    child.stdout!.on('data', read);
    child.stderr!.on('data', read);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`${cmd} ${args.join(' ')} exited (${code ?? signal}) before its banner:\n${out}`));
    });
  });
}

/**
 * Sends `signal` to the started process alone, as supervisors do, and resolves with its exit code, or the signal
 * that ended it.
 */
export async function stopServer(server: StartedServer, signal: NodeJS.Signals): Promise<number | string> {
  const { child } = server;
  if (child.exitCode !== null) return child.exitCode;
  const exited = new Promise<number | string>((resolve) =>
    child.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown')),
  );
  child.kill(signal);
  const timeout = new Promise<never>((_, reject) =>
    setTimeout(() => reject(new Error(`no exit within 60 s of ${signal}:\n${server.output()}`)), 60_000).unref(),
  );
  return Promise.race([exited, timeout]);
}

/** Whether something accepts connections at `url`'s port. */
export function portOpen(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** The postmaster of the embedded cluster in `dataDir`, while its pid file names a live process. */
export function postmasterAlive(dataDir: string): boolean {
  const pidFile = join(dataDir, 'postgres/data/postmaster.pid');
  if (!existsSync(pidFile)) return false;
  const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: alive, under another user (the embedded cluster runs as `postgres` when the server runs as root).
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
