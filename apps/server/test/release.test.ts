// One release, told the same way everywhere: CHANGELOG.md's newest entry is the version the server reports, and
// every migration the server applies is named by the one release that brings it, so an operator reading the
// changelog knows what an upgrade will do to the database.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadMigrations } from '@auction-ops/database';
import { migrationSets } from '@auction-ops/server-config/migration-sets';
import { version } from '../src/version.js';

const CHANGELOG = readFileSync(fileURLToPath(new URL('../../../CHANGELOG.md', import.meta.url)), 'utf8');
const SEMVER = /^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?$/;

interface Release {
  version: string;
  date: string;
  body: string;
}

function releases(text: string): Release[] {
  const headings = [...text.matchAll(/^## \[([^\]]+)\](?: - (\S+))?$/gm)];
  return headings
    .map((h, i) => ({
      version: h[1],
      date: h[2] ?? '',
      body: text.slice(h.index! + h[0].length, headings[i + 1]?.index ?? text.length),
    }))
    .filter((r) => r.version !== 'Unreleased');
}

/** The migrations a release's entry names: `set/NNNN-name.sql`, or `set` NNNN to NNNN for a run of them. */
function namedMigrations(body: string, all: readonly string[]): string[] {
  const named = [...body.matchAll(/`([a-z-]+\/\d{4}-[a-z0-9-]+\.sql)`/g)].map((m) => m[1]);
  for (const [, set, from, to] of body.matchAll(/`([a-z-]+)` (\d{4}) to (\d{4})/g)) {
    named.push(
      ...all.filter((m) => {
        const [mSet, file] = m.split('/');
        return mSet === set && file.slice(0, 4) >= from && file.slice(0, 4) <= to;
      }),
    );
  }
  return named;
}

function compareSemver(a: string, b: string): number {
  const [x, y] = [a, b].map((v) => v.split('-')[0].split('.').map(Number));
  return x[0] - y[0] || x[1] - y[1] || x[2] - y[2];
}

describe('the release', () => {
  const entries = releases(CHANGELOG);

  it('is semantic, and the newest CHANGELOG.md entry is the version the server reports', () => {
    expect(version).toMatch(SEMVER);
    expect(entries[0]?.version).toBe(version);
  });

  it('has entries newest first, each dated and with an Upgrading part', () => {
    for (const entry of entries) {
      expect(entry.version, 'a release heading').toMatch(SEMVER);
      expect(entry.date, `${entry.version}'s date`).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      expect(entry.body, `${entry.version}'s Upgrading part`).toMatch(/^### Upgrading$/m);
    }
    for (let i = 1; i < entries.length; i++)
      expect(compareSemver(entries[i - 1].version, entries[i].version)).toBeGreaterThan(0);
  });

  it('names each migration in the entry of the one release that brings it', () => {
    const all = loadMigrations(migrationSets).map((m) => `${m.set}/${m.name}`);
    const namedBy = new Map<string, string[]>();
    for (const entry of entries)
      for (const m of namedMigrations(entry.body, all)) namedBy.set(m, [...(namedBy.get(m) ?? []), entry.version]);
    expect(
      all.filter((m) => !namedBy.has(m)),
      'migrations no CHANGELOG.md entry names: add them to the coming release',
    ).toEqual([]);
    expect([...namedBy].filter(([, by]) => by.length > 1)).toEqual([]);
    expect(
      [...namedBy.keys()].filter((m) => !all.includes(m)),
      'named but not there',
    ).toEqual([]);
  });
});
