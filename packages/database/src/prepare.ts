// Brings a database to the state a server needs: running (embedded, or external by URL), roles present,
// migrations applied. The server and the CLI both start here.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { startEmbeddedPostgres, runningClusterUrl, type EmbeddedCluster } from './embedded-postgres.js';
import { startSupervisedPostgres, type RestartPolicy } from './postgres-supervisor.js';
import { lockDataDir } from './data-dir-lock.js';
import { ensureRoles, authenticatorUrl, setRequestStatementTimeout } from './roles.js';
import { checkDatabaseRelease, migrate, type MigrationSet } from './migrations.js';
import { checkExternalServer } from './major-upgrade/cluster-version.js';

export interface PrepareOptions {
  /** External database; when absent an embedded cluster runs in `${dataDir}/postgres`. */
  databaseUrl?: string;
  dataDir: string;
  /** Overrides the authenticator password kept in the database (DB_AUTHENTICATOR_PASSWORD). */
  authenticatorPassword?: string;
  migrationSets: readonly MigrationSet[];
  /**
   * The release these sets make up in full (the server's version). With it, applying migrations first refuses a
   * database a newer release migrated, before roles or migrations touch it, and records the release in the ledger.
   */
  release?: string;
  /** Apply pending migrations (the server does; `status` does not). */
  applyMigrations?: boolean;
  /**
   * Whether an embedded cluster may be made when `${dataDir}/postgres` holds none (default: yes). The server's start
   * and `migrate` make one; every other command refuses, so that a mistyped DATA_DIR does not become a new database.
   */
  createCluster?: boolean;
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
  /**
   * The statement timeout of the request connections (DB_STATEMENT_TIMEOUT_MS), set as the authenticator's default
   * in this database; left as it is when absent (the CLI).
   */
  requestStatementTimeoutMs?: number;
  /** Extra settings of an embedded cluster this call starts (e.g. WAL archiving); ignored for external ones. */
  embeddedSettings?: Record<string, string | number>;
  /** The embedded cluster's port (DB_EMBEDDED_PORT); 0 or absent: a free one. */
  embeddedPort?: number;
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
    if (options.createCluster === false) assertClusterIn(options.dataDir);
    lock = lockDataDir(options.dataDir);
    try {
      const dir = join(options.dataDir, 'postgres');
      const settings = options.embeddedSettings;
      const port = options.embeddedPort;
      cluster = options.supervise
        ? await startSupervisedPostgres({ dir, port, settings, log, ...options.supervise })
        : await startEmbeddedPostgres({ dir, port, settings, log });
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
    const applying = options.applyMigrations !== false;
    if (applying && options.release) await checkDatabaseRelease(ownerUrl, options.migrationSets, options.release);
    password = await ensureRoles(ownerUrl, options.authenticatorPassword);
    if (options.requestStatementTimeoutMs)
      await setRequestStatementTimeout(ownerUrl, options.requestStatementTimeoutMs).catch((error) => {
        // An external database whose owner may not alter roles still serves; its operator sets the timeout.
        if ((error as { code?: string }).code !== '42501') throw error;
        log(`the request connections' statement timeout is not set (${(error as Error).message}); see docs/scaling.md`);
      });
    if (applying) await migrate(ownerUrl, options.migrationSets, log, options.release);
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

export class NoClusterError extends Error {
  override name = 'NoClusterError';
}

/** Refuses a DATA_DIR without an embedded cluster (before anything, the directory itself included, is made). */
function assertClusterIn(dataDir: string): void {
  if (existsSync(join(dataDir, 'postgres', 'data', 'PG_VERSION'))) return;
  throw new NoClusterError(
    `DATA_DIR ${dataDir} holds no database (no PostgreSQL cluster in ${join(dataDir, 'postgres', 'data')}): ` +
      "check DATA_DIR or DATABASE_URL; only the server's start and `auction-ops migrate` make a new one",
  );
}
