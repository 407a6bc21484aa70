// Read replicas, a connection pooler in front of the primary, and statement preparing (docs/scaling.md).
// DATABASE_URL itself (the primary, connected to directly) stays in the core section.
import * as v from 'valibot';
import { bool, commaSeparated, port, positiveInt } from './fields.js';

const POSTGRES_URL = /^postgres(ql)?:\/\/[^\s,]+$/;

const postgresUrl = v.pipe(v.string(), v.regex(POSTGRES_URL, 'must be a postgres:// URL'));

/**
 * What the server sets on the embedded cluster itself (its address, its replication for realtime, its WAL archiving
 * for backups): DB_EMBEDDED_SETTINGS may not change them.
 */
const SERVER_OWNED = new Set([
  'listen_addresses',
  'port',
  'unix_socket_directories',
  'data_directory',
  'config_file',
  'hba_file',
  'ident_file',
  'wal_level',
  'max_replication_slots',
  'max_wal_senders',
  'archive_mode',
  'archive_command',
  'archive_library',
  'archive_timeout',
  'restore_command',
]);
const SETTING_NAME = /^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)?$/;

/** `name=value` pairs separated by `;` (values may hold commas, as shared_preload_libraries does). */
const embeddedSettings = v.pipe(
  v.string(),
  v.transform((s) =>
    s
      .split(';')
      .map((pair) => pair.trim())
      .filter(Boolean)
      .map((pair) => {
        const at = pair.indexOf('=');
        // Setting names are case-insensitive to PostgreSQL (TimeZone, DateStyle).
        return at < 0 ? [pair, ''] : [pair.slice(0, at).trim().toLowerCase(), pair.slice(at + 1).trim()];
      }),
  ),
  v.check(
    (pairs) => pairs.every(([name, value]) => SETTING_NAME.test(name!) && value !== ''),
    'must be name=value pairs of PostgreSQL settings separated by ";"',
  ),
  v.check(
    (pairs) => pairs.every(([name]) => !SERVER_OWNED.has(name!)),
    `may not set what the server sets itself (${[...SERVER_OWNED].join(', ')})`,
  ),
  v.transform((pairs) => Object.fromEntries(pairs) as Record<string, string>),
);

/** Comma-separated postgres:// URLs; blanks between commas are ignored. */
const postgresUrls = commaSeparated((u) => POSTGRES_URL.test(u), 'must be comma-separated postgres:// URLs');

export const databaseSettings = {
  /** Streaming replicas of the primary for GET/HEAD on /rest/v1; logged into as the request role. */
  DATABASE_READ_URLS: v.optional(postgresUrls, ''),
  /** Time between two health checks (`select 1`) of each read replica. */
  DB_READ_CHECK_INTERVAL_MS: v.optional(positiveInt, '1000'),
  /** A replica whose WAL replay is further behind leaves rotation until a check finds it caught up. */
  DB_READ_MAX_LAG_MS: v.optional(positiveInt, '5000'),
  /** A pooler in transaction mode (PgBouncer) that the request pool connects through instead of DATABASE_URL. */
  DATABASE_POOLER_URL: v.optional(postgresUrl),
  /** Named prepared statements on every pool; false for a pooler in transaction mode that cannot keep them. */
  DB_PREPARE: v.optional(bool, 'true'),
  /**
   * The embedded PostgreSQL's TCP port on 127.0.0.1, fixed for firewalls and tools that attach to it; 0 (the default)
   * takes a free port at each start. Not for DATABASE_URL (that server's port is its own).
   */
  DB_EMBEDDED_PORT: v.optional(port, '0'),
  /**
   * PostgreSQL settings for the embedded cluster, `name=value;name=value` (e.g. `shared_buffers=512MB;
   * shared_preload_libraries=pg_stat_statements`), given at its start. Not for DATABASE_URL (configure that server).
   */
  DB_EMBEDDED_SETTINGS: v.optional(embeddedSettings, ''),
  /** The embedded PostgreSQL is restarted when it dies; this many deaths or failed starts within the window... */
  DB_RESTART_MAX_FAILURES: v.optional(positiveInt, '5'),
  /** ...make the server give up and exit non-zero (docs/operations.md). */
  DB_RESTART_WINDOW_SECONDS: v.optional(positiveInt, '300'),
  /** Time between two checks (`select 1`) that the database answers; requests get 503 at once while it does not. */
  DB_CHECK_INTERVAL_MS: v.optional(positiveInt, '1000'),
};

/**
 * What is wrong with DB_EMBEDDED_PORT or DB_EMBEDDED_SETTINGS beside the other settings (a message completing
 * "invalid configuration: ").
 */
export function embeddedClusterProblem(config: {
  DB_EMBEDDED_PORT: number;
  DB_EMBEDDED_SETTINGS: Record<string, string>;
  DATABASE_URL?: string;
  PORT: number;
}) {
  if (Object.keys(config.DB_EMBEDDED_SETTINGS).length && config.DATABASE_URL)
    return 'DB_EMBEDDED_SETTINGS is set, but DATABASE_URL is too: the embedded PostgreSQL does not run; unset one';
  if (config.DB_EMBEDDED_PORT === 0) return undefined;
  if (config.DATABASE_URL)
    return 'DB_EMBEDDED_PORT is set, but DATABASE_URL is too: the embedded PostgreSQL does not run; unset one';
  if (config.DB_EMBEDDED_PORT === config.PORT)
    return `DB_EMBEDDED_PORT and PORT are both ${config.PORT}: the embedded PostgreSQL needs a port of its own`;
  return undefined;
}
