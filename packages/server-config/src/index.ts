// Configuration from the environment, validated at start. A bad value stops the process with one line
// naming the variable and what is wrong with it. Each area declares its settings in a section module beside
// this one. The server and the CLI both import this package: the CLI reads the settings without loading the server.
import * as v from 'valibot';
import { resolve } from 'node:path';
import { coreSettings } from './core.js';
import { storageSettings } from './storage.js';
import { imageTransformSettings } from './image-transform.js';
import { authSettings } from './auth.js';
import { oauthSettings } from './oauth.js';
import { phoneConfigProblem, phoneSettings } from './phone.js';
import { samlConfigProblem, samlSettings } from './saml.js';
import { webhooksSettings } from './webhooks.js';
import { reportingSettings } from './reporting.js';
import { limitsSettings } from './limits.js';
import { tlsSettings } from './tls.js';
import { notificationsSettings } from './notifications.js';
import { auctionsSettings } from './auctions.js';
import { databaseSettings, embeddedClusterProblem } from './database.js';
import { realtimeSettings } from './realtime.js';
import { clusterSettings, resolveConcurrency } from './cluster.js';
import { targetOverlap } from '@auction-ops/backups/target-overlap';
import { backupsSettings } from './backups.js';
import { observabilitySettings } from './observability.js';

// What the server's services make of some settings: the WebAuthn relying party, the SAML key, the LLM's default URL.
export { relyingPartyOf } from './webauthn.js';
export { parseSamlPrivateKey } from './saml.js';
export { OPENAI_DEFAULT_BASE_URL } from './reporting.js';

const schema = v.object({
  ...coreSettings,
  ...storageSettings,
  ...imageTransformSettings,
  ...authSettings,
  ...oauthSettings,
  ...phoneSettings,
  ...samlSettings,
  ...webhooksSettings,
  ...reportingSettings,
  ...limitsSettings,
  ...tlsSettings,
  ...notificationsSettings,
  ...auctionsSettings,
  ...databaseSettings,
  ...realtimeSettings,
  ...clusterSettings,
  ...backupsSettings,
  ...observabilitySettings,
});

// Settings whose value may be or carry a secret (keys, passwords, tokens, database and mail URLs with credentials):
// a refusal names them without their value, which would otherwise end up in the logs of whatever runs the server.
const SECRET_SETTING = /SECRET|PASSWORD|TOKEN|PRIVATE|_KEYS?$|_SID$|DATABASE_|SMTP_URL/;

export type Env = v.InferOutput<typeof schema>;
export interface Config extends Env {
  PUBLIC_URL: string;
  APP_URL: string;
  DATA_DIR: string;
  /** Server processes sharing the port (1: the single process, no cluster). */
  WEB_CONCURRENCY: number;
  /** PUBLIC_URL and APP_URL that were derived from HOST and PORT rather than given. */
  derivedUrls: { publicUrl: boolean; appUrl: boolean };
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/**
 * The names Supabase's functions read (contract section 5.10), accepted for ours so that an operator moving from
 * Supabase keeps their environment.
 */
const ALIASES = {
  SUPABASE_URL: 'PUBLIC_URL',
  SUPABASE_ANON_KEY: 'ANON_KEY',
  SUPABASE_SERVICE_ROLE_KEY: 'SERVICE_ROLE_KEY',
} as const;

/** Each alias's value under our name; an alias and our name set to different values is a mistake to stop at. */
function resolveAliases(env: Record<string, string | undefined>): Record<string, string | undefined> {
  const out = { ...env };
  for (const [alias, name] of Object.entries(ALIASES)) {
    const given = env[alias] || undefined;
    if (given === undefined) continue;
    const ours = env[name] || undefined;
    // The values are secrets or URLs with credentials: the message names the variables, never their values.
    if (ours !== undefined && ours !== given)
      throw new ConfigError(`invalid configuration: ${alias} and ${name} are both set, to different values`);
    out[name] = given;
  }
  return out;
}

/** Validates the environment; throws ConfigError with a one-line message for the first bad variable. */
export function loadConfig(given: Record<string, string | undefined> = process.env): Config {
  const env = resolveAliases(given);
  const known = Object.fromEntries(Object.keys(schema.entries).map((k) => [k, env[k] === '' ? undefined : env[k]]));
  const result = v.safeParse(schema, known);
  if (!result.success) {
    const issue = result.issues[0];
    const key = v.getDotPath(issue) ?? '?';
    const shown = SECRET_SETTING.test(key) ? '(value not shown)' : JSON.stringify(env[key] ?? '');
    throw new ConfigError(`invalid configuration: ${key}=${shown} ${issue.message}`);
  }
  const out = result.output;
  const phoneProblem = phoneConfigProblem(out);
  if (phoneProblem) throw new ConfigError(`invalid configuration: ${phoneProblem}`);
  const samlProblem = samlConfigProblem(out);
  if (samlProblem) throw new ConfigError(`invalid configuration: ${samlProblem}`);
  const concurrency = resolveConcurrency(out.WEB_CONCURRENCY, out.DB_POOL_SIZE, env);
  if (typeof concurrency === 'string')
    throw new ConfigError(
      `invalid configuration: WEB_CONCURRENCY=${JSON.stringify(env.WEB_CONCURRENCY)} ${concurrency}`,
    );
  const portProblem = embeddedClusterProblem(out);
  if (portProblem) throw new ConfigError(`invalid configuration: ${portProblem}`);
  const overlap = out.BACKUP_TARGET && targetOverlap(out.DATA_DIR, out.BACKUP_TARGET);
  if (overlap) throw new ConfigError(`invalid configuration: ${overlap}; keep them apart`);
  const config = {
    ...out,
    DATA_DIR: resolve(out.DATA_DIR),
    WEB_CONCURRENCY: concurrency,
    PUBLIC_URL: out.PUBLIC_URL ?? '',
    APP_URL: out.APP_URL ?? '',
    derivedUrls: { publicUrl: !out.PUBLIC_URL, appUrl: !out.APP_URL },
  };
  return withPort(config, out.PORT);
}

/**
 * The configuration with its port settled (PORT=0 is resolved to a free port before start), and derived URLs
 * following it.
 */
export function withPort(config: Config, port: number): Config {
  const scheme = config.TLS_CERT_FILE ? 'https' : 'http';
  const publicUrl = (config.derivedUrls.publicUrl ? `${scheme}://${config.HOST}:${port}` : config.PUBLIC_URL).replace(
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
