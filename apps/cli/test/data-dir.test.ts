// A mistyped DATA_DIR must not become a new database: only the server's start and `migrate` (with `seed`, which
// migrates first) make a cluster; every other command refuses a directory without one, naming it, and writes
// nothing there. A data directory and a backup target never hold one another.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './support/run-cli.js';

let root: string;
const cli = runCli;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'auction-ops-cli-datadir-'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('a DATA_DIR without a database', () => {
  it.each([['status'], ['super-admin', 'list'], ['mail', 'list'], ['analytics', 'verify']])(
    '`%s` refuses it by name and creates nothing',
    async (...args) => {
      const missing = join(root, 'mistyped');
      const result = await cli({ DATA_DIR: missing }, ...args);
      expect(result.code).toBe(1);
      expect(result.out).toContain(`DATA_DIR ${missing} holds no database`);
      expect(existsSync(missing)).toBe(false);
    },
  );

  it('an existing directory without a cluster is refused and left as it was', async () => {
    const empty = join(root, 'empty');
    mkdirSync(empty);
    const result = await cli({ DATA_DIR: empty }, 'status');
    expect(result.code).toBe(1);
    expect(result.out).toContain(`DATA_DIR ${empty} holds no database`);
    expect(readdirSync(empty)).toEqual([]);
  });

  it('`keys` refuses it instead of printing keys of a new secret', async () => {
    const missing = join(root, 'no-secrets');
    const result = await cli({ DATA_DIR: missing }, 'keys');
    expect(result.code).toBe(1);
    expect(result.out).toContain(`DATA_DIR ${missing} holds no secrets.json`);
    expect(result.out).not.toMatch(/anon:\s+ey/);
    expect(existsSync(missing)).toBe(false);
    // With JWT_SECRET the keys come from it, and DATA_DIR is not read.
    const given = await cli({ DATA_DIR: missing, JWT_SECRET: 'k'.repeat(40) }, 'keys');
    expect(given.code).toBe(0);
    expect(given.out).toMatch(/anon:\s+ey/);
  });
});

describe('a data directory and a backup target', () => {
  it('refuses DATA_DIR inside BACKUP_TARGET, and the reverse, before anything starts', async () => {
    const target = join(root, 'target');
    const inside = await cli({ DATA_DIR: join(target, 'data'), BACKUP_TARGET: target }, 'status');
    expect(inside.code).toBe(2);
    expect(inside.out).toContain(`DATA_DIR ${join(target, 'data')} is inside the backup target ${target}`);
    const reverse = await cli({ DATA_DIR: root, BACKUP_TARGET: join(root, 'backups') }, 'backup', 'list');
    expect(reverse.code).toBe(2);
    expect(reverse.out).toContain(`the backup target ${join(root, 'backups')} is inside DATA_DIR ${root}`);
    expect(existsSync(target)).toBe(false);
  });

  it('refuses --target inside DATA_DIR and a restore into the target', async () => {
    const dataDir = join(root, 'data');
    const target = join(root, 'apart');
    const create = await cli({ DATA_DIR: dataDir }, 'backup', 'create', '--target', join(dataDir, 'backups'));
    expect(create.code).toBe(2);
    expect(create.out).toContain(`the backup target ${join(dataDir, 'backups')} is inside DATA_DIR ${dataDir}`);
    const restore = await cli(
      { DATA_DIR: dataDir, BACKUP_TARGET: target },
      'backup',
      'restore',
      'latest',
      '--data-dir',
      join(target, 'restored'),
    );
    expect(restore.code).toBe(2);
    expect(restore.out).toContain(`--data-dir ${join(target, 'restored')} is inside the backup target ${target}`);
    expect(existsSync(dataDir)).toBe(false);
  });
});
