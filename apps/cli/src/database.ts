// Opens the service's database for a CLI command: the running server's embedded cluster if there is one,
// else an embedded cluster started for the duration of the command, or DATABASE_URL.
import { continuousArchiving } from '@auction-ops/backups';
import { prepareDatabase } from '@auction-ops/database';
import { loadConfig, type Config } from '@auction-ops/server-config';
import { migrationSets } from '@auction-ops/server-config/migration-sets';

export interface CliDatabase {
  config: Config;
  ownerUrl: string;
  close(): Promise<void>;
}

/**
 * `create`: whether this command may make the embedded cluster when DATA_DIR holds none (`migrate` and `seed`, which
 * set a database up); every other command refuses such a DATA_DIR, naming it.
 */
export async function openDatabase(options: { create?: boolean } = {}): Promise<CliDatabase> {
  const config = loadConfig();
  const db = await prepareDatabase({
    createCluster: options.create ?? false,
    databaseUrl: config.DATABASE_URL,
    dataDir: config.DATA_DIR,
    authenticatorPassword: config.DB_AUTHENTICATOR_PASSWORD,
    embeddedPort: config.DB_EMBEDDED_PORT,
    migrationSets,
    applyMigrations: false,
    attachToRunning: true,
    // A cluster started for a command archives like the server's would: no WAL may escape the archive.
    embeddedSettings: { ...config.DB_EMBEDDED_SETTINGS, ...continuousArchiving(config) },
  });
  return { config, ownerUrl: db.ownerUrl, close: () => db.close() };
}

/** Runs a command against the database and closes it afterwards. */
export async function withDatabase(
  run: (db: CliDatabase) => Promise<void>,
  options: { create?: boolean } = {},
): Promise<void> {
  const db = await openDatabase(options);
  try {
    await run(db);
  } finally {
    await db.close();
  }
}
