// Numbered SQL migrations per package, one transaction each, recorded with a checksum so an edited,
// already-applied file is refused instead of silently skipped. Sets run in the order their declared
// dependencies give (a set after every set it names), whatever order they are listed in.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import postgres from 'postgres';
import {
  compareVersions,
  lastRelease,
  RELEASE_LEDGER,
  recordReleaseStart,
  refuseNewerDatabase,
} from './release-ledger.js';

/** A package's migrations: `dir` holds files named NNNN-kebab-name.sql; `dependsOn` names sets that run first. */
export interface MigrationSet {
  readonly name: string;
  readonly dir: string;
  readonly dependsOn?: readonly string[];
}

export interface Migration {
  readonly set: string;
  readonly name: string;
  readonly sql: string;
  readonly checksum: string;
}

export class MigrationError extends Error {
  override name = 'MigrationError';
}

const FILE_NAME = /^\d{4}-[a-z0-9]+(?:-[a-z0-9]+)*\.sql$/;

/** The sets in dependency order (stable: listing order where no dependency decides); refuses gaps and cycles. */
export function orderMigrationSets(sets: readonly MigrationSet[]): MigrationSet[] {
  const byName = new Map(sets.map((s) => [s.name, s]));
  for (const set of sets)
    for (const dep of set.dependsOn ?? [])
      if (!byName.has(dep)) throw new MigrationError(`migration set ${set.name} needs ${dep}, which is not given`);
  const ordered: MigrationSet[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (set: MigrationSet, path: string[]) => {
    if (state.get(set.name) === 'done') return;
    if (state.get(set.name) === 'visiting')
      throw new MigrationError(`migration sets depend on each other in a cycle: ${[...path, set.name].join(' -> ')}`);
    state.set(set.name, 'visiting');
    for (const dep of set.dependsOn ?? []) visit(byName.get(dep)!, [...path, set.name]);
    state.set(set.name, 'done');
    ordered.push(set);
  };
  for (const set of sets) visit(set, []);
  return ordered;
}

export function loadMigrations(sets: readonly MigrationSet[]): Migration[] {
  return orderMigrationSets(sets).flatMap((set) =>
    readdirSync(set.dir)
      .filter((file) => file.endsWith('.sql'))
      .sort()
      .map((file) => {
        if (!FILE_NAME.test(file))
          throw new MigrationError(`${set.name}/${file}: migration files are named NNNN-kebab-name.sql`);
        const sql = readFileSync(join(set.dir, file), 'utf8');
        return { set: set.name, name: file, sql, checksum: createHash('sha256').update(sql).digest('hex') };
      }),
  );
}

/** A stable fingerprint of a list of migrations (used to name test templates). */
export function migrationsFingerprint(migrations: readonly Migration[]): string {
  const hash = createHash('sha256');
  for (const m of migrations) hash.update(`${m.set}/${m.name}:${m.checksum}\n`);
  return hash.digest('hex').slice(0, 16);
}

const LEDGER = `
  create schema if not exists auction_ops;
  create table if not exists auction_ops.migrations (
    package text not null,
    name text not null,
    checksum text not null,
    applied_at timestamptz not null default now(),
    primary key (package, name)
  );
  ${RELEASE_LEDGER}`;

interface Applied {
  package: string;
  name: string;
  checksum: string;
}

function checkEdited(migrations: readonly Migration[], applied: readonly Applied[]): void {
  const byKey = new Map(applied.map((a) => [`${a.package}/${a.name}`, a.checksum]));
  for (const m of migrations) {
    const checksum = byKey.get(`${m.set}/${m.name}`);
    if (checksum && checksum !== m.checksum) {
      throw new MigrationError(
        `migration ${m.set}/${m.name} was edited after it was applied; add a new migration instead of changing it`,
      );
    }
  }
}

export interface MigrationStatus {
  applied: string[];
  pending: string[];
}

export async function migrationStatus(ownerUrl: string, sets: readonly MigrationSet[]): Promise<MigrationStatus> {
  const migrations = loadMigrations(sets);
  const sql = postgres(ownerUrl, { max: 1, onnotice: () => {} });
  try {
    const [{ exists }] = await sql<
      { exists: boolean }[]
    >`select to_regclass('auction_ops.migrations') is not null as exists`;
    const applied = exists ? await sql<Applied[]>`select package, name, checksum from auction_ops.migrations` : [];
    checkEdited(migrations, applied);
    const done = new Set(applied.map((a) => `${a.package}/${a.name}`));
    const all = migrations.map((m) => `${m.set}/${m.name}`);
    return { applied: all.filter((k) => done.has(k)), pending: all.filter((k) => !done.has(k)) };
  } finally {
    await sql.end();
  }
}

export interface MigrateOptions {
  /**
   * Apply only these (`set/name`), still in order: `db upgrade` rebuilds exactly the schema an old cluster's ledger
   * lists, not the newer one this release would make.
   */
  only?: ReadonlySet<string>;
}

const keysOf = (migrations: readonly Migration[]) => new Set(migrations.map((m) => `${m.set}/${m.name}`));

export interface ReleaseStatus {
  /** The release that started on the database last, and when. */
  last?: { version: string; at: Date };
  /** Why `release` may not run on this database (a newer release migrated it); absent when it may. */
  refusal?: string;
}

/** For `auction-ops status`: what release ran last, and whether `release` (made of `sets`) may run here. */
export async function releaseStatus(ownerUrl: string, sets: readonly MigrationSet[], release: string) {
  const sql = postgres(ownerUrl, { max: 1, onnotice: () => {} });
  try {
    const status: ReleaseStatus = {};
    const last = await lastRelease(sql);
    if (last) status.last = { version: last.version, at: last.lastStartedAt };
    await refuseNewerDatabase(sql, keysOf(loadMigrations(sets)), release).catch((error: Error) => {
      status.refusal = error.message;
    });
    return status;
  } finally {
    await sql.end();
  }
}

/**
 * Refuses (NewerReleaseError) a database whose ledger lists migrations that `sets`, every set of `release`, lack:
 * a newer release migrated it. Reads only, so a refused database is left exactly as it was.
 */
export async function checkDatabaseRelease(ownerUrl: string, sets: readonly MigrationSet[], release: string) {
  const sql = postgres(ownerUrl, { max: 1, onnotice: () => {} });
  try {
    await refuseNewerDatabase(sql, keysOf(loadMigrations(sets)), release);
  } finally {
    await sql.end();
  }
}

/**
 * Applies pending migrations; concurrent callers wait on an advisory lock, so none is applied twice. With `release`
 * (the version whose migrations `sets` are, all of them), a database a newer release migrated is refused before the
 * ledger is touched, each migration applied records the release, and the release's start is recorded.
 */
export async function migrate(
  ownerUrl: string,
  sets: readonly MigrationSet[],
  log: (message: string) => void = () => {},
  release?: string,
  options: MigrateOptions = {},
): Promise<string[]> {
  const migrations = loadMigrations(sets);
  const sql = postgres(ownerUrl, { max: 1, onnotice: () => {} });
  try {
    await sql`select pg_advisory_lock(hashtext('auction-ops migrations'))`;
    // Under the lock: a newer release that started meanwhile is seen too.
    if (release) await refuseNewerDatabase(sql, keysOf(migrations), release);
    await sql.unsafe(LEDGER);
    const applied = await sql<Applied[]>`select package, name, checksum from auction_ops.migrations`;
    checkEdited(migrations, applied);
    const done = new Set(applied.map((a) => `${a.package}/${a.name}`));
    const newlyApplied: string[] = [];
    for (const m of migrations) {
      if (done.has(`${m.set}/${m.name}`)) continue;
      if (options.only && !options.only.has(`${m.set}/${m.name}`)) continue;
      try {
        await sql.begin(async (tx) => {
          await tx.unsafe(m.sql);
          await tx`insert into auction_ops.migrations (package, name, checksum, release)
            values (${m.set}, ${m.name}, ${m.checksum}, ${release ?? null})`;
        });
      } catch (error) {
        throw new MigrationError(`migration ${m.set}/${m.name} failed: ${(error as Error).message}`);
      }
      log(`applied migration ${m.set}/${m.name}`);
      newlyApplied.push(`${m.set}/${m.name}`);
    }
    if (newlyApplied.length > 0) await sql`notify pgrst, 'reload schema'`;
    if (release) {
      const previous = await recordReleaseStart(sql, release);
      // Allowed (it brought no migration this release lacks), but worth a line: its features are gone meanwhile.
      const newer = previous && compareVersions(previous, release) > 0 ? ', a newer release' : '';
      log(`release ${release} started; the release that ran here last: ${previous ?? 'none recorded'}${newer}`);
    }
    return newlyApplied;
  } finally {
    await sql`select pg_advisory_unlock_all()`.catch(() => {});
    await sql.end();
  }
}
