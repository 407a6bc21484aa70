// The foundation's acceptance, against the real entry point in a child process: first start, API-key gate,
// restart with data kept, clean shutdown without orphaned postgres, one server per DATA_DIR, bad configuration.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import postgres from 'postgres';
import { SignJWT } from 'jose';
import { findFreePort, runningClusterUrl, startEmbeddedPostgres } from '@auction-ops/database';
import { migratedDataDir } from './support/migrated-data-dir.js';
import { postgresProcessesFor, watchdogsFor } from './support/test-server.js';

const start = fileURLToPath(new URL('../bin/start.mjs', import.meta.url));
const secret = 'test-secret-'.padEnd(40, 'x');

function startProcess(env: Record<string, string>): {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
} {
  const child = spawn(process.execPath, [start], {
    env: { ...process.env, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => {
    out += d;
  });
  child.stderr!.on('data', (d) => {
    out += d;
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output: () => out, exited };
}

async function waitForHealth(url: string, exited: Promise<unknown>): Promise<void> {
  let done = false;
  void exited.then(() => {
    done = true;
  });
  for (;;) {
    if (done) throw new Error('server exited before it became healthy');
    try {
      const res = await fetch(`${url}/health`);
      if (res.status === 200) return;
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function waitForOutput(proc: { output: () => string; exited: Promise<unknown> }, pattern: RegExp) {
  let done = false;
  void proc.exited.then(() => {
    done = true;
  });
  for (;;) {
    const found = proc.output().match(pattern)?.[1];
    if (found) return found;
    if (done) throw new Error(`server exited without printing ${pattern}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const postmasterPidOf = (dataDir: string) =>
  Number(readFileSync(join(dataDir, 'postgres/data/postmaster.pid'), 'utf8').split('\n')[0]);

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A failed test leaves no PostgreSQL (nor watchdog) of `dir` running. */
function stopLeftovers(dir: string): void {
  const pids = [...watchdogsFor(dir), ...postgresProcessesFor(dir).map((line) => Number(line.trim().split(/\s+/)[0]))];
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      /* gone meanwhile */
    }
  }
}

/** Polls `condition` until it holds; fails naming `what` past the deadline. */
async function until(condition: () => boolean, what: string, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('server process', () => {
  let dataDir: string;
  let port: number;
  let url: string;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'auction-ops-server-'));
    port = await findFreePort();
    url = `http://127.0.0.1:${port}`;
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('starts on a fresh DATA_DIR, gates API keys, keeps data across restarts and stops cleanly', async () => {
    const env = { DATA_DIR: dataDir, PORT: String(port), JWT_SECRET: secret };
    const first = startProcess(env);
    await waitForHealth(url, first.exited);

    const health = await fetch(`${url}/health`);
    expect(await health.json()).toMatchObject({ status: 'ok', database: 'up', version: expect.any(String) });
    expect(health.headers.get('x-request-id')).toMatch(/.+/);

    const missing = await fetch(`${url}/rest/v1/auctions`);
    expect(missing.status).toBe(401);
    expect(await missing.json()).toEqual({ message: 'No API key found in request' });
    const wrong = await fetch(`${url}/rest/v1/auctions`, { headers: { apikey: 'not-a-key' } });
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toEqual({ message: 'Invalid API key' });
    const key = (role: string, s = secret) =>
      new SignJWT({ role }).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode(s));
    for (const bad of [await key('authenticated'), await key('anon', 'another-secret-'.padEnd(40, 'y'))]) {
      const res = await fetch(`${url}/storage/v1/bucket`, { headers: { apikey: bad } });
      expect(res.status).toBe(401);
      expect(await res.json()).toEqual({ message: 'Invalid API key' });
    }
    const good = await fetch(`${url}/rest/v1/`, { headers: { apikey: await key('anon') } });
    expect(good.status).toBe(200);

    // The API keys printed at start are valid keys. They are printed once every worker listens, which can be after
    // the first worker already answers /health.
    const printed = await waitForOutput(first, /anon key:\s+(\S+)/);
    expect((await fetch(`${url}/rest/v1/`, { headers: { apikey: printed } })).status).toBe(200);

    // A second server on the same DATA_DIR refuses to start, naming the reason.
    const second = startProcess({ ...env, PORT: String(await findFreePort()) });
    expect(await second.exited).toBe(1);
    expect(second.output()).toMatch(/DATA_DIR .* is in use by another auction-ops server/);

    // Write something, stop with SIGTERM, and see that no postgres is left behind.
    const ownerUrl = runningClusterUrl(join(dataDir, 'postgres'))!;
    const sql = postgres(ownerUrl, { max: 1, onnotice: () => {} });
    await sql`create table kept (v text)`;
    await sql`insert into kept values ('before restart')`;
    await sql.end();
    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(0);
    expect(postgresProcessesFor(dataDir)).toEqual([]);

    // Restart: same cluster, data still there.
    const again = startProcess(env);
    await waitForHealth(url, again.exited);
    const sql2 = postgres(runningClusterUrl(join(dataDir, 'postgres'))!, { max: 1, onnotice: () => {} });
    expect(await sql2`select v from kept`).toEqual([{ v: 'before restart' }]);
    await sql2.end();
    again.child.kill('SIGINT');
    expect(await again.exited).toBe(0);
    expect(postgresProcessesFor(dataDir)).toEqual([]);
  }, 120_000);

  it('stops its PostgreSQL when the server is killed with SIGKILL, and starts again on the same port', async () => {
    // A migrated copy: the crash and the recovery are under test here (the first start is the test above).
    const dir = await migratedDataDir('auction-ops-crash-');
    const p = await findFreePort();
    // DB_EMBEDDED_PORT (issue 56): the cluster listens where the operator said, after the crash as before it.
    const pgPort = await findFreePort();
    // DB_EMBEDDED_SETTINGS: given to the cluster at each start, the restart after the crash included.
    const env = {
      DATA_DIR: dir,
      PORT: String(p),
      JWT_SECRET: secret,
      DB_EMBEDDED_PORT: String(pgPort),
      DB_EMBEDDED_SETTINGS: 'work_mem=7MB;max_connections=150',
    };
    const operatorSettings = async () => {
      const sql = postgres(runningClusterUrl(join(dir, 'postgres'))!, { max: 1, onnotice: () => {} });
      try {
        const [row] = await sql<{ settings: string }[]>`
          select current_setting('work_mem') || ' ' || current_setting('max_connections') as settings`;
        return row!.settings;
      } finally {
        await sql.end();
      }
    };
    try {
      const crashed = startProcess(env);
      await waitForHealth(`http://127.0.0.1:${p}`, crashed.exited);
      expect(runningClusterUrl(join(dir, 'postgres'))).toContain(`@127.0.0.1:${pgPort}/`);
      expect(await operatorSettings()).toBe('7MB 150');
      const postmaster = postmasterPidOf(dir);
      expect(isAlive(postmaster)).toBe(true);
      expect(watchdogsFor(dir)).toHaveLength(1);
      crashed.child.kill('SIGKILL');
      await crashed.exited;
      // Its watchdog saw it go and stopped its PostgreSQL (issue 56, item 7): no orphan holds DATA_DIR.
      await until(() => !isAlive(postmaster), 'the postmaster of the killed server to stop', 30_000);
      await until(() => watchdogsFor(dir).length === 0, 'its watchdog to end', 10_000);
      expect(postgresProcessesFor(dir)).toEqual([]);
      expect(readFileSync(join(dir, 'postgres/postgres.log'), 'utf8')).toMatch(
        new RegExp(`auction-ops: the process that started this PostgreSQL \\(postmaster ${postmaster}\\) is gone`),
      );
      const next = startProcess({ ...env, LOG_LEVEL: 'info' });
      await waitForHealth(`http://127.0.0.1:${p}`, next.exited);
      expect(runningClusterUrl(join(dir, 'postgres'))).toContain(`@127.0.0.1:${pgPort}/`);
      expect(next.output()).not.toMatch(/still running on/);
      expect(await operatorSettings()).toBe('7MB 150');
      // A stop in order ends the watchdog with its PostgreSQL.
      next.child.kill('SIGTERM');
      expect(await next.exited).toBe(0);
      expect(postgresProcessesFor(dir)).toEqual([]);
      await until(() => watchdogsFor(dir).length === 0, 'the watchdog to end after a clean stop', 10_000);
    } finally {
      stopLeftovers(dir);
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it('stops a PostgreSQL that outlived its server and its watchdog at the next start, and says so', async () => {
    const dir = await migratedDataDir('auction-ops-orphan-');
    const p = await findFreePort();
    const env = { DATA_DIR: dir, PORT: String(p), JWT_SECRET: secret };
    try {
      const crashed = startProcess(env);
      await waitForHealth(`http://127.0.0.1:${p}`, crashed.exited);
      // Both killed outright (the OOM killer, kill -9 of everything): the PostgreSQL is left running.
      for (const pid of watchdogsFor(dir)) process.kill(pid, 'SIGKILL');
      crashed.child.kill('SIGKILL');
      await crashed.exited;
      expect(isAlive(postmasterPidOf(dir))).toBe(true);
      const next = startProcess({ ...env, LOG_LEVEL: 'info' });
      await waitForHealth(`http://127.0.0.1:${p}`, next.exited);
      expect(next.output()).toMatch(
        /found PostgreSQL \(pid \d+\) still running on .*left by a server that did not stop it/,
      );
      expect(next.output()).toMatch(/stopped the PostgreSQL left running \(pid \d+\)/);
      next.child.kill('SIGTERM');
      expect(await next.exited).toBe(0);
      expect(postgresProcessesFor(dir)).toEqual([]);
    } finally {
      stopLeftovers(dir);
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it('stops with one line naming a bad PORT', async () => {
    const bad = startProcess({ DATA_DIR: dataDir, PORT: 'eighty' });
    expect(await bad.exited).toBe(1);
    expect(bad.output().trim()).toBe('invalid configuration: PORT="eighty" must be a whole number');
  });
});

describe('embedded postgres', () => {
  it('reports a clear error when the port is taken', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'auction-ops-port-'));
    const a = await startEmbeddedPostgres({ dir: join(dir, 'a') });
    try {
      await expect(startEmbeddedPostgres({ dir: join(dir, 'b'), port: a.port })).rejects.toThrow(
        /postgres exited during start/,
      );
    } finally {
      await a.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
