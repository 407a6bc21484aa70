// Brings a database to the state a server needs: running (embedded, or external by URL), roles present,
// migrations applied. The server and the CLI both start here.
import { join } from 'node:path';
import { startEmbeddedPostgres, runningClusterUrl, type EmbeddedCluster } from './embedded-postgres.js';
import { startSupervisedPostgres, type RestartPolicy } from './postgres-supervisor.js';
import { lockDataDir } from './data-dir-lock.js';
import { ensureRoles, authenticatorUrl } from './roles.js';
import { migrate, type MigrationSet } from './migrations.js';
import { checkExternalServer } from './major-upgrade/cluster-version.js';

export interface PrepareOptions {
  /** External database; when absent an embedded cluster runs in `${dataDir}/postgres`. */
  databaseUrl?: string;
  dataDir: string;
  /** Overrides the authenticator password kept in the database (DB_AUTHENTICATOR_PASSWORD). */
  authenticatorPassword?: string;
  migrationSets: readonly MigrationSet[];
  /** Apply pending migrations (the server does; `status` does not). */
  applyMigrations?: boolean;
  /** For the CLI: when a server already runs the embedded cluster, connect to it instead of failing. */
  attachToRunning?: boolean;
  log?: (message: string) => void;
  /**
   * Restart the embedded PostgreSQL when it dies (the server does; the CLI does not). `onGiveUp` is told when it
   * could not be kept running; `report` carries the supervisor's loud lines.
   */
  supervise?: {
    restart: RestartPolicy;
    report: (level: 'info' | 'warn' | 'error', message: string, fields?: Record<string, unknown>) => void;
    onGiveUp: (error: Error) => void;
  };
  /** Extra settings of an embedded cluster this call starts (e.g. WAL archiving); ignored for external ones. */
  embeddedSettings?: Record<string, string | number>;
}

export interface PreparedDatabase {
  /** Owner connection: migrations and maintenance only, never requests. */
  ownerUrl: string;
  /** Request connection: logs in as authenticator and switches role per transaction. */
  requestUrl: string;
  embedded: boolean;
  close(): Promise<void>;
}

export async function prepareDatabase(options: PrepareOptions): Promise<PreparedDatabase> {
  const log = options.log ?? (() => {});
  let cluster: EmbeddedCluster | undefined;
  let lock: { release(): void } | undefined;
  let ownerUrl = options.databaseUrl;
  // Before roles or migrations touch it: the SQL of this release needs PostgreSQL 15 or newer.
  if (ownerUrl) await checkExternalServer(ownerUrl);
  if (!ownerUrl && options.attachToRunning) ownerUrl = runningClusterUrl(join(options.dataDir, 'postgres'));
  if (!ownerUrl) {
    lock = lockDataDir(options.dataDir);
    try {
      const dir = join(options.dataDir, 'postgres');
      const settings = options.embeddedSettings;
      cluster = options.supervise
        ? await startSupervisedPostgres({ dir, settings, log, ...options.supervise })
        : await startEmbeddedPostgres({ dir, settings, log });
    } catch (error) {
      lock.release();
      throw error;
    }
    ownerUrl = cluster.url;
  }
  const close = async () => {
    await cluster?.stop();
    lock?.release();
  };
  let password: string;
  try {
    password = await ensureRoles(ownerUrl, options.authenticatorPassword);
    if (options.applyMigrations !== false) await migrate(ownerUrl, options.migrationSets, log);
  } catch (error) {
    await close();
    throw error;
  }
  return {
    ownerUrl,
    requestUrl: authenticatorUrl(ownerUrl, password),
    embedded: Boolean(cluster),
    close,
  };
}
