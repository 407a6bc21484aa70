// The CLI and the server as operators run them, each in a process of its own, for the upgrade test.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const CLI = fileURLToPath(new URL('../../bin/auction-ops.js', import.meta.url));
const START = fileURLToPath(new URL('../../../server/bin/start.mjs', import.meta.url));

export interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(script: string, args: string[], env: Record<string, string>): Promise<Finished> {
  const child = spawn(process.execPath, [script, ...args], {
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
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** `auction-ops <args>` to its end. */
export const cli = (args: string[], env: Record<string, string>) => run(CLI, args, env);

/** The server started and left to exit on its own (a refusal at start). */
export const serverUntilExit = (env: Record<string, string>) => run(START, [], { ...env, PORT: '0' });

export interface RunningServer {
  url: string;
  anonKey: string;
  serviceKey: string;
  stop(): Promise<void>;
}

/** The server, once it prints its address and keys; rejects with its output if it exits first. */
export async function startServer(env: Record<string, string>): Promise<RunningServer> {
  const child = spawn(process.execPath, [START], {
    env: { ...process.env, LOG_LEVEL: 'warn', ...env, PORT: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let out = '';
  const started = await new Promise<Omit<RunningServer, 'stop'>>((resolve, reject) => {
    const look = (d: Buffer) => {
      out += d;
      const url = /running at (\S+)/.exec(out)?.[1];
      const anonKey = /anon key:\s+(\S+)/.exec(out)?.[1];
      const serviceKey = /service_role key:\s+(\S+)/.exec(out)?.[1];
      if (url && anonKey && serviceKey) resolve({ url, anonKey, serviceKey });
    };
    child.stdout.on('data', look);
    child.stderr.on('data', look);
    void exited.then(() => reject(new Error(`the server exited at start: ${out}`)));
  });
  return {
    ...started,
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}
