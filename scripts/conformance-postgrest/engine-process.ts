// The `rest-engine` command as a child process, configured only by PGRST_* variables as PostgREST would be: its
// start line names the address it listens on (port 0: any free port); stopped with SIGTERM.
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

// From source, or a packed command (`REST_ENGINE_COMMAND`, as the package's own command tests take it).
const COMMAND = process.env.REST_ENGINE_COMMAND
  ? [process.env.REST_ENGINE_COMMAND]
  : ['--import', 'tsx', fileURLToPath(new URL('../../packages/rest-engine/src/cli/main.ts', import.meta.url))];
const START_DEADLINE_MS = 60_000;

export interface EngineProcess {
  readonly url: string;
  /** Everything the command printed so far. */
  output(): string;
  stop(): Promise<void>;
}

export async function startEngine(env: Readonly<Record<string, string>>): Promise<EngineProcess> {
  // Only the configuration's own PGRST_* variables, none inherited from the caller's shell.
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('PGRST_')));
  const child: ChildProcess = spawn(process.execPath, COMMAND, {
    env: { ...base, ...env, PGRST_SERVER_HOST: '127.0.0.1', PGRST_SERVER_PORT: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => {
    out += d.toString();
  });
  child.stderr!.on('data', (d: Buffer) => {
    out += d.toString();
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => done(new Error(`no start line in ${START_DEADLINE_MS / 1000} s:\n${out}`)),
      START_DEADLINE_MS,
    );
    const look = () => {
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) done(null, m[1]);
    };
    const onExit = (code: number | null) => done(new Error(`the command exited (${code}) before listening:\n${out}`));
    function done(error: Error | null, found?: string) {
      clearTimeout(timer);
      child.stdout!.off('data', look);
      child.off('exit', onExit);
      if (error) {
        child.kill('SIGKILL');
        reject(error);
      } else resolve(found!);
    }
    child.stdout!.on('data', look);
    child.once('exit', onExit);
  });
  return {
    url,
    output: () => out,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
