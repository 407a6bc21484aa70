// Stops under a supervisor: systemd, Docker and supervisord stop a service by sending SIGTERM (or SIGINT) to the
// process they started, and that process alone. For each command the README documents, each signal sent to that
// one process must drain the requests in flight, stop PostgreSQL and leave nothing serving. A wrapper that dies
// without passing a signal on (SIGKILL after a stop timeout) must not leave the server running as an orphan either.
import { spawn, type ChildProcess } from 'node:child_process';
import { request } from 'node:http';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { findFreePort } from '@auction-ops/database';
import { migratedDataDir } from './support/migrated-data-dir.js';
import { postgresProcessesFor } from './support/test-server.js';

const REPO = fileURLToPath(new URL('../../../', import.meta.url));
// The servers here run their own embedded PostgreSQL whatever the run's database: CI's run of the suite against
// PostgreSQL 15 (TEST_DATABASE_URL) would only repeat them.
const ON_EMBEDDED_RUN = !process.env.TEST_DATABASE_URL;

/** The commands the README gives for running the server, as a supervisor would start them (from the checkout). */
const COMMANDS: Record<string, [string, string[]]> = {
  'node apps/server/bin/start.mjs': [process.execPath, ['apps/server/bin/start.mjs']],
  'npx -y pnpm@10 start': ['npx', ['-y', 'pnpm@10', 'start']],
  'auction-ops start': [process.execPath, ['apps/cli/bin/auction-ops.js', 'start']],
};

interface Started {
  child: ChildProcess;
  url: string;
  serviceKey: string;
  dataDir: string;
  /** The server's own (primary) process: the postmaster's parent. */
  serverPid: number;
  output(): string;
  exited: Promise<void>;
}

const running: Started[] = [];
afterEach(async () => {
  // Whatever failed, no server of this file outlives it.
  for (const server of running.splice(0)) {
    for (const pid of [server.child.pid, server.serverPid]) if (pid && alive(pid)) process.kill(pid, 'SIGKILL');
    await until(() => postgresProcessesFor(server.dataDir).length === 0, 30_000, 'postgres to stop').catch(() => {});
    rmSync(server.dataDir, { recursive: true, force: true });
  }
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function until(check: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function start(command: string): Promise<Started> {
  const [file, args] = COMMANDS[command];
  // A migrated copy: what is under test is the stop, not a first start (server-process.test.ts has that).
  const dataDir = await migratedDataDir('auction-ops-signals-');
  const port = await findFreePort();
  const child = spawn(file, args, {
    cwd: REPO,
    // Rate limits are not what this file is about; LOG_LEVEL=info for the primary's 'shutting down' line.
    env: { ...process.env, DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: 'info', RATE_LIMITS_ENABLED: 'false' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => {
    out += d;
  });
  child.stderr!.on('data', (d) => {
    out += d;
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let gone = false;
  void exited.then(() => {
    gone = true;
  });
  const started: Started = {
    child,
    url: `http://127.0.0.1:${port}`,
    serviceKey: '',
    dataDir,
    serverPid: 0,
    output: () => out,
    exited,
  };
  running.push(started);
  await until(() => gone || /service_role key:\s+\S+/.test(out), 90_000, `${command} to print its banner`);
  if (gone) throw new Error(`${command} exited at start:\n${out}`);
  started.serviceKey = /service_role key:\s+(\S+)/.exec(out)![1];
  const postmaster = Number(readFileSync(join(dataDir, 'postgres', 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
  started.serverPid = parentOf(postmaster);
  return started;
}

function parentOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
}

/** An upload whose body is half sent: `finish()` sends the rest and resolves with the response's status. */
function halfSentUpload(server: Started): Promise<{ finish(): Promise<number> }> {
  const body = Buffer.alloc(256 * 1024, 7);
  const req = request(`${server.url}/storage/v1/object/drain/in-flight.bin`, {
    method: 'POST',
    headers: {
      apikey: server.serviceKey,
      authorization: `Bearer ${server.serviceKey}`,
      'content-type': 'application/octet-stream',
      'content-length': String(body.length),
    },
  });
  const status = new Promise<number>((resolve, reject) => {
    req.once('response', (res) => {
      res.resume();
      res.once('end', () => resolve(res.statusCode ?? 0));
    });
    req.once('error', reject);
  });
  // A test that fails before finish() kills the server under this request: that is not a second failure.
  status.catch(() => {});
  return new Promise((resolve) => {
    req.once('socket', (socket) =>
      socket.once('connect', () => {
        req.write(body.subarray(0, body.length / 2), () =>
          resolve({
            finish() {
              req.end(body.subarray(body.length / 2));
              return status;
            },
          }),
        );
      }),
    );
  });
}

async function portClosed(url: string): Promise<boolean> {
  try {
    await fetch(`${url}/health`, { signal: AbortSignal.timeout(2000) });
    return false;
  } catch {
    return true;
  }
}

/** Stopped and gone: the server process, its PostgreSQL and its port. */
async function expectNothingLeft(server: Started): Promise<void> {
  await until(() => !alive(server.serverPid), 30_000, 'the server process to exit');
  await until(() => postgresProcessesFor(server.dataDir).length === 0, 30_000, 'postgres to stop');
  expect(await portClosed(server.url)).toBe(true);
  expect(existsSync(join(server.dataDir, 'postgres', 'data', 'postmaster.pid'))).toBe(false);
  expect(existsSync(join(server.dataDir, 'server.pid'))).toBe(false);
  expect(existsSync(join(server.dataDir, 'server.json'))).toBe(false);
}

describe.runIf(ON_EMBEDDED_RUN).each(Object.keys(COMMANDS))('%s under a supervisor', (command) => {
  it.each(['SIGTERM', 'SIGINT'] as const)(
    '%s to the started process drains a request in flight and stops PostgreSQL',
    async (signal) => {
      const server = await start(command);
      const bucket = await fetch(`${server.url}/storage/v1/bucket`, {
        method: 'POST',
        headers: { apikey: server.serviceKey, authorization: `Bearer ${server.serviceKey}` },
        body: JSON.stringify({ name: 'drain' }),
      });
      expect(bucket.status).toBe(200);
      const upload = await halfSentUpload(server);

      // To the started process only (not its group), as supervisors send it.
      server.child.kill(signal);
      await until(() => server.output().includes('"shutting down"'), 30_000, 'the server to start stopping');
      expect(await upload.finish()).toBe(200);
      await server.exited;
      await expectNothingLeft(server);
      expect(server.output()).toContain(`"reason":"${signal}"`);
    },
    120_000,
  );
});

describe.runIf(ON_EMBEDDED_RUN)('a server started by a package manager', () => {
  it('stops when the package manager is killed without passing a signal on', async () => {
    const server = await start('npx -y pnpm@10 start');
    const packageManager = parentOf(server.serverPid);
    expect(packageManager).not.toBe(server.child.pid);
    process.kill(packageManager, 'SIGKILL');
    await expectNothingLeft(server);
    expect(server.output()).toContain('the package manager that started the server exited');
  }, 120_000);
});
