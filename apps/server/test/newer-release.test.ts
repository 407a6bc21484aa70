// A database migrated by a newer release is refused at start, before anything touches it: the server process and
// the CLI commands that migrate exit 1 with one line naming both releases, and the ledger, the schema and the data
// are as they were. The row inserted is the one a newer release's migration would have left in the ledger.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findFreePort } from '@auction-ops/database';
import { createTestDatabase, type TestDatabase } from '@auction-ops/database/testing';
import { migrationSets } from '@auction-ops/server-config/migration-sets';
import { version } from '../src/version.js';
import { runCli, runRefusedRelease } from './support/release-process.js';

const START = fileURLToPath(new URL('../bin/start.mjs', import.meta.url));
const CLI = fileURLToPath(new URL('../../cli/bin/auction-ops.js', import.meta.url));
const FUTURE = 'domain/9041-from-a-newer-release.sql';

let db: TestDatabase;
let dataDir: string;
beforeAll(async () => {
  db = await createTestDatabase(migrationSets);
  dataDir = mkdtempSync(join(tmpdir(), 'auction-ops-newer-release-'));
  // Whatever release made the template, the ledger has the column a newer release writes.
  await db.sql`alter table auction_ops.migrations add column if not exists release text`;
  await db.sql`insert into public.auctions (name, slug) values ('Kept as it was', 'kept-as-it-was')`;
});
afterAll(async () => {
  await db?.drop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

/** Everything a start could change first: the ledger and its columns, the releases, a domain table. */
const snapshot = async () => ({
  ledger: await db.sql`select * from auction_ops.migrations order by package, name`,
  columns: await db.sql`select table_name, column_name from information_schema.columns
    where table_schema = 'auction_ops' order by 1, 2`,
  releases: await db.sql`select to_regclass('auction_ops.releases') as t`,
  auctions: await db.sql`select * from public.auctions order by id`,
});

async function env() {
  return {
    DATABASE_URL: db.ownerUrl,
    DATA_DIR: dataDir,
    JWT_SECRET: 'newer-release-test-secret-'.padEnd(40, 'x'),
    PORT: String(await findFreePort()),
  };
}

describe('a database migrated by a newer release', () => {
  it.each([
    ['0.3.0', `auction-ops 0.3.0 (${FUTURE} is unknown to ${version}); run 0.3.0 or newer`],
    [null, `a newer release of auction-ops (${FUTURE} is unknown to ${version}); run that release or newer`],
  ])('recorded by release %s is refused by the server and by migrate, untouched', async (release, names) => {
    const [set, name] = FUTURE.split('/');
    await db.sql`delete from auction_ops.migrations where package = ${set} and name = ${name}`;
    await db.sql`insert into auction_ops.migrations (package, name, checksum, release)
      values (${set}, ${name}, 'from-the-future', ${release})`;
    const before = await snapshot();
    const line = `this database was migrated by ${names}, or restore a backup taken before that upgrade`;

    const server = await runRefusedRelease(START, await env());
    expect(server.code, server.stdout).toBe(1);
    expect(server.stderr.trimEnd().split('\n')).toEqual([`auction-ops failed to start: ${line}`]);

    const migrate = await runCli(CLI, await env(), 'migrate');
    expect(migrate.code).toBe(1);
    expect(migrate.stderr.trimEnd().split('\n')).toEqual([`auction-ops migrate: ${line}`]);

    const status = await runCli(CLI, await env(), 'status');
    expect(status.code).toBe(1);
    expect(status.stdout).toContain(`migrations: refused: ${line}`);

    expect(await snapshot()).toEqual(before);
  });
});
