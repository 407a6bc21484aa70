// PostgREST's configuration for the command: its config file (`key = value` lines) overlaid by its PGRST_*
// environment variables, read into the settings this engine understands. Names it does not know, and PostgREST
// settings it does not implement, are reported so that a start never silently ignores a setting.

import { readFileSync } from 'node:fs';
import type { TxEnd } from '../engine.js';

export interface CommandConfig {
  dbUri: string;
  dbSchemas: string[];
  dbAnonRole: string | null;
  dbPool: number;
  dbPoolAcquisitionTimeoutSeconds: number;
  dbMaxRows: number | null;
  dbExtraSearchPath: string[];
  dbPreRequest: string | null;
  dbPlanEnabled: boolean;
  dbAggregatesEnabled: boolean;
  dbTxEnd: TxEnd;
  dbChannelEnabled: boolean;
  jwtSecret: string | null;
  jwtSecretIsBase64: boolean;
  jwtAud: string | null;
  jwtRoleClaimKey: string;
  serverHost: string;
  serverPort: number;
  /** Origins CORS allows (echoed, with credentials); empty: any origin (`*`). */
  serverCorsAllowedOrigins: string[];
  openapiMode: 'follow-privileges' | 'ignore-privileges' | 'disabled';
  clientErrorVerbosity: 'verbose' | 'minimal';
  /** A request header echoed on its answer (PostgREST's server-trace-header, e.g. X-Request-Id). */
  serverTraceHeader: string | null;
  /** app.settings.* from the file and PGRST_APP_SETTINGS_* from the environment (which win), by setting name. */
  appSettings: Record<string, string>;
}

/** What the configuration named that this command will not act on. */
interface ConfigNotes {
  unknown: string[];
  unsupported: string[];
}

// Settings PostgREST has that this engine does not implement (named at start, not an error).
const UNSUPPORTED = new Set([
  'admin-server-port',
  'admin-server-host',
  'app-settings',
  'db-channel',
  'db-config',
  'db-hoisted-tx-settings',
  'db-pool-max-idletime',
  'db-pool-max-lifetime',
  'db-prepared-statements',
  'db-root-spec',
  'db-uri-file',
  'jwt-cache-max-lifetime',
  'log-level',
  'log-query',
  'openapi-security-active',
  'openapi-server-proxy-uri',
  'server-timing-enabled',
  'server-unix-socket',
  'server-unix-socket-mode',
]);

const KNOWN = new Set([
  'db-uri',
  'db-schemas',
  'db-schema',
  'db-anon-role',
  'db-pool',
  'db-pool-acquisition-timeout',
  'db-max-rows',
  'db-extra-search-path',
  'db-pre-request',
  'db-plan-enabled',
  'db-aggregates-enabled',
  'db-tx-end',
  'db-channel-enabled',
  'jwt-secret',
  'jwt-secret-is-base64',
  'jwt-aud',
  'jwt-role-claim-key',
  'role-claim-key',
  'server-host',
  'server-port',
  'server-cors-allowed-origins',
  'openapi-mode',
  'client-error-verbosity',
  'server-trace-header',
]);

/** PostgREST's config file: `key = "text"`, `key = 10`, `key = true`, `#` comments. */
function parseConfigFile(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const [n, line] of text.split(/\r?\n/).entries()) {
    const trimmed = line.trim();
    if (trimmed === '' || trimmed.startsWith('#')) continue;
    const m = /^([a-z0-9._-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^#\s]+))\s*(?:#.*)?$/i.exec(trimmed);
    if (!m) throw new Error(`config file line ${n + 1}: cannot read ${JSON.stringify(trimmed)}`);
    out.set(m[1]!, m[2] !== undefined ? m[2].replace(/\\(.)/g, '$1') : m[3]!);
  }
  return out;
}

const envName = (key: string) => `PGRST_${key.toUpperCase().replace(/[-.]/g, '_')}`;

/** The settings from the file (if any), then the environment over them; throws one line per bad value. */
export function readConfig(
  env: NodeJS.ProcessEnv,
  fileText: string | null,
): { config: CommandConfig; notes: ConfigNotes } {
  const raw = fileText === null ? new Map<string, string>() : parseConfigFile(fileText);
  const notes: ConfigNotes = { unknown: [], unsupported: [] };
  // app.settings.* (file) and PGRST_APP_SETTINGS_* (environment, the rest of the name kept as it is): settings
  // every request's transaction sets, as PostgREST.
  const appSettings: Record<string, string> = {};
  for (const [key, value] of raw) {
    if (key.startsWith('app.settings.')) appSettings[key] = value;
    else if (UNSUPPORTED.has(key)) notes.unsupported.push(key);
    else if (!KNOWN.has(key)) notes.unknown.push(key);
  }
  const byEnv = new Map([...KNOWN, ...UNSUPPORTED].map((k) => [envName(k), k]));
  for (const [name, value] of Object.entries(env)) {
    if (!name.startsWith('PGRST_') || value === undefined) continue;
    const key = byEnv.get(name);
    if (key === undefined) {
      if (name.startsWith('PGRST_APP_SETTINGS_') && name.length > 'PGRST_APP_SETTINGS_'.length)
        appSettings[`app.settings.${name.slice('PGRST_APP_SETTINGS_'.length)}`] = value;
      else notes.unknown.push(name);
    } else {
      if (UNSUPPORTED.has(key)) notes.unsupported.push(name);
      raw.set(key, value);
    }
  }
  const get = (k: string) => raw.get(k);
  const list = (k: string, d: string) =>
    (get(k) ?? d)
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
  const int = (k: string, d: number | null): number | null => {
    const v = get(k);
    if (v === undefined || v === '') return d;
    if (!/^\d+$/.test(v)) throw new Error(`${envName(k)} (${k}) must be a whole number, got ${JSON.stringify(v)}`);
    return Number(v);
  };
  const bool = (k: string, d: boolean): boolean => {
    const v = get(k)?.toLowerCase();
    if (v === undefined || v === '') return d;
    if (v === 'true' || v === 'false') return v === 'true';
    throw new Error(`${envName(k)} (${k}) must be true or false, got ${JSON.stringify(v)}`);
  };
  const openapi = get('openapi-mode') ?? 'follow-privileges';
  if (!['follow-privileges', 'ignore-privileges', 'disabled'].includes(openapi))
    throw new Error(`PGRST_OPENAPI_MODE must be follow-privileges, ignore-privileges or disabled, got "${openapi}"`);
  const traceHeader = get('server-trace-header') || null;
  if (traceHeader !== null && !/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(traceHeader))
    throw new Error(`PGRST_SERVER_TRACE_HEADER must be a header name, got "${traceHeader}"`);
  const verbosity = get('client-error-verbosity') ?? 'verbose';
  if (verbosity !== 'verbose' && verbosity !== 'minimal')
    throw new Error(`PGRST_CLIENT_ERROR_VERBOSITY must be verbose or minimal, got "${verbosity}"`);
  const txEnd = get('db-tx-end') ?? 'commit';
  if (!['commit', 'commit-allow-override', 'rollback', 'rollback-allow-override'].includes(txEnd))
    throw new Error(
      `PGRST_DB_TX_END must be commit, commit-allow-override, rollback or rollback-allow-override, got "${txEnd}"`,
    );
  const dbUri = get('db-uri') ?? 'postgresql://';
  return {
    config: {
      dbUri,
      dbSchemas: list(raw.has('db-schemas') ? 'db-schemas' : 'db-schema', 'public'),
      dbAnonRole: get('db-anon-role') || null,
      dbPool: int('db-pool', 10)!,
      dbPoolAcquisitionTimeoutSeconds: int('db-pool-acquisition-timeout', 10)!,
      dbMaxRows: int('db-max-rows', null),
      dbExtraSearchPath: list('db-extra-search-path', 'public'),
      dbPreRequest: get('db-pre-request') || null,
      dbPlanEnabled: bool('db-plan-enabled', false),
      dbAggregatesEnabled: bool('db-aggregates-enabled', false),
      dbTxEnd: txEnd as TxEnd,
      dbChannelEnabled: bool('db-channel-enabled', true),
      jwtSecret: secretOf(get('jwt-secret')),
      jwtSecretIsBase64: bool('jwt-secret-is-base64', false),
      jwtAud: get('jwt-aud') || null,
      jwtRoleClaimKey: get('jwt-role-claim-key') ?? get('role-claim-key') ?? '.role',
      serverHost: listenHost(get('server-host') ?? '!4'),
      serverPort: int('server-port', 3000)!,
      serverCorsAllowedOrigins: list('server-cors-allowed-origins', ''),
      openapiMode: openapi as CommandConfig['openapiMode'],
      clientErrorVerbosity: verbosity,
      serverTraceHeader: traceHeader,
      appSettings,
    },
    notes,
  };
}

/** `@/path`: the secret is the file's content (a Docker or Kubernetes secret), its final line break left out. */
function secretOf(value: string | undefined): string | null {
  if (!value) return null;
  if (!value.startsWith('@')) return value;
  const path = value.slice(1);
  try {
    return readFileSync(path, 'utf8').replace(/\r?\n$/, '');
  } catch (error) {
    throw new Error(
      `PGRST_JWT_SECRET (jwt-secret) names the file ${path}, which cannot be read: ${(error as Error).message}`,
    );
  }
}

/** PostgREST's special host names: `*` and `!4`/`*4` any IPv4, `!6`/`*6` any IPv6. */
function listenHost(host: string): string {
  if (host === '*' || host === '!4' || host === '*4') return '0.0.0.0';
  if (host === '!6' || host === '*6') return '::';
  return host;
}
