// Listen address, data directory, database, keys, logging and request limits.
import * as v from 'valibot';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { port, bool, url, nonEmpty, positiveInt, commaSeparated } from './fields.js';

const repoRoot = resolve(fileURLToPath(new URL('../../..', import.meta.url)));

/** Schema names as written unquoted, or any name without a comma, blank or quote. */
const schemaNames = commaSeparated((name) => /^[^\s"]+$/.test(name), 'must be comma-separated schema names');

export const coreSettings = {
  PORT: v.optional(port, '54321'),
  HOST: v.optional(nonEmpty, '127.0.0.1'),
  DATA_DIR: v.optional(nonEmpty, resolve(repoRoot, '.data')),
  DATABASE_URL: v.optional(v.pipe(v.string(), v.regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL'))),
  JWT_SECRET: v.optional(v.pipe(v.string(), v.minLength(32, 'must be at least 32 characters'))),
  ANON_KEY: v.optional(nonEmpty),
  SERVICE_ROLE_KEY: v.optional(nonEmpty),
  PUBLIC_URL: v.optional(url),
  APP_URL: v.optional(url),
  LOG_LEVEL: v.optional(
    v.picklist(['debug', 'info', 'warn', 'error', 'silent'], 'must be debug, info, warn, error or silent'),
    'info',
  ),
  DB_AUTHENTICATOR_PASSWORD: v.optional(nonEmpty),
  DB_POOL_SIZE: v.optional(positiveInt, '20'),
  DB_STATEMENT_TIMEOUT_MS: v.optional(positiveInt, '15000'),
  DB_POOL_TIMEOUT_MS: v.optional(positiveInt, '10000'),
  REST_MAX_ROWS: v.optional(positiveInt, '1000'),
  /** Largest request body /rest/v1 reads (bytes); past it 413 PGRST413 before the rest is read. */
  REST_MAX_BODY_BYTES: v.optional(positiveInt, '10485760'),
  /**
   * `Accept: application/vnd.pgrst.plan` answers with EXPLAIN (PostgREST's db-plan-enabled). Off by default: a plan
   * tells any caller how data is stored and indexed, and ANALYZE runs the statement.
   */
  REST_PLAN_ENABLED: v.optional(bool, 'false'),
  /**
   * `Prefer: tx=rollback` (supabase-js `.rollback()`) is honoured: the request runs and answers, then its transaction
   * is rolled back (PostgREST's db-tx-end = commit-allow-override). Off by default, as in PostgREST.
   */
  REST_TX_ROLLBACK_ALLOWED: v.optional(bool, 'false'),
  /** Schemas after the exposed one on every request's search_path (PostgREST's db-extra-search-path). */
  REST_EXTRA_SEARCH_PATH: v.optional(schemaNames, 'public'),
  WORKERS_ENABLED: v.optional(bool, 'true'),
  TRUSTED_PROXY_CIDRS: v.optional(v.string(), ''),
};
