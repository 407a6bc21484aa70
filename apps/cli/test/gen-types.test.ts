// `auction-ops gen types typescript` as a user runs it: the domain's committed types file must be what the command
// prints for the migrated schema (regenerate with `pnpm gen:types` when a migration changes the schema).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '@auction-ops/database/testing';
import { migrationSets } from '@auction-ops/server-config/migration-sets';
import { runCli } from './support/run-cli.js';

const committed = fileURLToPath(new URL('../../../packages/domain/types/database.ts', import.meta.url));
let db: TestDatabase;

const cli = (...args: string[]) =>
  runCli({}, ...args).then(({ code, stdout, stderr }) => ({ code, out: stdout, err: stderr }));

beforeAll(async () => {
  db = await createTestDatabase(migrationSets);
});
afterAll(() => db?.drop());

it('prints the committed packages/domain/types/database.ts for the migrated schema', async () => {
  const r = await cli('gen', 'types', 'typescript', '--db-url', db.ownerUrl);
  expect(r.err).toBe('');
  expect(r.code).toBe(0);
  // A difference means a migration changed the schema: run `pnpm gen:types` and commit the file.
  expect(r.out).toBe(readFileSync(committed, 'utf8'));
});

it('describes only the schemas asked for', async () => {
  await db.sql.unsafe('create schema typegen_extra; create table typegen_extra.notes (id int primary key, body text)');
  const r = await cli('gen', 'types', 'typescript', `--schema=typegen_extra`, '--db-url', db.ownerUrl);
  expect(r.code).toBe(0);
  expect(r.out).toContain(
    'typegen_extra: {\n    Tables: {\n      notes: {\n        Row: {\n          body: string | null\n',
  );
  expect(r.out).not.toContain('auctions:');
});

it('refuses unknown options and missing values with the usage line', async () => {
  for (const args of [['--schemas', 'public'], ['--db-url']]) {
    const r = await cli('gen', 'types', 'typescript', ...args);
    expect(r.code).toBe(2);
    expect(r.err).toContain('usage: auction-ops gen types typescript');
  }
  expect((await cli('gen', 'types', 'python')).code).toBe(2);
});

it('fails with a message, not a stack, when the database cannot be reached', async () => {
  const r = await cli('gen', 'types', 'typescript', '--db-url', 'postgres://nobody@127.0.0.1:1/none');
  expect(r.code).toBe(1);
  expect(r.err).toMatch(/^auction-ops gen: /);
});
