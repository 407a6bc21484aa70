// Which PostgreSQL major a data directory, a set of binaries and a server are: checked before anything starts, so
// a cluster of another major is refused with what to do instead of PostgreSQL's own "incompatible" failure.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import postgres from 'postgres';
import { upgradeErrors } from './upgrade-errors.js';

/** The oldest PostgreSQL an external DATABASE_URL may point to. */
export const MIN_EXTERNAL_MAJOR = 15;

/** The major written in a data directory's PG_VERSION, or undefined when there is no cluster yet. */
export function clusterMajor(pgdata: string): number | undefined {
  const file = join(pgdata, 'PG_VERSION');
  if (!existsSync(file)) return undefined;
  return Number.parseInt(readFileSync(file, 'utf8').trim(), 10);
}

const majors = new Map<string, number>();

/**
 * The major of a postgres binary, from `postgres --version` (allowed as root: no server starts), asked once per
 * process: every start of the embedded cluster checks it, the supervisor's restarts included.
 */
export function binariesMajor(postgresBinary: string): number {
  const known = majors.get(postgresBinary);
  if (known !== undefined) return known;
  const out = execFileSync(postgresBinary, ['--version'], { encoding: 'utf8' });
  const match = /\(PostgreSQL\)\s+(\d+)/.exec(out);
  if (!match) throw new Error(`cannot read the PostgreSQL version of ${postgresBinary}: ${out.trim()}`);
  majors.set(postgresBinary, Number(match[1]));
  return Number(match[1]);
}

/** Refuses a data directory written by another major than the binaries'; `where` names it in the message. */
export function checkClusterMajor(pgdata: string, binaries: number, where: string): void {
  const major = clusterMajor(pgdata);
  if (major === undefined || major === binaries) return;
  throw major < binaries
    ? upgradeErrors.olderCluster(where, major, binaries)
    : upgradeErrors.newerCluster(where, major, binaries);
}

/** Refuses a server older than MIN_EXTERNAL_MAJOR, from its server_version_num (e.g. 140023). */
export function checkServerVersion(versionNum: number, version: string): void {
  if (Math.floor(versionNum / 10000) < MIN_EXTERNAL_MAJOR)
    throw upgradeErrors.externalTooOld(version, MIN_EXTERNAL_MAJOR);
}

/** Connects to an external database once and refuses it when it is too old. */
export async function checkExternalServer(url: string): Promise<void> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const [row] = await sql<{ num: string; version: string }[]>`
      select current_setting('server_version_num') as num, current_setting('server_version') as version`;
    checkServerVersion(Number(row!.num), row!.version);
  } finally {
    await sql.end();
  }
}
