// `pnpm migrations:relock`: an unreleased migration's lock line follows its revised file; a released one is refused.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { RelockRefused, relock } from './relock.js';

const CHANGELOG = `# Changelog

## [Unreleased]

### Upgrading

- \`domain/0036-transport.sql\`

## [0.4.0] - 2026-12-06

### Upgrading

- \`domain\` 0001 to 0035
`;
const LOCK = `# Checksums\ndomain/0001-tenancy.sql aaa\ndomain/0036-transport.sql bbb\nwebhooks/0001-webhooks.sql ccc\n`;
const MIGRATIONS = [
  { id: 'domain/0001-tenancy.sql', checksum: 'aaa' },
  { id: 'domain/0036-transport.sql', checksum: 'b2' },
  { id: 'domain/0037-more.sql', checksum: 'ddd' },
  { id: 'webhooks/0001-webhooks.sql', checksum: 'ccc' },
];

describe('relock', () => {
  it("rewrites only an unreleased migration's own line", () => {
    const { text, changes } = relock(LOCK, CHANGELOG, MIGRATIONS, ['domain/0036-transport.sql']);
    expect(text).toBe(LOCK.replace('0036-transport.sql bbb', '0036-transport.sql b2'));
    expect(changes).toEqual(['domain/0036-transport.sql: checksum updated']);
  });

  it('appends a new migration, keeping the final newline', () => {
    const { text } = relock(LOCK, CHANGELOG, MIGRATIONS, ['domain/0037-more.sql']);
    expect(text).toBe(`${LOCK}domain/0037-more.sql ddd\n`);
  });

  it('removes the line of an unreleased migration whose file is gone, never of a released one', () => {
    const gone = MIGRATIONS.filter((m) => m.id !== 'domain/0036-transport.sql' && m.id !== 'domain/0001-tenancy.sql');
    const { text, changes } = relock(LOCK, CHANGELOG, gone, ['domain/0036-transport.sql']);
    expect(text).toBe(LOCK.replace('domain/0036-transport.sql bbb\n', ''));
    expect(changes).toEqual(['domain/0036-transport.sql: removed']);
    expect(() => relock(LOCK, CHANGELOG, gone, ['domain/0001-tenancy.sql'])).toThrow(/released in 0\.4\.0/);
  });

  it('refuses a migration a dated entry names, and a name that is no migration', () => {
    expect(() => relock(LOCK, CHANGELOG, MIGRATIONS, ['domain/0001-tenancy.sql'])).toThrow(
      new RelockRefused(
        'domain/0001-tenancy.sql was released in 0.4.0 (CHANGELOG.md): databases may have applied it, so it is ' +
          'never edited; put the change in a new migration',
      ),
    );
    expect(() => relock(LOCK, CHANGELOG, MIGRATIONS, ['domain/9999-none.sql'])).toThrow(/no such migration/);
  });

  it('as the command, refuses a released migration of this repository named by its path, writing nothing', () => {
    const root = fileURLToPath(new URL('../..', import.meta.url));
    const lock = readFileSync(`${root}/apps/server/migrations.lock`, 'utf8');
    const run = spawnSync(
      process.execPath,
      ['--import', 'tsx', 'scripts/migrations-relock.ts', 'packages/domain/migrations/0001-tenancy.sql'],
      { cwd: root, encoding: 'utf8' },
    );
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/^migrations:relock: domain\/0001-tenancy\.sql was released in 0\.1\.0/);
    expect(readFileSync(`${root}/apps/server/migrations.lock`, 'utf8')).toBe(lock);
  });
});
