// PostgreSQL major upgrade of the embedded cluster, end to end with real clusters and processes: a PostgreSQL 16
// cluster (the npm 16 build) holding the demo data, stored objects, a session and a table made at run time is
// refused by this release's server, carried to 17 by `auction-ops db upgrade`, and served again with every row,
// password, refresh token, object and policy as before. A failed upgrade leaves the 16 cluster as it was; an
// external PostgreSQL older than 15 is refused.
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  fetchOldBinaries,
  runningClusterUrl,
  startEmbeddedPostgres,
  type EmbeddedCluster,
} from '@auction-ops/database';
import { createStagingTable } from '../../../packages/functions/src/reporting/import/dataset-import.js';
import type { DatasetColumn } from '../../../packages/functions/src/reporting/dataset-access.js';
import { tableDigests } from './support/cluster-evidence.js';
import {
  runCli,
  runRefusedRelease,
  startRelease,
  type ReleaseProcess as RunningServer,
} from '../../server/test/support/release-process.js';

const CLI = fileURLToPath(new URL('../bin/auction-ops.js', import.meta.url));
const START = fileURLToPath(new URL('../../server/bin/start.mjs', import.meta.url));
/** `auction-ops <args>` to its end. */
const cli = (args: string[], env: Record<string, string>) => runCli(CLI, env, ...args);
/** The server started and left to exit on its own (a refusal at start). */
const serverUntilExit = (env: Record<string, string>) => runRefusedRelease(START, { ...env, PORT: '0' });
/** The server, once it prints its address and keys and answers /health. */
const startServer = (env: Record<string, string>) => startRelease(START, { ...env, PORT: '0' });

const JWT_SECRET = 'upgrade-test-secret-'.padEnd(40, 'x');
const REFUSAL = /holds a PostgreSQL 16 cluster; this release runs PostgreSQL 17: run 'auction-ops db upgrade'/;

interface Member {
  email: string;
  password: string;
}

/** A seeded person with a role in exactly one auction, from the seed's printed list. */
function memberOfOne(seedOutput: string): Member {
  for (const line of seedOutput.split('\n')) {
    const m = /^\s+(\S+@\S+)\s+(\S+)\s+.*\(([^)]*)\)\s*$/.exec(line);
    if (m && m[3]!.split(', ').length === 1 && /team_member@/.test(m[3]!)) return { email: m[1]!, password: m[2]! };
  }
  throw new Error(`no member of one auction in the seed's output:\n${seedOutput}`);
}

const json = async (res: Response): Promise<any> => {
  if (!res.ok) throw new Error(`${res.url}: ${res.status} ${await res.text()}`);
  return res.json();
};

async function signIn(server: RunningServer, member: Member) {
  return json(
    await fetch(`${server.url}/auth/v1/token?grant_type=password`, {
      method: 'POST',
      headers: { apikey: server.anonKey, 'content-type': 'application/json' },
      body: JSON.stringify(member),
    }),
  ) as Promise<{ access_token: string; refresh_token: string }>;
}

/** The locations the member may read, as the data interface answers under row-level security. */
async function visibleLocations(server: RunningServer, token: string): Promise<{ id: string; auction_id: string }[]> {
  const rows = await json(
    await fetch(`${server.url}/rest/v1/locations?select=id,auction_id&order=id`, {
      headers: { apikey: server.anonKey, authorization: `Bearer ${token}` },
    }),
  );
  return rows;
}

const objectUrl = (server: RunningServer, name: string) => `${server.url}/storage/v1/object/upgrade-test/${name}`;
const serviceHeaders = (server: RunningServer) => ({
  apikey: server.serviceRoleKey,
  authorization: `Bearer ${server.serviceRoleKey}`,
});

describe('PostgreSQL major upgrade of the embedded cluster', () => {
  const dirs: string[] = [];
  const clusters: EmbeddedCluster[] = [];
  let bin16: string;
  let dataDir: string;
  let env: Record<string, string>;
  let member: Member;
  let session: { access_token: string; refresh_token: string };
  let locationsBefore: { id: string; auction_id: string }[];
  let allAuctions: string[];
  const objects = new Map<string, Buffer>();
  let digestsBefore: Map<string, string>;

  const newDataDir = () => {
    const dir = mkdtempSync(join(tmpdir(), 'auction-ops-pgmajor-'));
    dirs.push(dir);
    return dir;
  };
  const start = async (options: Parameters<typeof startEmbeddedPostgres>[0]) => {
    const cluster = await startEmbeddedPostgres(options);
    clusters.push(cluster);
    return cluster;
  };

  beforeAll(async () => {
    const began = performance.now();
    bin16 = fetchOldBinaries(16); // cached between runs (see old-binaries.ts cacheRoot)
    dataDir = newDataDir();
    env = { DATA_DIR: dataDir, JWT_SECRET, BACKUP_TARGET: '' };
    const cluster16 = await start({ dir: join(dataDir, 'postgres'), binDir: bin16 });
    const external = { ...env, DATABASE_URL: cluster16.url };
    const seeded = await cli(['seed', '--demo', '--scale', '10'], external);
    expect(seeded.code, seeded.stderr).toBe(0);
    member = memberOfOne(seeded.stdout);

    // A table made at run time, as a CSV dataset import makes it (its own code), with rows.
    const owner = postgres(cluster16.url, { max: 1, onnotice: () => {} });
    const staging = `ds_upgrade_${randomBytes(4).toString('hex')}`;
    const column = (name: string, type: DatasetColumn['type']): DatasetColumn => ({
      name,
      source: name,
      type,
      nullable: true,
      calculated: false,
    });
    await createStagingTable(owner, { id: randomUUID(), staging } as Parameters<typeof createStagingTable>[1], [
      column('plate', 'text'),
      column('price', 'numeric'),
      column('sold_at', 'timestamp'),
    ]);
    await owner.unsafe(
      `insert into reporting_data."${staging}" select 'P' || i, i * 1.5, now() - i * interval '1 hour'
         from generate_series(1, 500) i`,
    );
    allAuctions = (await owner<{ id: string }[]>`select id from public.auctions order by id`).map((a) => a.id);
    await owner.end();

    const server = await startServer(external);
    try {
      await json(
        await fetch(`${server.url}/storage/v1/bucket`, {
          method: 'POST',
          headers: { ...serviceHeaders(server), 'content-type': 'application/json' },
          body: JSON.stringify({ id: 'upgrade-test', name: 'upgrade-test', public: false }),
        }),
      );
      for (const [name, size] of [
        ['small.bin', 1000],
        ['photo.jpg', 300_000],
        ['nested/large.bin', 3_000_000],
      ] as const) {
        const bytes = randomBytes(size);
        await json(
          await fetch(objectUrl(server, name), {
            method: 'POST',
            headers: { ...serviceHeaders(server), 'content-type': 'application/octet-stream' },
            body: bytes,
          }),
        );
        objects.set(name, bytes);
      }
      session = await signIn(server, member);
      locationsBefore = await visibleLocations(server, session.access_token);
    } finally {
      await server.stop();
    }
    digestsBefore = await tableDigests(cluster16.url);
    await cluster16.stop();
    console.log(
      `PostgreSQL 16 cluster with demo data (scale 10) ready in ${((performance.now() - began) / 1000).toFixed(1)} s`,
    );
  });

  afterAll(async () => {
    await Promise.all(clusters.map((c) => c.stop().catch(() => {})));
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('refuses to start the server and the CLI on the 16 cluster, saying what to run', async () => {
    const server = await serverUntilExit(env);
    expect(server.code).toBe(1);
    expect(server.stderr).toMatch(REFUSAL);
    const status = await cli(['status'], env);
    expect(status.code).toBe(1);
    expect(status.stderr).toMatch(REFUSAL);
    expect(readFileSync(join(dataDir, 'postgres', 'data', 'PG_VERSION'), 'utf8').trim()).toBe('16');
  });

  it('upgrades to 17 with every row, password, refresh token, object and policy as before', async () => {
    const began = performance.now();
    const backupTarget = join(newDataDir(), 'backups-pg17');
    const upgraded = await cli(['db', 'upgrade', '--backup-target', backupTarget], env);
    const seconds = (performance.now() - began) / 1000;
    expect(upgraded.code, upgraded.stderr + upgraded.stdout).toBe(0);
    const summary = upgraded.stdout.split('\n').filter((l) => /^(copied \d+ rows|upgraded|base backup)/.test(l));
    console.log(`db upgrade (demo scale 10) took ${seconds.toFixed(1)} s in all:\n${summary.join('\n')}`);
    expect(upgraded.stdout).toMatch(/upgraded PostgreSQL 16 -> 17: \d+ tables, \d+ rows/);
    const postgresDir = join(dataDir, 'postgres');
    expect(readFileSync(join(postgresDir, 'data', 'PG_VERSION'), 'utf8').trim()).toBe('17');
    const kept = readdirSync(postgresDir).filter((name) => name.startsWith('data.pg16-'));
    expect(kept).toHaveLength(1);
    expect(readFileSync(join(postgresDir, kept[0]!, 'PG_VERSION'), 'utf8').trim()).toBe('16');
    expect(existsSync(join(postgresDir, 'data.upgrading'))).toBe(false);
    // The upgraded cluster's first base backup, in a target of its own; the kept old cluster is not part of it.
    expect(upgraded.stdout).toMatch(/base backup \S+ \([\d.]+ MB\) in /);
    const listed = await cli(['backup', 'list', '--target', backupTarget, '--json'], env);
    const [backup] = JSON.parse(listed.stdout);
    expect(backup.id).toBeTruthy();
    const manifest = readFileSync(join(backupTarget, 'backups', backup.id, 'manifest.json'), 'utf8');
    expect(manifest).toContain('postgres/data/PG_VERSION');
    expect(manifest).not.toContain('data.pg16-');

    // Rows before the server writes anything of its own (sessions, worker state).
    const cluster17 = await start({ dir: postgresDir });
    expect(await tableDigests(cluster17.url)).toEqual(digestsBefore);
    await cluster17.stop();

    const server = await startServer(env);
    try {
      expect(runningClusterUrl(postgresDir)).toBeDefined();
      const again = await signIn(server, member);
      expect(again.access_token).toBeTruthy();
      const refreshed = await json(
        await fetch(`${server.url}/auth/v1/token?grant_type=refresh_token`, {
          method: 'POST',
          headers: { apikey: server.anonKey, 'content-type': 'application/json' },
          body: JSON.stringify({ refresh_token: session.refresh_token }),
        }),
      );
      expect(refreshed.access_token).toBeTruthy();
      for (const [name, bytes] of objects) {
        const res = await fetch(objectUrl(server, name), { headers: serviceHeaders(server) });
        expect(res.status).toBe(200);
        expect(Buffer.from(await res.arrayBuffer()).equals(bytes)).toBe(true);
      }
      const locations = await visibleLocations(server, refreshed.access_token);
      expect(locations).toEqual(locationsBefore);
      const seen = new Set(locations.map((l) => l.auction_id));
      expect(seen.size).toBe(1); // its auction's rows, not the other auction's
      expect(allAuctions.filter((id) => !seen.has(id)).length).toBeGreaterThan(0);
    } finally {
      await server.stop();
    }
  });

  it('leaves the 16 cluster as it was when the upgrade cannot carry something', async () => {
    const failing = newDataDir();
    const failingEnv = { DATA_DIR: failing, JWT_SECRET, BACKUP_TARGET: '' };
    const postgresDir = join(failing, 'postgres');
    let cluster16 = await start({ dir: postgresDir, binDir: bin16 });
    const migrated = await cli(['migrate'], { ...failingEnv, DATABASE_URL: cluster16.url });
    expect(migrated.code, migrated.stderr).toBe(0);
    const owner = postgres(cluster16.url, { max: 1, onnotice: () => {} });
    await owner`create view public.hand_made as select id from public.auctions`;
    await owner.end();
    const before = await tableDigests(cluster16.url);
    await cluster16.stop();
    const listing = readdirSync(join(postgresDir, 'data')).sort();

    const upgraded = await cli(['db', 'upgrade'], failingEnv);
    expect(upgraded.code).toBe(1);
    expect(upgraded.stderr).toMatch(/cannot carry: relation public\.hand_made;/);
    expect(existsSync(join(postgresDir, 'data.upgrading'))).toBe(false);
    expect(readdirSync(postgresDir).filter((name) => name.startsWith('data.pg'))).toEqual([]);
    expect(readFileSync(join(postgresDir, 'data', 'PG_VERSION'), 'utf8').trim()).toBe('16');
    expect(readdirSync(join(postgresDir, 'data')).sort()).toEqual(listing);
    cluster16 = await start({ dir: postgresDir, binDir: bin16 });
    expect(await tableDigests(cluster16.url)).toEqual(before);
    const check = postgres(cluster16.url, { max: 1, onnotice: () => {} });
    expect(await check`select count(*)::int as n from public.hand_made`).toEqual([{ n: 0 }]);
    await check.end();
    await cluster16.stop();
  });

  it('refuses a DATABASE_URL to PostgreSQL 14', async () => {
    const bin14 = fetchOldBinaries(14);
    const dir = newDataDir();
    const cluster14 = await start({ dir: join(dir, 'pg14'), binDir: bin14 });
    const server = await serverUntilExit({ DATA_DIR: dir, JWT_SECRET, DATABASE_URL: cluster14.url });
    expect(server.code).toBe(1);
    expect(server.stderr).toMatch(
      /DATABASE_URL points to PostgreSQL 14\.\d+; auction-ops needs PostgreSQL 15 or newer/,
    );
    await cluster14.stop();
  });
});
