// The auction-ops command as a user runs it: a child process, to its exit. The service's settings come from each
// test alone (DATA_DIR, DATABASE_URL, BACKUP_TARGET and JWT_SECRET of the runner's own environment are dropped).
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const BIN = fileURLToPath(new URL('../../bin/auction-ops.js', import.meta.url));
const SETTINGS = ['DATA_DIR', 'DATABASE_URL', 'BACKUP_TARGET', 'JWT_SECRET'];

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
  /** stdout and stderr together, for messages that may be on either. */
  out: string;
}

export function runCli(env: Record<string, string>, ...args: string[]): Promise<CliRun> {
  return runCliIn(undefined, env, ...args);
}

/** runCli in the working directory `cwd` (where DATA_DIR's default, `.data`, would be made). */
export async function runCliIn(
  cwd: string | undefined,
  env: Record<string, string>,
  ...args: string[]
): Promise<CliRun> {
  const base = Object.fromEntries(Object.entries(process.env).filter(([name]) => !SETTINGS.includes(name)));
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [BIN, ...args], {
      env: { ...base, ...env },
      cwd,
      maxBuffer: 64 * 1024 * 1024,
    });
    return { code: 0, stdout, stderr, out: stdout + stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr, out: e.stdout + e.stderr };
  }
}
