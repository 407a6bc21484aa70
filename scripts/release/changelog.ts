// CHANGELOG.md read as data: its entries, the migrations each names, and which migrations are released. A
// migration named by a dated entry is released (never edited again); one named under `## [Unreleased]` is work
// in progress, which may still be revised (`pnpm migrations:relock`). The release test, the event catalogue's
// `since` check and the relock command read the changelog through this one module.

export const UNRELEASED = 'Unreleased';
export const SEMVER = /^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?$/;

export interface ChangelogEntry {
  /** `x.y.z`, or `Unreleased` for the work not yet in a release. */
  version: string;
  /** `YYYY-MM-DD` for a release; empty for `[Unreleased]`. */
  date: string;
  body: string;
}

/** Every `## [version] - date` entry, in the file's order (newest first), `[Unreleased]` included. */
export function changelogEntries(text: string): ChangelogEntry[] {
  const headings = [...text.matchAll(/^## \[([^\]]+)\](?: - (\S+))?$/gm)];
  return headings.map((h, i) => ({
    version: h[1]!,
    date: h[2] ?? '',
    body: text.slice(h.index! + h[0].length, headings[i + 1]?.index ?? text.length),
  }));
}

/** The migrations an entry names: `set/NNNN-name.sql`, or `set` NNNN to NNNN for a run of them. */
export function namedMigrations(body: string, all: readonly string[]): string[] {
  const named = [...body.matchAll(/`([a-z-]+\/\d{4}-[a-z0-9-]+\.sql)`/g)].map((m) => m[1]!);
  for (const [, set, from, to] of body.matchAll(/`([a-z-]+)` (\d{4}) to (\d{4})/g)) {
    named.push(
      ...all.filter((m) => {
        const [mSet, file] = m.split('/') as [string, string];
        return mSet === set && file.slice(0, 4) >= from! && file.slice(0, 4) <= to!;
      }),
    );
  }
  return named;
}

/** Each named migration (`set/file`) with the versions of the entries naming it (`Unreleased` included). */
export function migrationEntries(text: string, all: readonly string[]): Map<string, string[]> {
  const namedBy = new Map<string, string[]>();
  for (const entry of changelogEntries(text))
    for (const m of namedMigrations(entry.body, all)) namedBy.set(m, [...(namedBy.get(m) ?? []), entry.version]);
  return namedBy;
}

/** The release that brought `migration`: the dated entry naming it, or undefined while it is unreleased. */
export function releaseOf(text: string, all: readonly string[], migration: string): string | undefined {
  return migrationEntries(text, all)
    .get(migration)
    ?.find((v) => v !== UNRELEASED);
}

export function compareSemver(a: string, b: string): number {
  const [x, y] = [a, b].map((v) => v.split('-')[0]!.split('.').map(Number)) as [number[], number[]];
  return x[0]! - y[0]! || x[1]! - y[1]! || x[2]! - y[2]!;
}

/**
 * The version an event type declared by unreleased work carries in `since_version`: the minor release after the
 * newest dated entry (a new event type is a feature). Fixed by the changelog alone, so writing it asks for no
 * release decision; a release that takes another number revises its unreleased migrations before its heading is
 * dated (the catalogue test names them).
 */
export function comingVersion(text: string): string {
  const newest = changelogEntries(text).find((e) => e.version !== UNRELEASED);
  if (!newest) return '0.1.0';
  const [major, minor] = newest.version.split('-')[0]!.split('.').map(Number) as [number, number];
  return `${major}.${minor + 1}.0`;
}
