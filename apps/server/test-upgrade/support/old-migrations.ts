// An earlier commit's migration sets read straight from git, without a checkout or an install: its migration files
// (`git archive` into a temporary directory) and its set declarations (name, directory, dependsOn, listing order),
// enough to rebuild the schema that commit's server left in a database, in seconds instead of minutes.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, posix } from 'node:path';
import { promisify } from 'node:util';
import type { MigrationSet } from '@auction-ops/database';
import { REPO } from './old-release.js';

const run = promisify(execFile);

export interface OldMigrations {
  commit: string;
  /** apps/server/package.json's version at the commit. */
  version: string;
  /** In the commit's listing order; `dir` points into the extracted copy. */
  sets: MigrationSet[];
  remove(): void;
}

export const gitShow = async (commit: string, path: string) =>
  (await run('git', ['show', `${commit}:${path}`], { cwd: REPO, maxBuffer: 16 * 1024 * 1024 })).stdout;

// Every set module has had this one shape since the first migration set: a const with a name, a directory beside
// the module and optionally the sets it runs after. A commit declaring a set otherwise fails below, by name.
const SET_DECLARATION =
  /export const (\w+) = \{\s*name: '([\w-]+)',\s*dir: fileURLToPath\(new URL\('([^']+)', import\.meta\.url\)\),(?:\s*dependsOn: \[([^\]]*)\],)?\s*\}/g;

/** The identifiers of `migrationSets` in the commit's migration-sets.ts, in order (the order breaks ties). */
function listedSets(source: string): string[] {
  const list = /export const migrationSets[^=]*=\s*\[([^\]]*)\]/.exec(source)?.[1];
  if (!list) throw new Error('no migrationSets list');
  return list
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

export async function readOldMigrations(commit: string): Promise<OldMigrations> {
  const files = (await run('git', ['ls-tree', '-r', '--name-only', commit], { cwd: REPO, maxBuffer: 64 << 20 })).stdout
    .split('\n')
    .filter(Boolean);
  const listPath = files.find((f) => /^(apps\/server|packages\/server-config)\/src\/migration-sets\.ts$/.test(f));
  if (!listPath) throw new Error(`${commit}: no migration-sets.ts`);
  const declared = new Map<string, { name: string; dir: string; dependsOn?: string[] }>();
  const modules = files.filter((f) => /^packages\/[^/]+\/src\/.*migrations\.ts$/.test(f) && !f.endsWith('.test.ts'));
  for (const path of modules)
    for (const [, id, name, relative, deps] of (await gitShow(commit, path)).matchAll(SET_DECLARATION)) {
      const dependsOn = deps ? [...deps.matchAll(/'([\w-]+)'/g)].map((m) => m[1]) : undefined;
      declared.set(id, { name, dir: posix.normalize(posix.join(posix.dirname(path), relative)), dependsOn });
    }
  const listed = listedSets(await gitShow(commit, listPath)).map((id) => {
    const set = declared.get(id);
    if (!set) throw new Error(`${commit}: set ${id} of ${listPath} has no declaration this reader understands`);
    return set;
  });
  const root = mkdtempSync(join(tmpdir(), 'auction-ops-old-migrations-'));
  const remove = () => rmSync(root, { recursive: true, force: true });
  try {
    const archive = join(root, 'migrations.tar');
    await run('git', ['archive', '--output', archive, commit, '--', ...listed.map((s) => s.dir)], { cwd: REPO });
    await run('tar', ['-xf', archive, '-C', root]);
    const version = JSON.parse(await gitShow(commit, 'apps/server/package.json')).version as string;
    const sets = listed.map((s) => ({ ...s, dir: join(root, s.dir) }));
    return { commit, version, sets, remove };
  } catch (error) {
    remove();
    throw error;
  }
}

/** Source text of the runner function `name` at `commit` (or in this checkout): its semantics, compared as text. */
export async function runnerFunction(name: string, commit?: string): Promise<string> {
  const path = 'packages/database/src/migrations.ts';
  const source = commit ? await gitShow(commit, path) : readFileSync(join(REPO, path), 'utf8');
  const start = source.indexOf(`export function ${name}(`);
  if (start < 0) throw new Error(`${commit ?? 'this checkout'}: ${path} has no ${name}`);
  return source.slice(start, source.indexOf('\n}\n', start) + 2);
}
