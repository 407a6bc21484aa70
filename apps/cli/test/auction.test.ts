// `auction-ops auction` as an operator runs it: export a seeded auction (with its webhook secrets, sealed with the
// passphrase of the environment) from one DATA_DIR and import it into another; the same import again is refused
// with the conflicting ids, a damaged archive in one line; mistakes in the arguments are usage errors. An import
// into a DATA_DIR without a database needs --create (issue 56, item 5).
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runCli } from './support/run-cli.js';

let root: string;
const env = (dir: string) => ({
  DATA_DIR: join(root, dir),
  JWT_SECRET: 'd'.repeat(40),
  AUCTION_ARCHIVE_PASSPHRASE: 'operator passphrase',
});

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'auction-ops-cli-auction-'));
  chmodSync(root, 0o711); // as root, PostgreSQL runs as its own user and must pass through
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

it('refuses a command without its file or time as a usage error', async () => {
  for (const args of [
    ['export', 'riverside'],
    ['restore', 'riverside'],
  ]) {
    const result = await runCli(env('none'), 'auction', ...args);
    expect(result.code, args.join(' ')).toBe(2);
    expect(result.out).toContain('usage: auction-ops auction export');
  }
  expect(existsSync(join(root, 'none'))).toBe(false);
});

it('exports an auction from one instance and imports it into another; a second import is refused', async () => {
  const seeded = await runCli(env('source'), 'seed', '--demo', '--days', '1');
  expect(seeded.code, seeded.out).toBe(0);
  const file = join(root, 'riverside.auction.gz');
  const exported = await runCli(env('source'), 'auction', 'export', 'riverside', '--out', file, '--include-secrets');
  expect(exported.code, exported.out).toBe(0);
  expect(exported.stdout).toMatch(
    /^exported riverside \([0-9a-f-]{36}\): \d+ rows, 0 objects, webhook secrets encrypted/,
  );
  expect(exported.stderr).toContain('public.lot_submissions: ');

  // Into a DATA_DIR without a database: refused, naming --create, and nothing made; with it, made and migrated.
  const refusedEmpty = await runCli(env('target'), 'auction', 'import', file);
  expect(refusedEmpty.code).toBe(1);
  expect(refusedEmpty.out).toContain(`DATA_DIR ${join(root, 'target')} holds no database`);
  expect(refusedEmpty.out).toContain('or pass --create to make it for this import');
  expect(existsSync(join(root, 'target'))).toBe(false);
  const imported = await runCli(env('target'), 'auction', 'import', file, '--create');
  expect(imported.code, imported.out).toBe(0);
  expect(imported.stdout).toMatch(/^imported riverside \([0-9a-f-]{36}\): \d+ rows, 0 objects .*created unconfirmed/);
  expect(imported.stdout).toContain('created owner@riverside.example.com');
  expect(imported.stderr).toContain('match the manifest');
  expect(imported.stderr).toMatch(/applied \d+ migration\(s\) to /);

  const again = await runCli(env('target'), 'auction', 'import', file);
  expect(again.code).toBe(1);
  expect(again.out).toContain('refused: rows of the archive already exist here (nothing was imported)');
  expect(again.out).toMatch(/auction [0-9a-f-]{36} exists here \(slug riverside\)/);

  const wrong = await runCli({ ...env('target'), AUCTION_ARCHIVE_PASSPHRASE: 'nope' }, 'auction', 'import', file);
  expect(wrong.code).toBe(1);
  expect(wrong.out).toContain('wrong passphrase');

  // A damaged archive is one line and exit 1: no stack, no unhandled stream error (issue 52).
  const damaged = join(root, 'damaged.auction.gz');
  const bytes = readFileSync(file);
  writeFileSync(damaged, bytes.subarray(0, bytes.length >> 1));
  const refused = await runCli(env('target'), 'auction', 'import', damaged);
  expect(refused.code).toBe(1);
  expect(refused.stderr.trim()).toMatch(/^auction-ops auction: not an auction archive: [^\n]+$/);
}, 180_000);
