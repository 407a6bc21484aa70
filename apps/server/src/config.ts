// Configuration from the environment, validated at start. A bad value stops the process with one line
// naming the variable and what is wrong with it.
import * as v from 'valibot';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = resolve(fileURLToPath(new URL('../../..', import.meta.url)));

const port = v.pipe(
  v.string(),
  v.regex(/^\d+$/, 'must be a whole number'),
  v.transform(Number),
  v.minValue(0, 'must be between 0 and 65535'),
  v.maxValue(65535, 'must be between 0 and 65535'),
);
const bool = v.pipe(
  v.picklist(['true', 'false', '1', '0'], 'must be true or false'),
  v.transform((s) => s === 'true' || s === '1'),
);
const url = v.pipe(v.string(), v.url('must be a URL'));
const nonEmpty = v.pipe(v.string(), v.minLength(1, 'must not be empty'));
const positiveInt = v.pipe(
  v.string(),
  v.regex(/^\d+$/, 'must be a whole number'),
  v.transform(Number),
  v.minValue(1, 'must be at least 1'),
);

const schema = v.object({
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
  WORKERS_ENABLED: v.optional(bool, 'true'),
  TRUSTED_PROXY_CIDRS: v.optional(v.string(), ''),
  // Storage (/storage/v1): where object bytes live, and the largest upload any bucket accepts (bytes).
  STORAGE_BACKEND: v.optional(v.picklist(['fs', 's3'], 'must be fs or s3'), 'fs'),
  STORAGE_FILE_SIZE_LIMIT: v.optional(positiveInt, String(10 * 1024 * 1024)),
  // Orphaned bytes (a crash between placing an upload and its commit): swept at start and every N seconds
  // (0: never), only keys older than the grace period, which must exceed any write transaction.
  STORAGE_ORPHAN_SWEEP_SECONDS: v.optional(
    v.pipe(v.string(), v.regex(/^\d+$/, 'must be a whole number'), v.transform(Number)),
    '3600',
  ),
  STORAGE_ORPHAN_GRACE_SECONDS: v.optional(positiveInt, '3600'),
  S3_ENDPOINT: v.optional(url),
  S3_BUCKET: v.optional(nonEmpty),
  S3_REGION: v.optional(nonEmpty, 'us-east-1'),
  S3_ACCESS_KEY_ID: v.optional(nonEmpty),
  S3_SECRET_ACCESS_KEY: v.optional(nonEmpty),
  S3_FORCE_PATH_STYLE: v.optional(bool, 'false'),
  // Auth (/auth/v1): passwords, tokens, e-mail links, rate limits, mail providers.
  AUTH_MIN_PASSWORD_LENGTH: v.optional(positiveInt, '8'),
  AUTH_MAX_PASSWORD_LENGTH: v.optional(positiveInt, '72'),
  AUTH_PASSWORD_REQUIRED_CHARACTERS: v.optional(
    v.pipe(
      v.string(),
      v.regex(
        /^((lower|upper|digit|symbol)(,(lower|upper|digit|symbol))*)?$/,
        'must be a comma-separated list of lower, upper, digit, symbol',
      ),
    ),
    '',
  ),
  AUTH_AUTOCONFIRM: v.optional(bool, 'true'),
  AUTH_DISABLE_SIGNUP: v.optional(bool, 'false'),
  AUTH_ACCESS_TOKEN_SECONDS: v.optional(positiveInt, '3600'),
  AUTH_REFRESH_REUSE_SECONDS: v.optional(
    v.pipe(v.string(), v.regex(/^\d+$/, 'must be a whole number'), v.transform(Number)),
    '10',
  ),
  AUTH_ONE_TIME_TOKEN_SECONDS: v.optional(positiveInt, '3600'),
  AUTH_REDIRECT_ALLOW_LIST: v.optional(v.string(), ''),
  AUTH_RATE_LIMIT_STORE: v.optional(v.picklist(['memory', 'postgres'], 'must be memory or postgres'), 'memory'),
  AUTH_RATE_LIMIT_WINDOW_SECONDS: v.optional(positiveInt, '3600'),
  AUTH_RATE_LIMIT_SIGN_IN: v.optional(positiveInt, '30'),
  AUTH_RATE_LIMIT_SIGN_UP: v.optional(positiveInt, '5'),
  AUTH_RATE_LIMIT_RECOVER: v.optional(positiveInt, '5'),
  AUTH_RATE_LIMIT_REFRESH: v.optional(positiveInt, '60'),
  AUTH_RATE_LIMIT_OTHER: v.optional(positiveInt, '3600'),
  JWT_ES256_PRIVATE_KEY: v.optional(nonEmpty),
  MAIL_FROM: v.optional(nonEmpty, 'auction-ops <noreply@localhost>'),
  RESEND_API_KEY: v.optional(nonEmpty),
  RESEND_BASE_URL: v.optional(url, 'https://api.resend.com'),
  SMTP_URL: v.optional(v.pipe(v.string(), v.regex(/^smtps?:\/\//, 'must be an smtp:// or smtps:// URL'))),
  // Webhooks: the dispatcher (switch it off to run dedicated dispatcher processes), its retry schedule (seconds
  // before each attempt, the first 0), jitter (fraction), SSRF allow-list, and log retention.
  WEBHOOK_DISPATCHER_ENABLED: v.optional(bool, 'true'),
  WEBHOOK_RETRY_SCHEDULE: v.optional(
    v.pipe(
      v.string(),
      v.regex(/^\s*0(\.0+)?\s*(,\s*\d+(\.\d+)?\s*)*$/, 'must be comma-separated seconds starting with 0'),
    ),
    '0,60,300,1800,7200,43200',
  ),
  WEBHOOK_JITTER: v.optional(
    v.pipe(v.string(), v.regex(/^(0(\.\d+)?|1(\.0+)?)$/, 'must be a fraction between 0 and 1'), v.transform(Number)),
    '0.2',
  ),
  WEBHOOK_RETRY_AFTER_MAX_SECONDS: v.optional(positiveInt, '3600'),
  WEBHOOK_ALLOWED_CIDRS: v.optional(
    v.pipe(v.string(), v.regex(/^[0-9a-fA-F:./,\s]*$/, 'must be a comma-separated list of CIDRs')),
    '',
  ),
  WEBHOOK_ALLOW_HTTP: v.optional(bool, 'false'),
  WEBHOOK_CONCURRENCY: v.optional(positiveInt, '64'),
  WEBHOOK_PER_ENDPOINT_CONCURRENCY: v.optional(positiveInt, '8'),
  WEBHOOK_DISABLE_AFTER_FAILURES: v.optional(positiveInt, '5'),
  WEBHOOK_LOG_RETENTION_DAYS: v.optional(positiveInt, '30'),
  WEBHOOK_TIMEOUT_MS: v.optional(positiveInt, '30000'),
  WEBHOOK_POLL_INTERVAL_MS: v.optional(positiveInt, '1000'),
  // PEM file of extra certificate authorities for receivers on private networks (added to the public roots).
  WEBHOOK_TLS_CA_FILE: v.optional(nonEmpty),
});

export type Env = v.InferOutput<typeof schema>;
export interface Config extends Env {
  PUBLIC_URL: string;
  APP_URL: string;
  DATA_DIR: string;
  /** PUBLIC_URL and APP_URL that were derived from HOST and PORT rather than given. */
  derivedUrls: { publicUrl: boolean; appUrl: boolean };
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Validates the environment; throws ConfigError with a one-line message for the first bad variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const known = Object.fromEntries(Object.keys(schema.entries).map((k) => [k, env[k] === '' ? undefined : env[k]]));
  const result = v.safeParse(schema, known);
  if (!result.success) {
    const issue = result.issues[0];
    const key = v.getDotPath(issue) ?? '?';
    throw new ConfigError(`invalid configuration: ${key}=${JSON.stringify(env[key] ?? '')} ${issue.message}`);
  }
  const out = result.output;
  const config = {
    ...out,
    DATA_DIR: resolve(out.DATA_DIR),
    PUBLIC_URL: out.PUBLIC_URL ?? '',
    APP_URL: out.APP_URL ?? '',
    derivedUrls: { publicUrl: !out.PUBLIC_URL, appUrl: !out.APP_URL },
  };
  return withPort(config, out.PORT);
}

/** The configuration with its port settled (PORT=0 is resolved to a free port before start), and derived URLs following it. */
export function withPort(config: Config, port: number): Config {
  const publicUrl = (config.derivedUrls.publicUrl ? `http://${config.HOST}:${port}` : config.PUBLIC_URL).replace(
    /\/$/,
    '',
  );
  return {
    ...config,
    PORT: port,
    PUBLIC_URL: publicUrl,
    APP_URL: (config.derivedUrls.appUrl ? publicUrl : config.APP_URL).replace(/\/$/, ''),
  };
}
