// `auction-ops status`: what an operator checks first. The server serving this DATA_DIR (from DATA_DIR/server.json),
// the database, WAL archiving (PostgreSQL's own counters), the last restore drill, the release and the migrations
// still to apply.
import postgres from 'postgres';
import { readDrillRecord, resolveTarget } from '@auction-ops/backups';
import { migrationStatus, releaseStatus, runningServerInfo } from '@auction-ops/database';
import { migrationSets } from '@auction-ops/server-config/migration-sets';
import { version } from '@auction-ops/server/version';
import { type CliDatabase, withDatabase } from '../database.js';

function serverLine(dataDir: string): string {
  const server = runningServerInfo(dataDir);
  if (!server) return 'server: not running on this DATA_DIR';
  const processes = server.processes === 1 ? '1 process' : `${server.processes} processes`;
  return `server: running at ${server.url} (pid ${server.pid}, ${server.version}, ${processes}, since ${server.started_at})`;
}

interface Archiver {
  mode: string;
  archived_count: string;
  last_archived_wal: string | null;
  last_archived_time: Date | null;
  failed_count: string;
  last_failed_time: Date | null;
}

async function archivingLine(db: CliDatabase): Promise<string> {
  if (db.config.DATABASE_URL) return 'archiving: not managed here (DATABASE_URL: the database is its operator’s)';
  if (!db.config.BACKUP_TARGET) return 'archiving: off (BACKUP_TARGET is not set)';
  const sql = postgres(db.ownerUrl, { max: 1, onnotice: () => {} });
  try {
    const [a] = await sql<Archiver[]>`
      select current_setting('archive_mode') as mode, archived_count, last_archived_wal, last_archived_time,
        failed_count, last_failed_time
      from pg_stat_archiver`;
    if (a.mode === 'off') return `archiving: off (the cluster runs without archive_mode; restart the server)`;
    const last = a.last_archived_wal
      ? `last segment ${a.last_archived_wal} at ${a.last_archived_time?.toISOString()}`
      : 'nothing archived yet';
    const failed =
      Number(a.failed_count) > 0 ? `, ${a.failed_count} failures (last at ${a.last_failed_time?.toISOString()})` : '';
    return `archiving: on, to ${db.config.BACKUP_TARGET} (${last}${failed})`;
  } finally {
    await sql.end();
  }
}

/** The last restore drill, from its record in the target (docs/backups.md, "Restore drill"). */
async function drillLine(db: CliDatabase): Promise<string | undefined> {
  if (db.config.DATABASE_URL || !db.config.BACKUP_TARGET) return undefined;
  const target = resolveTarget(db.config.BACKUP_TARGET);
  try {
    const last = await readDrillRecord(target);
    if (!last) return 'drill: none yet';
    const when = `${last.outcome} at ${last.finished_at} in ${last.duration_seconds} s`;
    const passed = last.outcome === 'passed' ? '' : `; last passed ${last.last_success_at ?? 'never'}`;
    return `drill: ${when}: ${last.reason}${passed}`;
  } catch (error) {
    return `drill: the record in ${db.config.BACKUP_TARGET} could not be read: ${(error as Error).message}`;
  } finally {
    target.store.close();
  }
}

export async function statusCommand(): Promise<void> {
  await withDatabase(async (db) => {
    console.log(serverLine(db.config.DATA_DIR));
    const where = db.config.DATABASE_URL ? 'external (DATABASE_URL)' : `embedded in ${db.config.DATA_DIR}`;
    console.log(`database: up, ${where}`);
    console.log(await archivingLine(db));
    const drill = await drillLine(db);
    if (drill) console.log(drill);
    const release = await releaseStatus(db.ownerUrl, migrationSets, version);
    const last = release.last ? `${release.last.version} (${release.last.at.toISOString()})` : 'none recorded';
    console.log(`release: this is ${version}; last started on this database: ${last}`);
    if (release.refusal) {
      // A newer release's ledger makes "pending" meaningless for this one: say why it may not run, and fail.
      console.log(`migrations: refused: ${release.refusal}`);
      process.exitCode = 1;
      return;
    }
    const status = await migrationStatus(db.ownerUrl, migrationSets);
    console.log(`migrations: ${status.applied.length} applied, ${status.pending.length} pending`);
    for (const name of status.pending) console.log(`  pending ${name}`);
  });
}
