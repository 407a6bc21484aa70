// The suite's AppConfig values (SpecHelper's baseCfg and the fields a spec group sets over it) as the PGRST_*
// variables that configure PostgREST the same way, which is how the `rest-engine` command is configured. A field
// with no such variable (the suite sets some internal ones) is reported, and the examples under it are not run.
import type { RunConfig } from './cases.js';
import { type Thunk, Untranslatable, type Val, describe, listOf, textOf } from './values.js';

const SECRET = 'reallyreallyreallyreallyverysafe';

/** baseCfg, as far as it differs from PostgREST's defaults (the rest is left to the defaults, as a user would). */
export const BASE_ENV: Readonly<Record<string, string>> = {
  PGRST_DB_SCHEMAS: 'test',
  PGRST_DB_ANON_ROLE: 'postgrest_test_anonymous',
  PGRST_DB_PRE_REQUEST: 'test.switch_role',
  PGRST_DB_EXTRA_SEARCH_PATH: '',
  PGRST_DB_TX_END: 'rollback-allow-override',
  PGRST_JWT_SECRET: SECRET,
  PGRST_JWT_CACHE_MAX_ENTRIES: '10',
  PGRST_LOG_LEVEL: 'crit',
  PGRST_SERVER_TIMING_ENABLED: 'true',
  PGRST_APP_SETTINGS_APP_HOST: 'localhost',
  PGRST_APP_SETTINGS_EXTERNAL_API_SECRET: '0123456789abcdef',
};

const qualified = (v: Val): string => {
  if (v.t !== 'con' || v.name !== 'QualifiedIdentifier') throw new Untranslatable(`identifier ${describe(v)}`);
  const [schema, name] = v.args.map(textOf);
  return schema ? `${schema}.${name}` : name!;
};
const maybe = (v: Val, f: (x: Val) => string): string | null => {
  if (v.t === 'con' && v.name === 'Nothing') return null;
  if (v.t === 'con' && v.name === 'Just' && v.args.length === 1) return f(v.args[0]!);
  throw new Untranslatable(`a Maybe that is ${describe(v)}`);
};
const bool = (v: Val) => {
  if (v.t !== 'bool') throw new Untranslatable(`a Bool that is ${describe(v)}`);
  return String(v.v);
};
const list = (v: Val) => listOf(v).map(textOf).join(',');
const num = (v: Val) => {
  if (v.t !== 'num') throw new Untranslatable(`a number that is ${describe(v)}`);
  return String(v.v);
};

// Field -> [variable, value]; null removes the variable (PostgREST's default applies).
const FIELDS: Record<string, (v: Val) => [string, string | null]> = {
  configDbAggregates: (v) => ['PGRST_DB_AGGREGATES_ENABLED', bool(v)],
  configDbAnonRole: (v) => ['PGRST_DB_ANON_ROLE', maybe(v, textOf)],
  configDbExtraSearchPath: (v) => ['PGRST_DB_EXTRA_SEARCH_PATH', list(v)],
  configDbMaxRows: (v) => ['PGRST_DB_MAX_ROWS', maybe(v, num)],
  configDbPlanEnabled: (v) => ['PGRST_DB_PLAN_ENABLED', bool(v)],
  configDbPreRequest: (v) => ['PGRST_DB_PRE_REQUEST', maybe(v, qualified)],
  configDbPreConfig: (v) => ['PGRST_DB_PRE_CONFIG', maybe(v, qualified)],
  configDbRootSpec: (v) => ['PGRST_DB_ROOT_SPEC', maybe(v, qualified)],
  configDbSchemas: (v) => ['PGRST_DB_SCHEMAS', list(v)],
  configDbPreparedStatements: (v) => ['PGRST_DB_PREPARED_STATEMENTS', bool(v)],
  configJwtSecret: (v) => ['PGRST_JWT_SECRET', maybe(v, textOf)],
  configJwtAudience: (v) => ['PGRST_JWT_AUD', maybe(v, textOf)],
  configJwtCacheMaxEntries: (v) => ['PGRST_JWT_CACHE_MAX_ENTRIES', num(v)],
  configOpenApiMode: (v) => [
    'PGRST_OPENAPI_MODE',
    { OADisabled: 'disabled', OAIgnorePriv: 'ignore-privileges', OAFollowPriv: 'follow-privileges' }[
      v.t === 'con' ? v.name : ''
    ] ?? fail(v),
  ],
  configOpenApiSecurityActive: (v) => ['PGRST_OPENAPI_SECURITY_ACTIVE', bool(v)],
  configOpenApiServerProxyUri: (v) => ['PGRST_OPENAPI_SERVER_PROXY_URI', maybe(v, textOf)],
  configServerCorsAllowedOrigins: (v) => ['PGRST_SERVER_CORS_ALLOWED_ORIGINS', list(v) || null],
  configServerTraceHeader: (v) => ['PGRST_SERVER_TRACE_HEADER', maybe(v, textOf)],
  configServerTimingEnabled: (v) => ['PGRST_SERVER_TIMING_ENABLED', bool(v)],
  configClientErrorVerbosity: (v) => [
    'PGRST_CLIENT_ERROR_VERBOSITY',
    v.t === 'con' && ['Minimal', 'Verbose'].includes(v.name) ? v.name.toLowerCase() : fail(v),
  ],
};

const fail = (v: Val): never => {
  throw new Untranslatable(`setting value ${describe(v)}`);
};

/** The variables of a spec group's configuration; fields without a PGRST_ setting are listed in `unmapped`. */
export function runConfig(fields: Readonly<Record<string, Thunk>>): RunConfig {
  const env: Record<string, string> = { ...BASE_ENV };
  const unmapped: string[] = [];
  let allowOverride = true;
  let rollbackAll = true;
  for (const [field, thunk] of Object.entries(fields)) {
    // configJWKS is PostgREST's parse of configJwtSecret (the tests set both); the secret says it all.
    if (field === 'configJWKS') continue;
    if (field === 'configDbTxAllowOverride' || field === 'configDbTxRollbackAll') {
      const b = bool(thunk.force()) === 'true';
      if (field === 'configDbTxAllowOverride') allowOverride = b;
      else rollbackAll = b;
      continue;
    }
    const map = FIELDS[field];
    if (!map) {
      unmapped.push(field);
      continue;
    }
    const [name, value] = map(thunk.force());
    if (value === null) delete env[name];
    else env[name] = value;
  }
  env.PGRST_DB_TX_END = `${rollbackAll ? 'rollback' : 'commit'}${allowOverride ? '-allow-override' : ''}`;
  const key = Object.keys(env)
    .sort()
    .map((k) => `${k}=${env[k]}`)
    .join('\n');
  return { key, env, unmapped };
}
