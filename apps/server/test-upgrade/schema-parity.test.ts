// Schema parity (issue 55): a database upgraded from each release, and from the pre-release state of 734ca04, has
// exactly the schema a fresh install makes. Each origin's migrations, read from git at its commit, are applied to a
// database of one shared cluster as that commit's server applied them; then this checkout's runner brings it up to
// date, and its catalog is compared with a fresh database's object by object (schemas, relations, columns with
// types and defaults, constraints, indexes, policies with their expressions, functions with bodies and settings,
// triggers, types, grants, default privileges, publications, the database's role settings). Any difference fails,
// named. What a server does at start besides migrating (the request roles, the ledger) is this checkout's: an
// old server's did the same (roles.ts only grew since 734ca04). Installing and starting every release instead would
// take minutes each (upgrade-in-place.test.ts does it for the two whose data directories it keeps).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  catalogSnapshot,
  compareCatalogs,
  type EmbeddedCluster,
  ensureRoles,
  loadMigrations,
  type MigrationSet,
  migrate,
  migrationsFingerprint,
  startEmbeddedPostgres,
} from '@auction-ops/database';
import { migrationSets } from '@auction-ops/server-config/migration-sets';
import { version } from '../src/version.js';
import { type OldMigrations, readOldMigrations, runnerFunction } from './support/old-migrations.js';
import { REPO } from './support/old-release.js';
import { PRE_RELEASE, RELEASES } from './support/origins.js';
import { printTimings, type Timings } from './support/timings.js';

const ORIGINS = [PRE_RELEASE, ...RELEASES];

let root: string;
let cluster: EmbeddedCluster;
const olds = new Map<string, OldMigrations>();
/** Catalog of the fresh database, and of each upgraded one by its migrations' fingerprint (or why it failed). */
let fresh: Map<string, string>;
const upgraded = new Map<string, Map<string, string> | Error>();
const timings: Timings = {};

const urlOf = (database: string) => {
  const u = new URL(cluster.url);
  u.pathname = `/${database}`;
  return u.toString();
};

/** A new database with the request roles, migrated by `steps` in turn; its catalog. */
async function build(database: string, steps: readonly { sets: readonly MigrationSet[]; release?: string }[]) {
  const admin = postgres(cluster.url, { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`create database "${database}"`);
  } finally {
    await admin.end();
  }
  const url = urlOf(database);
  await ensureRoles(url);
  for (const step of steps) await migrate(url, step.sets, () => {}, step.release);
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    return await catalogSnapshot(sql, 'database');
  } finally {
    await sql.end();
  }
}

const fingerprintOf = (old: OldMigrations) => migrationsFingerprint(loadMigrations(old.sets));

beforeAll(async () => {
  const began = performance.now();
  root = mkdtempSync(join(tmpdir(), 'auction-ops-parity-'));
  const [started] = await Promise.all([
    startEmbeddedPostgres({ dir: join(root, 'postgres'), settings: { fsync: 'off', synchronous_commit: 'off' } }),
    ...ORIGINS.map(async (o) => olds.set(o.commit, await readOldMigrations(o.commit))),
  ]);
  cluster = started as EmbeddedCluster;
  timings['cluster and old migrations read'] = performance.now() - began;
  // Releases with the same migrations (0.3.0 to 0.3.2) made the same database: built once.
  const distinct = new Map([...olds.values()].map((old) => [fingerprintOf(old), old]));
  const building = performance.now();
  fresh = await build('fresh', [{ sets: migrationSets, release: version }]);
  await Promise.all(
    [...distinct].map(async ([fingerprint, old]) => {
      const steps = [{ sets: old.sets }, { sets: migrationSets, release: version }];
      upgraded.set(fingerprint, await build(`from_${fingerprint}`, steps).catch((error: Error) => error));
    }),
  );
  timings[`fresh and ${distinct.size} upgraded databases built and read`] = performance.now() - building;
}, 300_000);

afterAll(async () => {
  await cluster?.stop();
  for (const old of olds.values()) old.remove();
  if (root) rmSync(root, { recursive: true, force: true });
  printTimings(timings, 'schema parity');
});

describe('schema parity: every upgrade path reaches the schema of a fresh install', () => {
  it('starts from every release of CHANGELOG.md before this one', () => {
    const changelog = readFileSync(join(REPO, 'CHANGELOG.md'), 'utf8');
    const released = [...changelog.matchAll(/^## \[(\d+\.\d+\.\d+)\] - \d{4}-\d{2}-\d{2}$/gm)].map((m) => m[1]);
    const origins = RELEASES.map((r) => r.version);
    expect(released.filter((v) => v !== version).sort(), 'add the release to support/origins.ts').toEqual(
      origins.sort(),
    );
  });

  it('reads each origin as its commit shipped it, applied with the runner it shipped', async () => {
    for (const origin of ORIGINS) {
      expect(olds.get(origin.commit)?.version, origin.name).toBe(origin.version);
      // The rebuild applies old sets with this checkout's runner: valid while ordering and loading are unchanged.
      for (const fn of ['orderMigrationSets', 'loadMigrations'])
        expect(await runnerFunction(fn, origin.commit), `${fn} at ${origin.name}`).toBe(await runnerFunction(fn));
    }
  });

  it('names a difference of each kind a migration could leave, none failing a migration', async () => {
    const admin = postgres(cluster.url, { max: 1, onnotice: () => {} });
    try {
      await admin.unsafe('create database altered template fresh');
    } finally {
      await admin.end();
    }
    const sql = postgres(urlOf('altered'), { max: 1, onnotice: () => {} });
    try {
      await sql.unsafe(`
        drop policy webhook_endpoints_not_anonymous on public.webhook_endpoints;
        alter function public.is_anonymous_caller() set work_mem = '1MB';
        alter table public.auctions alter column name set default 'unnamed';
        grant select on public.webhook_endpoints to anon;
        alter role anon in database altered set statement_timeout = '1s';
        alter table public.auctions disable trigger user`);
      const lines = Object.values(compareCatalogs(fresh, await catalogSnapshot(sql, 'database'))).flat();
      // Objects on the search path (public) are named without their schema, as regclass and regprocedure print them.
      for (const key of [
        'policy webhook_endpoints webhook_endpoints_not_anonymous',
        'function is_anonymous_caller()',
        'column auctions.name',
        'relation webhook_endpoints',
        'setting anon',
        'trigger auctions ',
      ])
        expect(
          lines.some((line) => line.startsWith(key)),
          `${key} in:\n${lines.join('\n')}`,
        ).toBe(true);
    } finally {
      await sql.end();
    }
  });

  it.each(ORIGINS)('upgraded from $name', ({ commit }) => {
    const catalog = upgraded.get(fingerprintOf(olds.get(commit)!))!;
    if (catalog instanceof Error) throw catalog;
    const { missing, different } = compareCatalogs(fresh, catalog, () => false, ['fresh', 'upgraded']);
    expect([...missing.map((key) => `${key} (fresh only)`), ...different]).toEqual([]);
  });
});
