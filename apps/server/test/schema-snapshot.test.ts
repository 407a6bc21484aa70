// docs/schema/<schema>.sql: the schema in force, one readable file per schema, generated from what the migrations
// make (issue 55), so that nobody replays 80 migrations in their head to find a definition. Read the schema there;
// change it in a new migration, then regenerate with `pnpm schema:snapshot`. A stale file fails here, naming each
// object whose text differs.
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { differingObjects, schemaTexts } from '@auction-ops/database';
import { createTestDatabase, type TestDatabase } from '@auction-ops/database/testing';
import { migrationSets } from '@auction-ops/server-config/migration-sets';

const DIR = fileURLToPath(new URL('../../../docs/schema/', import.meta.url));
const HEADER =
  '-- Generated from the migrations by apps/server/test/schema-snapshot.test.ts (`pnpm schema:snapshot`): do not\n' +
  '-- edit. Read the schema in force here; change it in a new migration (packages/*/migrations*).';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase(migrationSets);
});
afterAll(async () => {
  await db?.drop();
});

const committed = () =>
  new Map(
    readdirSync(DIR)
      .filter((f) => f.endsWith('.sql'))
      .map((f) => [f.slice(0, -4), readFileSync(join(DIR, f), 'utf8')]),
  );

// PostgreSQL 15 (CI's second run) writes the same text as the embedded 17 (tried): the check holds on both.
it('docs/schema holds the schema the migrations make, object by object', async () => {
  const texts = await schemaTexts(db.sql, HEADER);
  if (process.env.SCHEMA_SNAPSHOT_WRITE) {
    rmSync(DIR, { recursive: true, force: true });
    mkdirSync(DIR, { recursive: true });
    for (const [schema, text] of texts) writeFileSync(join(DIR, `${schema}.sql`), text);
  }
  const files = committed();
  const stale = [...new Set([...texts.keys(), ...files.keys()])].sort().flatMap((schema) => {
    const [file, text] = [files.get(schema), texts.get(schema)];
    if (file === undefined) return [`${schema}: no docs/schema/${schema}.sql`];
    if (text === undefined) return [`${schema}: docs/schema/${schema}.sql names a schema the migrations do not make`];
    return differingObjects(file, text).map((object) => `${schema}: ${object}`);
  });
  expect(stale, 'stale: regenerate docs/schema with `pnpm schema:snapshot`').toEqual([]);
  for (const [schema, text] of texts) expect(files.get(schema), schema).toBe(text);
});
