// `auction-ops backup` refusals as an operator meets them: exit status and one clear message, nothing changed.
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runCli } from './support/run-cli.js';

let root: string;
/** An empty directory target beside DATA_DIR (root/data): a target holding DATA_DIR is refused. */
let target: string;

const cli = (env: Record<string, string>, ...args: string[]) =>
  runCli({ DATA_DIR: join(root, 'data'), JWT_SECRET: 'c'.repeat(40), ...env }, ...args);

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'auction-ops-cli-backup-'));
  target = join(root, 'target');
  mkdirSync(target);
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

it('with DATABASE_URL, says the database is the operator’s and points to docs/backups.md', async () => {
  const result = await cli({ DATABASE_URL: 'postgres://db.example/app', BACKUP_TARGET: target }, 'backup', 'create');
  expect(result.code).toBe(1);
  expect(result.out).toContain('DATABASE_URL is set');
  expect(result.out).toContain('docs/backups.md');
});

it('without a target, says how to name one', async () => {
  const result = await cli({}, 'backup', 'list');
  expect(result.code).toBe(1);
  expect(result.out).toContain('no backup target: set BACKUP_TARGET or pass --target');
});

it('refuses a target that cannot be written before starting anything', async () => {
  const file = join(root, 'plain-file');
  writeFileSync(file, '');
  const result = await cli({}, 'backup', 'create', '--target', join(file, 'backups'));
  expect(result.code).toBe(1);
  expect(result.out).toContain(`backup target ${join(file, 'backups')} cannot be written`);
  expect(existsSync(join(root, 'data'))).toBe(false);
});

it('refuses a target under a file system that takes no directories, at once instead of spinning', async () => {
  const result = await cli({}, 'backup', 'create', '--target', '/proc/sys/auction-ops-backups');
  expect(result.code).toBe(1);
  expect(result.out).toContain('backup target /proc/sys/auction-ops-backups cannot be written');
  expect(existsSync(join(root, 'data'))).toBe(false);
});

it('refuses an unknown id by name, and a restore without --data-dir with the usage', async () => {
  const unknown = await cli({ BACKUP_TARGET: target }, 'backup', 'restore', 'nope', '--data-dir', join(root, 'out'));
  expect(unknown.code).toBe(1);
  expect(unknown.out).toContain('no backup with id "nope"');
  expect(existsSync(join(root, 'out'))).toBe(false);
  const usage = await cli({ BACKUP_TARGET: target }, 'backup', 'restore', 'latest');
  expect(usage.code).toBe(2);
  expect(usage.out).toContain('usage: auction-ops backup');
});

it('lists an empty target, as text and as a JSON array', async () => {
  expect((await cli({}, 'backup', 'list', '--target', target)).out).toContain(`no backups in ${target}`);
  expect(JSON.parse((await cli({}, 'backup', 'list', '--target', target, '--json')).out)).toEqual([]);
});
