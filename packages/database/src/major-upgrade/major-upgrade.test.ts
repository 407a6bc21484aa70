// The pure pieces of major versions and upgrades: version checks, catalog and digest comparison, the kept name.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkClusterMajor, checkServerVersion, clusterMajor } from './cluster-version.js';
import { compareCatalogs } from './catalog-snapshot.js';
import { compareDigests } from './row-digests.js';
import { keptDirName } from './swap-dirs.js';
import { PostgresVersionError } from './upgrade-errors.js';
import { qualified } from '../quote-ident.js';

describe('PostgreSQL major checks', () => {
  const dir = mkdtempSync(join(tmpdir(), 'auction-ops-major-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const cluster = (major: string) => {
    const pgdata = join(dir, major);
    mkdirSync(pgdata, { recursive: true });
    writeFileSync(join(pgdata, 'PG_VERSION'), `${major}\n`);
    return pgdata;
  };

  it('reads PG_VERSION and accepts the binaries own major or no cluster yet', () => {
    expect(clusterMajor(cluster('17'))).toBe(17);
    expect(clusterMajor(join(dir, 'absent'))).toBeUndefined();
    expect(() => checkClusterMajor(cluster('17'), 17, 'x')).not.toThrow();
    expect(() => checkClusterMajor(join(dir, 'absent'), 17, 'x')).not.toThrow();
  });

  it('refuses an older cluster with the command to run, and a newer one with the release to run', () => {
    expect(() => checkClusterMajor(cluster('16'), 17, 'DATA_DIR/postgres/data')).toThrow(
      "DATA_DIR/postgres/data holds a PostgreSQL 16 cluster; this release runs PostgreSQL 17: run 'auction-ops db upgrade'",
    );
    expect(() => checkClusterMajor(cluster('18'), 17, 'd')).toThrow(/newer than this release's PostgreSQL 17/);
  });

  it('refuses an external server older than 15 by server_version_num', () => {
    expect(() => checkServerVersion(140023, '14.23')).toThrow(PostgresVersionError);
    expect(() => checkServerVersion(150000, '15.0')).not.toThrow();
    expect(() => checkServerVersion(180001, '18.1')).not.toThrow();
  });
});

describe('upgrade comparisons', () => {
  it('tells missing, different and new-only catalog entries apart', () => {
    const old = new Map([
      ['relation public.a', 'r postgres'],
      ['relation public.v', 'v postgres'],
      ['index public.a_pkey', 'x'],
    ]);
    const now = new Map([
      ['relation public.a', 'r postgres'],
      ['index public.a_pkey', 'y'],
      ['trigger public.a t', 'z'],
    ]);
    expect(compareCatalogs(old, now)).toEqual({
      missing: ['relation public.v'],
      different: ['index public.a_pkey: x (old) vs y (new)', 'trigger public.a t (new only)'],
    });
  });

  it('lets the new cluster alone have what the caller allows (the release ledger an old cluster predates)', () => {
    const now = new Map([['relation auction_ops.releases', 'r postgres']]);
    expect(compareCatalogs(new Map(), now).different).toEqual(['relation auction_ops.releases (new only)']);
    expect(compareCatalogs(new Map(), now, (key) => key.includes('releases')).different).toEqual([]);
  });

  it('names each table whose rows differ', () => {
    const before = new Map([
      ['"public"."a"', '3/1/2'],
      ['"public"."b"', '0/0/0'],
    ]);
    expect(compareDigests(before, new Map(before))).toEqual([]);
    expect(compareDigests(before, new Map([['"public"."a"', '2/1/2']]))).toEqual([
      '"public"."a": 3/1/2 (old) vs 2/1/2 (new)',
      '"public"."b": 0/0/0 (old) vs absent (new)',
    ]);
  });

  it('quotes identifiers, dots and quotes included', () => {
    expect(qualified('reporting_data', 'a."b')).toBe('"reporting_data"."a.""b"');
  });

  it('names the kept directory by the old major and the time', () => {
    expect(keptDirName(16, new Date('2026-11-28T05:01:02.345Z'))).toBe('data.pg16-20261128T050102Z');
  });
});
