// A DATA_DIR with a running embedded cluster that archives to a directory target, for the backup tests.
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { startEmbeddedPostgres, type EmbeddedCluster } from '@auction-ops/database';
import { archiveSettings, prepareArchiveDir, resolveTarget, type BackupTarget } from '../src/index.js';

export interface ArchivingServer {
  root: string;
  dataDir: string;
  target: BackupTarget;
  cluster: EmbeddedCluster;
  sql: postgres.Sql;
  /** Forces the current segment out and waits until the archiver has it. */
  archiveNow(): Promise<void>;
  stop(): Promise<void>;
}

/** `targetSpec`: a directory target under the temp root by default, or e.g. an s3:// URL. */
export async function startArchivingServer(targetSpec?: string): Promise<ArchivingServer> {
  const root = mkdtempSync(join(tmpdir(), 'auction-ops-backups-'));
  chmodSync(root, 0o711);
  const dataDir = join(root, 'data');
  const target = resolveTarget(targetSpec ?? join(root, 'target'));
  prepareArchiveDir(target);
  mkdirSync(join(dataDir, 'storage', 'objects', 'photos', 'ab'), { recursive: true });
  writeFileSync(join(dataDir, 'storage', 'objects', 'photos', 'ab', 'abcdef'), 'object bytes');
  writeFileSync(join(dataDir, 'secrets.json'), '{"jwtSecret":"kept"}\n');
  const cluster = await startEmbeddedPostgres({
    dir: join(dataDir, 'postgres'),
    settings: archiveSettings(target, 1),
  });
  const sql = postgres(cluster.url, { max: 2, onnotice: () => {} });
  return {
    root,
    dataDir,
    target,
    cluster,
    sql,
    async archiveNow() {
      const [{ wal }] = await sql`select pg_walfile_name(pg_switch_wal()) as wal`;
      // Under load (CI runs test files side by side) the archiver can be many segments behind: give up only
      // when it stops making progress for two minutes (past its own 60 s wake-up), not after a fixed time.
      let progress: string | null = '';
      let deadline = 0;
      for (;;) {
        const [row] = await sql`select last_archived_wal, last_failed_wal, failed_count from pg_stat_archiver`;
        if (row.last_archived_wal && row.last_archived_wal >= wal) return;
        if (row.last_archived_wal !== progress) [progress, deadline] = [row.last_archived_wal, Date.now() + 120_000];
        if (Date.now() > deadline) throw new Error(`segment ${wal} not archived: ${JSON.stringify(row)}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    async stop() {
      await sql.end({ timeout: 1 });
      await cluster.stop();
    },
  };
}

/** Starts a restored DATA_DIR's cluster and reads a query's rows. */
export async function queryRestored<T>(dataDir: string, run: (sql: postgres.Sql) => Promise<T>): Promise<T> {
  const cluster = await startEmbeddedPostgres({ dir: join(dataDir, 'postgres') });
  const sql = postgres(cluster.url, { max: 1, onnotice: () => {} });
  try {
    return await run(sql);
  } finally {
    await sql.end({ timeout: 1 });
    await cluster.stop();
  }
}
