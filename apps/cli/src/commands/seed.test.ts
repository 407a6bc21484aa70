// `auction-ops seed --demo`: argument parsing and a full run against an empty database (migrated by the command).
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import postgres from 'postgres';
import { createTestDatabase, type TestDatabase } from '@auction-ops/database/testing';
import { verifyPassword } from '@auction-ops/auth-core';
import { seedCommand } from './seed.js';
import { seedUsage } from './seed-usage.js';

const parseSeedArgs = seedUsage.parse;

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase([]);
});
afterAll(async () => {
  await db.drop();
});

it('parses --demo and --scale, refusing anything else', () => {
  expect(parseSeedArgs(['--demo'])).toEqual({ scale: 1 });
  expect(parseSeedArgs(['--demo', '--scale', '3'])).toEqual({ scale: 3 });
  expect(parseSeedArgs(['--scale=2', '--demo'])).toEqual({ scale: 2 });
  expect(parseSeedArgs(['--demo', '--scale', '1000', '--days=365'])).toEqual({ scale: 1000, days: 365 });
  for (const bad of [
    [],
    ['--scale', '2'],
    ['--demo', '--scale', '0'],
    ['--demo', '--scale', 'x'],
    ['--demo', '--scale', '1001'],
    ['--demo', '--days', '0'],
    ['--demo', '--days'],
    ['--demo', '--fast'],
  ]) {
    expect(() => parseSeedArgs(bad)).toThrow(/usage/);
  }
});

it('migrates, seeds, and prints credentials that verify against the stored hashes', async () => {
  const out: string[] = [];
  const log = vi.spyOn(console, 'log').mockImplementation((s: string) => {
    out.push(s);
  });
  const err = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
  try {
    await seedCommand({ scale: 1 }, { ownerUrl: db.ownerUrl });
  } finally {
    log.mockRestore();
    err.mockRestore();
  }
  const text = out.join('\n');
  expect(text).toMatch(/Seeded 2 auctions/);
  const m = /(owner@riverside\.example\.com)\s+(\S+)/.exec(text);
  expect(m).not.toBeNull();
  const sql = postgres(db.ownerUrl, { max: 1, onnotice: () => {} });
  try {
    const [u] = await sql`select encrypted_password from auth.users where email = ${m![1]!}`;
    expect((await verifyPassword(m![2]!, u!.encrypted_password)).ok).toBe(true);
  } finally {
    await sql.end();
  }
});
