// `pnpm migrations:relock <set/NNNN-name.sql | path to the file>...`: after editing, adding or deleting a migration
// that no release has brought yet, writes (or removes) its line in apps/server/migrations.lock. Refuses a released
// migration (one a dated CHANGELOG.md entry names); see scripts/release/relock.ts.
import { readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadMigrations } from '../packages/database/src/index.js';
import { migrationSets } from '../packages/server-config/src/migration-sets.js';
import { RelockRefused, relock } from './release/relock.js';

const LOCK = fileURLToPath(new URL('../apps/server/migrations.lock', import.meta.url));
const CHANGELOG = fileURLToPath(new URL('../CHANGELOG.md', import.meta.url));

/** `set/file` for a path to a migration file, or the argument as given. */
function migrationId(arg: string): string {
  if (!arg.endsWith('.sql') || !arg.includes('/migrations')) return arg;
  const set = migrationSets.find((s) => resolve(s.dir) === resolve(dirname(arg)));
  return set ? `${set.name}/${basename(arg)}` : arg;
}

const names = process.argv.slice(2).map(migrationId);
if (names.length === 0) {
  console.error('usage: pnpm migrations:relock <set/NNNN-name.sql | path to the migration file>...');
  process.exit(2);
}
try {
  const migrations = loadMigrations(migrationSets).map((m) => ({ id: `${m.set}/${m.name}`, checksum: m.checksum }));
  const { text, changes } = relock(readFileSync(LOCK, 'utf8'), readFileSync(CHANGELOG, 'utf8'), migrations, names);
  writeFileSync(LOCK, text);
  for (const change of changes) console.log(change);
} catch (err) {
  if (!(err instanceof RelockRefused)) throw err;
  console.error(`migrations:relock: ${err.message}`);
  process.exit(1);
}
