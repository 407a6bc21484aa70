import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import postgres from 'postgres';
import { createTestDatabase, type TestDatabase } from '../src/testing/index.js';
import {
  compareVersions,
  migrate,
  migrationStatus,
  MigrationError,
  NewerReleaseError,
  orderMigrationSets,
  prepareDatabase,
  releaseStatus,
} from '../src/index.js';

function setDir(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'migrations-'));
  for (const [name, sql] of Object.entries(files)) writeFileSync(join(dir, name), sql);
  return dir;
}

describe('migrations', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase([]);
  });
  afterAll(async () => {
    await db.drop();
  });

  it('applies pending files in order, once, and records them', async () => {
    const dir = setDir({
      '0001-create-things.sql': 'create table things (id int primary key);',
      '0002-add-name.sql': 'alter table things add column name text;',
    });
    const sets = [{ name: 'demo', dir }];
    expect(await migrate(db.ownerUrl, sets)).toEqual(['demo/0001-create-things.sql', 'demo/0002-add-name.sql']);
    expect(await migrate(db.ownerUrl, sets)).toEqual([]);
    expect(await migrationStatus(db.ownerUrl, sets)).toEqual({
      applied: ['demo/0001-create-things.sql', 'demo/0002-add-name.sql'],
      pending: [],
    });
    const cols =
      await db.sql`select column_name from information_schema.columns where table_name = 'things' order by 1`;
    expect(cols.map((c) => c.column_name)).toEqual(['id', 'name']);
  });

  it('refuses an applied migration that was edited', async () => {
    const dir = setDir({ '0001-a.sql': 'create table edited_a (id int);' });
    await migrate(db.ownerUrl, [{ name: 'edit', dir }]);
    writeFileSync(join(dir, '0001-a.sql'), 'create table edited_a (id bigint);');
    await expect(migrate(db.ownerUrl, [{ name: 'edit', dir }])).rejects.toThrow(
      /edit\/0001-a.sql was edited after it was applied/,
    );
    await expect(migrationStatus(db.ownerUrl, [{ name: 'edit', dir }])).rejects.toBeInstanceOf(MigrationError);
  });

  it('rolls back a failing migration entirely and reports which one', async () => {
    const dir = setDir({ '0001-bad.sql': 'create table half_done (id int); select * from no_such_table;' });
    await expect(migrate(db.ownerUrl, [{ name: 'bad', dir }])).rejects.toThrow(/bad\/0001-bad.sql failed/);
    const [row] = await db.sql`select to_regclass('half_done') as t`;
    expect(row.t).toBeNull();
  });

  it('applies each migration once when two runners start together', async () => {
    const dir = setDir({ '0001-counter.sql': 'create table race (id int); insert into race values (1);' });
    const sets = [{ name: 'race', dir }];
    const results = await Promise.all([migrate(db.ownerUrl, sets), migrate(db.ownerUrl, sets)]);
    expect(results.flat()).toEqual(['race/0001-counter.sql']);
    const [{ count }] = await db.sql`select count(*)::int as count from race`;
    expect(count).toBe(1);
  });

  it('rejects badly named files', async () => {
    const dir = setDir({ '1-bad_name.sql': 'select 1;' });
    await expect(migrate(db.ownerUrl, [{ name: 'names', dir }])).rejects.toThrow(/NNNN-kebab-name.sql/);
  });

  it('the authenticator role owns nothing and cannot read an ungranted table', async () => {
    await db.sql`create table secret_stuff (x int)`;
    const request = postgres(db.requestUrl, { max: 1 });
    try {
      const [who] =
        await request`select current_user, (select rolsuper from pg_roles where rolname = current_user) as su`;
      expect(who).toEqual({ current_user: 'authenticator', su: false });
      await expect(request`select * from secret_stuff`).rejects.toMatchObject({ code: '42501' });
      await expect(
        request.begin(async (tx) => {
          await tx`select set_config('role', 'service_role', true)`;
          return tx`select * from secret_stuff`;
        }),
      ).rejects.toMatchObject({ code: '42501' });
    } finally {
      await request.end();
    }
  });
});

describe('releases in the ledger', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase([]);
  });
  afterAll(async () => {
    await db.drop();
  });
  const ledger = () => db.sql`select package, name, checksum, release from auction_ops.migrations order by 1, 2`;

  it('records the release that applied each migration and each release that started', async () => {
    const sets = [{ name: 'rel', dir: setDir({ '0001-a.sql': 'create table rel_a (id int);' }) }];
    await migrate(db.ownerUrl, sets, () => {}, '0.2.0');
    const more = [{ name: 'rel', dir: setDir({ '0001-a.sql': 'create table rel_a (id int);', '0002-b.sql': '' }) }];
    const logged: string[] = [];
    await migrate(db.ownerUrl, more, (m) => logged.push(m), '0.3.0');
    expect((await ledger()).map((r) => [r.name, r.release])).toEqual([
      ['0001-a.sql', '0.2.0'],
      ['0002-b.sql', '0.3.0'],
    ]);
    expect(logged.at(-1)).toBe('release 0.3.0 started; the release that ran here last: 0.2.0');
    const releases = await db.sql`select version from auction_ops.releases order by first_started_at, version`;
    expect(releases.map((r) => r.version)).toEqual(['0.2.0', '0.3.0']);
    expect((await releaseStatus(db.ownerUrl, more, '0.3.0')).last?.version).toBe('0.3.0');
    // 0.3.1 brought no migration: 0.3.0 may run after it, and says so.
    await migrate(db.ownerUrl, more, () => {}, '0.3.1');
    await migrate(db.ownerUrl, more, (m) => logged.push(m), '0.3.0');
    expect(logged.at(-1)).toBe('release 0.3.0 started; the release that ran here last: 0.3.1, a newer release');
    await db.sql`delete from auction_ops.releases where version = '0.3.1'`;

    // 0.2.0 again: 0002-b.sql is 0.3.0's; refused before anything changes, by migrate and by prepareDatabase.
    const before = { ledger: await ledger(), releases: await db.sql`select * from auction_ops.releases` };
    const expected =
      'this database was migrated by auction-ops 0.3.0 (rel/0002-b.sql is unknown to 0.2.0); ' +
      'run 0.3.0 or newer, or restore a backup taken before that upgrade';
    await expect(migrate(db.ownerUrl, sets, () => {}, '0.2.0')).rejects.toThrow(new NewerReleaseError(expected));
    const prepared = prepareDatabase({
      databaseUrl: db.ownerUrl,
      dataDir: '/nonexistent',
      migrationSets: sets,
      release: '0.2.0',
    });
    await expect(prepared).rejects.toThrow(expected);
    expect((await releaseStatus(db.ownerUrl, sets, '0.2.0')).refusal).toBe(expected);
    expect({ ledger: await ledger(), releases: await db.sql`select * from auction_ops.releases` }).toEqual(before);
  });

  it('names "a newer release" for rows applied without a release, and needs a release to check at all', async () => {
    const dir = setDir({ '0001-x.sql': 'select 1;', '0002-y.sql': 'select 1;' });
    await migrate(db.ownerUrl, [{ name: 'anon', dir }]);
    const only = [{ name: 'anon', dir: setDir({ '0001-x.sql': 'select 1;' }) }];
    await expect(migrate(db.ownerUrl, only, () => {}, '0.1.0')).rejects.toThrow(
      /^this database was migrated by a newer release of auction-ops \(rel\/0001-a.sql and 2 more are unknown to 0.1.0\); run that release or newer/,
    );
    // Without a release the caller does not claim its sets are all there are (tests, benchmarks): no check.
    expect(await migrate(db.ownerUrl, only)).toEqual([]);
  });

  it('orders versions by number', () => {
    expect(['0.10.0', '0.9.1', '1.0.0-rc.1', '0.9.0'].sort(compareVersions)).toEqual([
      '0.9.0',
      '0.9.1',
      '0.10.0',
      '1.0.0-rc.1',
    ]);
  });
});

describe('migration set order', () => {
  const set = (name: string, dependsOn: string[] = []) => ({ name, dir: '/nowhere', dependsOn });

  it('runs each set after the sets it names, keeping the listed order otherwise', () => {
    const order = orderMigrationSets([set('webhooks', ['domain']), set('auth'), set('domain', ['auth']), set('x')]);
    expect(order.map((s) => s.name)).toEqual(['auth', 'domain', 'webhooks', 'x']);
  });

  it('refuses a missing dependency and a cycle, naming them', () => {
    expect(() => orderMigrationSets([set('domain', ['auth'])])).toThrow(
      'migration set domain needs auth, which is not given',
    );
    expect(() => orderMigrationSets([set('a', ['b']), set('b', ['a'])])).toThrow(
      'migration sets depend on each other in a cycle: a -> b -> a',
    );
  });
});
