// Applied migrations are never edited: a data directory that applied one refuses to start once its file changes
// (the runner compares checksums). migrations.lock records the checksum of every migration of every set, so an
// edit fails here, in the change that makes it, rather than on an operator's server. A new migration is a new
// line in the lock; an area that needs another package's schema changed adds a migration to its own set, after
// that package's (the set's dependsOn).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadMigrations } from '@auction-ops/database';
import { migrationSets } from '@auction-ops/server-config/migration-sets';

const LOCK = fileURLToPath(new URL('../migrations.lock', import.meta.url));

/** `set/file checksum` per line, as the lock file keeps them. */
function lockLines(text: string): Map<string, string> {
  const lines = text.split('\n').filter((line) => line.trim() && !line.startsWith('#'));
  return new Map(lines.map((line) => line.split(' ') as [string, string]));
}

describe('migrations.lock', () => {
  const locked = lockLines(readFileSync(LOCK, 'utf8'));
  const current = new Map(loadMigrations(migrationSets).map((m) => [`${m.set}/${m.name}`, m.checksum]));

  it('no locked migration was edited or removed', () => {
    const changed = [...locked].filter(([name, sum]) => current.get(name) !== sum).map(([name]) => name);
    expect(changed, 'applied migrations changed: put the change in a new migration instead').toEqual([]);
  });

  it('every migration is locked', () => {
    const missing = [...current].filter(([name]) => !locked.has(name)).map(([name, sum]) => `${name} ${sum}`);
    expect(missing, 'new migrations: add these lines to apps/server/migrations.lock').toEqual([]);
  });
});
