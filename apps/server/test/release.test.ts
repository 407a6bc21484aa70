// One release, told the same way everywhere: CHANGELOG.md's newest dated entry is the version the server reports,
// and every migration the server applies is named by exactly one entry, so an operator reading the changelog knows
// what an upgrade will do to the database. Work not yet released names its migrations under `## [Unreleased]`, the
// top entry, without a version bump; cutting a release dates that heading and sets the version in
// apps/server/package.json (the rules: scripts/release/changelog.ts).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadMigrations } from '@auction-ops/database';
import { migrationSets } from '@auction-ops/server-config/migration-sets';
import {
  changelogEntries,
  compareSemver,
  migrationEntries,
  SEMVER,
  UNRELEASED,
} from '../../../scripts/release/changelog.js';
import { version } from '../src/version.js';

const CHANGELOG = readFileSync(fileURLToPath(new URL('../../../CHANGELOG.md', import.meta.url)), 'utf8');

describe('the release', () => {
  const all = changelogEntries(CHANGELOG);
  const releases = all.filter((e) => e.version !== UNRELEASED);

  it('is semantic, and the newest dated CHANGELOG.md entry is the version the server reports', () => {
    expect(version).toMatch(SEMVER);
    expect(releases[0]?.version).toBe(version);
  });

  it('keeps unreleased work in one [Unreleased] entry, the top one, undated', () => {
    const unreleased = all.filter((e) => e.version === UNRELEASED);
    expect(unreleased.length, 'at most one [Unreleased] entry').toBeLessThanOrEqual(1);
    if (unreleased.length) {
      expect(all[0]?.version, '[Unreleased] above every release').toBe(UNRELEASED);
      expect(unreleased[0]!.date, 'an [Unreleased] heading carries no date').toBe('');
    }
  });

  it('has releases newest first, each dated and with an Upgrading part', () => {
    for (const entry of releases) {
      expect(entry.version, 'a release heading').toMatch(SEMVER);
      expect(entry.date, `${entry.version}'s date`).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      expect(entry.body, `${entry.version}'s Upgrading part`).toMatch(/^### Upgrading$/m);
    }
    for (let i = 1; i < releases.length; i++)
      expect(compareSemver(releases[i - 1]!.version, releases[i]!.version)).toBeGreaterThan(0);
  });

  it('names each migration in the one entry that brings it ([Unreleased] until released)', () => {
    const migrations = loadMigrations(migrationSets).map((m) => `${m.set}/${m.name}`);
    const namedBy = migrationEntries(CHANGELOG, migrations);
    expect(
      migrations.filter((m) => !namedBy.has(m)),
      'migrations no CHANGELOG.md entry names: name them under ## [Unreleased], ### Upgrading',
    ).toEqual([]);
    expect([...namedBy].filter(([, by]) => by.length > 1)).toEqual([]);
    expect(
      [...namedBy.keys()].filter((m) => !migrations.includes(m)),
      'named but not there',
    ).toEqual([]);
    // The heading is all a release changes: the Upgrading part is written with the migrations.
    const unreleased = all.find((e) => e.version === UNRELEASED);
    if (unreleased && [...namedBy.values()].some((by) => by.includes(UNRELEASED)))
      expect(unreleased.body, "[Unreleased]'s Upgrading part").toMatch(/^### Upgrading$/m);
  });
});
