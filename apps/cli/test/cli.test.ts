// The auction-ops command as a user runs it (a child process), against a database given by DATABASE_URL.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '@auction-ops/database/testing';
import { runCli } from './support/run-cli.js';

let db: TestDatabase;
let dataDir: string;

const cli = (...args: string[]) =>
  runCli({ DATABASE_URL: db.ownerUrl, DATA_DIR: dataDir, JWT_SECRET: 'c'.repeat(40) }, ...args);

beforeAll(async () => {
  db = await createTestDatabase([]);
  dataDir = mkdtempSync(join(tmpdir(), 'auction-ops-cli-'));
});
afterAll(async () => {
  await db?.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

// A whole migration from an empty database: tens of seconds on a loaded 2-core machine.
const MIGRATING = 120_000;

it(
  'reports pending migrations, applies them once, then reports none',
  async () => {
    const before = await cli('status');
    expect(before.code).toBe(0);
    expect(before.out).toMatch(/database: up, external \(DATABASE_URL\)/);
    expect(before.out).toMatch(/0 applied, \d+ pending/);
    expect(before.out).toContain('pending auth-core/0001-auth-schema.sql');
    const applied = await cli('migrate');
    expect(applied.out).toMatch(/applied \d+ migration\(s\)/);
    expect((await cli('migrate')).out).toContain('database is up to date');
    expect((await cli('status')).out).toMatch(/\d+ applied, 0 pending/);
  },
  MIGRATING,
);

it('names an unknown command or argument and exits 2', async () => {
  const unknown = await cli('stauts');
  expect(unknown.code).toBe(2);
  expect(unknown.out).toContain('auction-ops: unknown command "stauts"');
  const bogus = await cli('status', '--bogus');
  expect(bogus.code).toBe(2);
  expect(bogus.out).toContain("Unknown option '--bogus'");
  expect(bogus.out).toContain('usage: auction-ops status');
  const option = await cli('backup', 'list', '--bogus');
  expect(option.code).toBe(2);
  expect(option.out).toContain("Unknown option '--bogus'");
  expect(option.out).toContain('usage: auction-ops backup');
  const action = await cli('db', 'downgrade');
  expect(action.code).toBe(2);
  expect(action.out).toContain('usage: auction-ops db upgrade');
  const help = await cli('--help');
  expect(help.code).toBe(0);
  expect(help.out).toContain('usage: auction-ops <command>');
});

it('db upgrade refuses an external database: its majors are its operator’s', async () => {
  const { code, out } = await cli('db', 'upgrade');
  expect(code).toBe(1);
  expect(out).toContain("DATABASE_URL is set: 'db upgrade' upgrades the embedded cluster only");
});

it('status says whether a server runs on DATA_DIR and who archives the database', async () => {
  const { code, out } = await cli('status');
  expect(code).toBe(0);
  expect(out).toContain('server: not running on this DATA_DIR');
  expect(out).toContain('archiving: not managed here (DATABASE_URL');
});

it('prints API keys that carry the anon and service_role roles', async () => {
  const { code, out } = await cli('keys');
  expect(code).toBe(0);
  const role = (line: string) =>
    JSON.parse(Buffer.from(out.match(new RegExp(`${line}:\\s+(\\S+)`))![1].split('.')[1], 'base64url').toString()).role;
  expect(role('anon')).toBe('anon');
  expect(role('service_role')).toBe('service_role');
});

it(
  'grants and revokes super admins by e-mail, and names an unknown user',
  async () => {
    await cli('migrate');
    await db.sql`insert into auth.users (email) values ('boss@cli.test')`;
    expect((await cli('super-admin', 'grant', 'boss@cli.test')).out).toContain('boss@cli.test is a super admin');
    expect((await cli('super-admin', 'list')).out).toContain('boss@cli.test');
    expect((await cli('super-admin', 'revoke', 'boss@cli.test')).out).toContain('no longer a super admin');
    expect((await cli('super-admin', 'list')).out).toContain('no super admins');
    const unknown = await cli('super-admin', 'grant', 'nobody@cli.test');
    expect(unknown).toMatchObject({ code: 2, out: expect.stringContaining('no user with e-mail nobody@cli.test') });
  },
  MIGRATING,
);

it('answers an unknown command with the usage and exit code 2', async () => {
  const res = await cli('frobnicate');
  expect(res.code).toBe(2);
  expect(res.out).toContain('usage: auction-ops <command>');
});

it('analytics verify exits 1 naming a rollup bucket that differs from its rows; rebuild repairs it', async () => {
  await cli('migrate');
  expect(await cli('analytics', 'verify')).toMatchObject({ code: 0, out: expect.stringContaining('match') });
  const [a] = await db.sql`insert into public.auctions (name, slug) values ('Verify', 'verify-cli') returning id`;
  const [l] = await db.sql`insert into public.locations (auction_id, name) values (${a!.id}, 'Lot') returning id`;
  await db.sql`insert into public.lot_submissions (auction_id, location_id, submitted_at)
    values (${a!.id}, ${l!.id}, '2030-01-01T10:30:00Z')`;
  await db.sql`update analytics.submission_hours set submissions = 5 where location_id = ${l!.id}`;
  const bad = await cli('analytics', 'verify', '--auction', a!.id);
  expect(bad.code).toBe(1);
  expect(bad.out).toContain(
    `submission_hours location ${l!.id} {"hour":"2030-01-01T10:00:00+00:00"}: stored {"cars":0,"submissions":5}, ` +
      'expected {"cars":0,"submissions":1}',
  );
  expect((await cli('analytics', 'rebuild')).code).toBe(0);
  expect((await cli('analytics', 'verify')).code).toBe(0);
  expect((await cli('analytics', 'check')).code).toBe(2);
}, 180_000); // seven runs of the command, each a Node process, on a loaded machine
