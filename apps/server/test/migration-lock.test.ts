// Released migrations are never edited: a data directory that applied one refuses to start once its file changes
// (the runner compares checksums). migrations.lock records the checksum of every migration of every set, so an
// edit fails here, in the change that makes it, rather than on an operator's server. A migration is released once
// a dated CHANGELOG.md entry names it; until then (named under [Unreleased]) it may be revised, and
// `pnpm migrations:relock <file>` writes its new checksum (scripts/release/relock.ts). A new migration is a new line
// in the lock, written by the same command; an area that needs another package's schema changed adds a migration to
// its own set, after that package's (the set's dependsOn).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadMigrations } from '@auction-ops/database';
import { migrationSets } from '@auction-ops/server-config/migration-sets';
import { releaseOf } from '../../../scripts/release/changelog.js';

const LOCK = fileURLToPath(new URL('../migrations.lock', import.meta.url));
const CHANGELOG = readFileSync(fileURLToPath(new URL('../../../CHANGELOG.md', import.meta.url)), 'utf8');

/** `set/file checksum` per line, as the lock file keeps them. */
function lockLines(text: string): Map<string, string> {
  const lines = text.split('\n').filter((line) => line.trim() && !line.startsWith('#'));
  return new Map(lines.map((line) => line.split(' ') as [string, string]));
}

describe('migrations.lock', () => {
  const locked = lockLines(readFileSync(LOCK, 'utf8'));
  const current = new Map(loadMigrations(migrationSets).map((m) => [`${m.set}/${m.name}`, m.checksum]));
  const changed = [...locked].filter(([name, sum]) => current.get(name) !== sum).map(([name]) => name);
  const ids = [...current.keys()];

  it('no released migration was edited or removed', () => {
    expect(
      changed.filter((name) => releaseOf(CHANGELOG, [...ids, name], name)),
      'released migrations changed or removed: put the change in a new migration instead',
    ).toEqual([]);
  });

  it('every unreleased migration is locked with its current checksum, and only those that exist', () => {
    const stale = changed.filter((name) => !releaseOf(CHANGELOG, [...ids, name], name));
    const missing = [...current.keys()].filter((name) => !locked.has(name));
    expect(
      [...stale, ...missing],
      'unreleased migrations changed, new or deleted: run `pnpm migrations:relock` with these names',
    ).toEqual([]);
  });
});
