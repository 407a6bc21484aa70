// Revising a migration that no release has brought yet: its line in apps/server/migrations.lock takes the file's
// new checksum (is appended for a new file, removed for a deleted one). A migration named by a dated CHANGELOG.md entry is released, and
// operators' databases may have applied it: it is refused, and the change goes in a new migration.
import { releaseOf } from './changelog.js';

export interface LockableMigration {
  /** `set/NNNN-name.sql`, as the lock and the changelog name it. */
  readonly id: string;
  readonly checksum: string;
}

export class RelockRefused extends Error {}

/** The lock text with the named migrations' lines set to their current checksums, and a line per change made. */
export function relock(
  lock: string,
  changelog: string,
  migrations: readonly LockableMigration[],
  names: readonly string[],
): { text: string; changes: string[] } {
  const lines = lock.split('\n');
  const lockedName = (line: string) => (line.startsWith('#') ? '' : line.split(' ')[0]!);
  // Locked names count as migrations too, so a release naming a run of files still covers one since deleted.
  const ids = [...new Set([...migrations.map((m) => m.id), ...lines.map(lockedName).filter(Boolean)])];
  const changes: string[] = [];
  for (const name of names) {
    const migration = migrations.find((m) => m.id === name);
    const at = lines.findIndex((line) => lockedName(line) === name);
    if (!migration && at < 0) throw new RelockRefused(`${name}: no such migration (name it as set/NNNN-name.sql)`);
    const release = releaseOf(changelog, ids, name);
    if (release)
      throw new RelockRefused(
        `${name} was released in ${release} (CHANGELOG.md): databases may have applied it, so it is never edited; ` +
          'put the change in a new migration',
      );
    if (!migration) {
      // An unreleased migration deleted (a change abandoned): its line goes too.
      lines.splice(at, 1);
      changes.push(`${name}: removed`);
      continue;
    }
    const line = `${name} ${migration.checksum}`;
    if (at >= 0 && lines[at] === line) changes.push(`${name}: unchanged`);
    else if (at >= 0) {
      lines[at] = line;
      changes.push(`${name}: checksum updated`);
    } else {
      // Appended after the last line, keeping the file's final newline.
      const end = lines.at(-1) === '' ? lines.length - 1 : lines.length;
      lines.splice(end, 0, line);
      changes.push(`${name}: added`);
    }
  }
  return { text: lines.join('\n'), changes };
}
