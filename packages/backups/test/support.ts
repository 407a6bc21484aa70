// A DATA_DIR with a running embedded cluster that archives to a directory target, for the backup tests.
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { startEmbeddedPostgres, type EmbeddedCluster } from '@auction-ops/database';
import { archiveNow } from '@auction-ops/database/testing';
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
    /** Forces the current WAL segment out and waits until it is archived (waitForArchivedSegment). */
    archiveNow: () => archiveNow(sql),
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
