// WEB_CONCURRENCY=2 against the real entry point in a child process: one banner, requests served by both worker
// processes (their request connections carry the worker's pid in application_name), each accepting its connections
// from the listening socket itself rather than through the primary, a worker killed with SIGKILL
// is replaced while the other keeps answering, SIGTERM drains everything (a request in flight completes) and stops
// the embedded Postgres, a worker that cannot start stops the server with its reason, and SIGHUP reaches every worker.
import { readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { X509Certificate } from 'node:crypto';
import { get, request } from 'node:http';
import { join } from 'node:path';
import { connect as tlsConnect } from 'node:tls';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findFreePort, runningClusterUrl } from '@auction-ops/database';
import { createLocalCertificates } from '@auction-ops/server-config/local-certificates';
import { version } from '../src/version.js';
import { migratedDataDir } from './support/migrated-data-dir.js';
import { postgresProcessesFor, serverProcess, workerPids } from './support/test-server.js';

const secret = 'cluster-test-secret-'.padEnd(40, 'x');

/** GET over a new connection each time, so either worker may accept it. */
function getStatus(url: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    get(url, { agent: false, headers }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    }).on('error', reject);
  });
}

/** The inode of the TCP socket listening on `port` (state 0A in the kernel's tables). */
function listeningInode(port: number): string {
  const local = `:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      if (fields[1]?.endsWith(local) && fields[3] === '0A') return fields[9]!;
    }
  }
  throw new Error(`nothing listens on port ${port}`);
}

/** Whether process `pid` holds the socket `inode` among its file descriptors. */
function holdsSocket(pid: number, inode: string): boolean {
  return readdirSync(`/proc/${pid}/fd`).some((fd) => {
    try {
      return readlinkSync(`/proc/${pid}/fd/${fd}`) === `socket:[${inode}]`;
    } catch {
      return false; // closed meanwhile
    }
  });
}

async function until<T>(probe: () => Promise<T> | T, done: (value: T) => boolean): Promise<T> {
  for (;;) {
    const value = await probe();
    if (done(value)) return value;
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('WEB_CONCURRENCY=2', () => {
  let dataDir: string;
  beforeAll(async () => {
    // A migrated copy: the workers and their stops are under test here, not a first start.
    dataDir = await migratedDataDir('auction-ops-cluster-');
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('serves from both workers, replaces a killed one, and drains everything on SIGTERM', async () => {
    const port = await findFreePort();
    const url = `http://127.0.0.1:${port}`;
    const proc = serverProcess(
      { DATA_DIR: dataDir, JWT_SECRET: secret, WEB_CONCURRENCY: '2', LOG_LEVEL: 'warn', RATE_LIMITS_ENABLED: 'false' },
      port,
    );
    const server = proc.start();
    const primary = server.child.pid!;
    let exited = false;
    void server.exited.then(() => {
      exited = true;
    });
    await until(proc.healthy, (ok) => ok || exited);
    expect(exited).toBe(false);
    const sql = postgres(runningClusterUrl(join(dataDir, 'postgres'))!, { max: 1, onnotice: () => {} });
    try {
      // The start-up banner is printed once, by the primary, with keys that work.
      await until(server.output, (out) => out.includes('service_role key:'));
      expect(server.output().match(/auction-ops \S+ is running at/g)).toEqual([`auction-ops ${version} is running at`]);
      const serviceKey = /service_role key:\s+(\S+)/.exec(server.output())![1];

      const workers = workerPids(primary);
      expect(workers).toHaveLength(2);
      // Request connections per worker, from the pid each worker puts into its application_name.
      const servingPids = async () => {
        const rows = await sql<{ pid: string }[]>`
          select distinct substring(application_name from 'pid (\\d+)$') as pid from pg_stat_activity
           where application_name ~ '^auction-ops w\\d+ pid \\d+$'`;
        return rows.map((r) => Number(r.pid)).sort((a, b) => a - b);
      };
      const burst = async () => {
        const statuses = await Promise.all(
          Array.from({ length: 20 }, () => getStatus(`${url}/rest/v1/auctions`, { apikey: serviceKey })),
        );
        expect(statuses).toEqual(Array(20).fill(200));
      };
      // Each worker accepts from the listening socket itself (SCHED_NONE), so it holds that socket: the primary does not
      // accept each connection and hand it over, one at a time (Node's default).
      const listening = listeningInode(port);
      expect(workers.map((pid) => holdsSocket(pid, listening))).toEqual([true, true]);
      // The kernel wakes both workers for each connection and the first to call accept() takes it: which one serves a
      // burst is not fixed, but within a few bursts both do.
      expect(
        await until(
          async () => {
            await burst();
            return servingPids();
          },
          (pids) => pids.length === 2,
        ),
      ).toEqual(workers);

      // SIGKILL one worker: the other keeps answering while the primary forks a replacement.
      const [killed, survivor] = workers;
      process.kill(killed, 'SIGKILL');
      await until(
        () => workerPids(primary),
        (pids) => !pids.includes(killed),
      );
      await burst();
      const replaced = await until(
        () => workerPids(primary),
        (pids) => pids.length === 2,
      );
      expect(replaced).toContain(survivor);
      expect(replaced).not.toContain(killed);
      await until(proc.healthy, (ok) => ok);
      // The replacement serves too: keep sending until its connections show up next to the survivor's.
      await until(
        async () => {
          await burst();
          return servingPids();
        },
        (pids) => pids.length === 2 && pids.every((p) => replaced.includes(p)),
      );
      expect(server.output().match(/is running at/g)).toHaveLength(1);
    } catch (error) {
      // Whatever failed, the server and its Postgres must not outlive the test.
      if (!exited) server.child.kill('SIGTERM');
      await server.exited;
      throw error;
    } finally {
      await sql.end();
    }

    // SIGTERM on the primary while a request is in flight (its body half sent): the port closes to new connections,
    // the request still completes against the database, then workers exit, Postgres stops, exit code 0.
    const serviceKey = /service_role key:\s+(\S+)/.exec(server.output())![1];
    const slow = request(`${url}/rest/v1/auctions`, {
      method: 'POST',
      agent: false,
      headers: {
        apikey: serviceKey,
        authorization: `Bearer ${serviceKey}`,
        'content-type': 'application/json',
        prefer: 'return=minimal',
        // A worker answers "100 Continue" once it has parsed the headers: from then on the request is in flight there.
        expect: '100-continue',
      },
    });
    const answered = new Promise<number | string>((resolve) => {
      slow.on('response', (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      slow.on('error', (error) => resolve(String(error)));
    });
    const inFlight = new Promise((r) => slow.once('continue', r));
    slow.flushHeaders();
    await inFlight;
    slow.write('{"name": "Drained", ');
    const last = workerPids(primary);
    server.child.kill('SIGTERM');
    await until(proc.healthy, (ok) => !ok);
    slow.end('"slug": "drained"}');
    expect(await answered).toBe(201);
    expect(await server.exited).toBe(0);
    expect(postgresProcessesFor(dataDir)).toEqual([]);
    expect(last.filter((pid) => readdirSync('/proc').includes(String(pid)))).toEqual([]);
  }, 120_000);

  it('stops with the reason and without Postgres when a worker cannot start', async () => {
    const dir = await migratedDataDir('auction-ops-cluster-bad-');
    try {
      // The configuration passes validation; the workers' storage service refuses it when they build their services.
      const env = {
        DATA_DIR: dir,
        JWT_SECRET: secret,
        WEB_CONCURRENCY: '2',
        LOG_LEVEL: 'error',
        STORAGE_BACKEND: 's3',
      };
      const proc = serverProcess(env, await findFreePort());
      const server = proc.start();
      const outputEnded = new Promise((r) => server.child.stdout!.once('end', r));
      expect(await server.exited).toBe(1);
      await outputEnded;
      expect(server.output()).not.toContain('is running at');
      // The primary's word names the worker's reason. (Worker and primary share stdout, so the worker's own line
      // may land after the primary's.)
      const lines = server
        .output()
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(lines.find((line) => line.msg === 'failed to start')).toMatchObject({
        level: 'error',
        msg: 'failed to start',
        error: 'invalid configuration: S3_BUCKET is required when STORAGE_BACKEND=s3',
      });
      expect(postgresProcessesFor(dir)).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it('passes SIGHUP on to every worker when TLS is on: all of them serve the renewed certificate', async () => {
    const dir = await migratedDataDir('auction-ops-cluster-tls-');
    const certs = createLocalCertificates();
    writeFileSync(join(dir, 'cert.pem'), certs.cert);
    writeFileSync(join(dir, 'key.pem'), certs.key);
    const port = await findFreePort();
    const env = {
      DATA_DIR: dir,
      JWT_SECRET: secret,
      WEB_CONCURRENCY: '2',
      LOG_LEVEL: 'warn',
      TLS_CERT_FILE: join(dir, 'cert.pem'),
      TLS_KEY_FILE: join(dir, 'key.pem'),
    };
    const server = serverProcess(env, port).start();
    // Serial numbers seen on new connections; the primary hands them to the workers in turn.
    const serialOf = () =>
      new Promise<string>((resolve, reject) => {
        const socket = tlsConnect({ host: '127.0.0.1', port, ca: certs.caCert, servername: 'localhost' }, () => {
          resolve(socket.getPeerCertificate().serialNumber);
          socket.end();
        });
        socket.on('error', reject);
      });
    const serials = async () => new Set(await Promise.all(Array.from({ length: 8 }, serialOf)));
    try {
      await until(
        () => serials().catch(() => new Set<string>()),
        (seen) => seen.size > 0,
      );
      expect(workerPids(server.child.pid!)).toHaveLength(2);
      const before = new X509Certificate(certs.cert).serialNumber;
      expect(await serials()).toEqual(new Set([before]));
      const renewed = createLocalCertificates({ ca: { cert: certs.caCert, key: certs.caKey } });
      writeFileSync(join(dir, 'cert.pem'), renewed.cert);
      writeFileSync(join(dir, 'key.pem'), renewed.key);
      server.child.kill('SIGHUP');
      const after = new X509Certificate(renewed.cert).serialNumber;
      await until(serials, (seen) => seen.size === 1 && seen.has(after));
      // Both workers answered with it, and none was restarted for it.
      expect(server.output()).not.toContain('restarting it');
    } finally {
      server.child.kill('SIGTERM');
      expect(await server.exited).toBe(0);
      expect(postgresProcessesFor(dir)).toEqual([]);
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
