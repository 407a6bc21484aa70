// The engine: holds the schema cache (reloaded on NOTIFY pgrst) and runs each request through the stages
// parse -> plan -> compile -> execute -> respond, each timed in Server-Timing. Framework-agnostic: plain request and
// response objects.
import type postgres from 'postgres';
import { arrayLiteral } from './compile/sql-builder.js';
import { compile } from './compile/statement-compiler.js';
import { contentLocation } from './content-location.js';
import { type ErrorVerbosity, errors, fromDatabaseError, RestError } from './errors.js';
import { executePlan, type PlanExecution, StatementBudget, type TxContext } from './execute.js';
import { quoteIdent } from './ident.js';
import { buildOpenApi } from './openapi.js';
import { parse, type RawRequest } from './parse/request-parser.js';
import type { PlannerOptions } from './plan/plan-step.js';
import { plan } from './plan/planner.js';
import { softDeleteFunction } from './plan/soft-delete.js';
import { COMPILE, EXECUTE, PARSE, PLAN, RESPOND, StageTimer } from './stage-timer.js';
import { PlanCache, planKey, type CachedPlan } from './plan-cache.js';
import type { Plan } from './plan/types.js';
import { respond, type EngineResponse } from './respond.js';
import { applyResponseGucs, isRaisedAnswer, raisedAnswer } from './response-gucs.js';
import { checkAnonRole } from './role-check.js';
import type { EngineRequest } from './engine-request.js';
import { toRawRequest } from './request-normalizer.js';
import { loadSchemaCache } from './schema-cache/schema-loader.js';
import type { SchemaCache } from './schema-cache/types.js';

/** PostgREST's db-tx-end values. */
export type TxEnd = 'commit' | 'commit-allow-override' | 'rollback' | 'rollback-allow-override';

export interface RestEngineOptions {
  /** postgres.js client logged in as the authenticator role. */
  sql: postgres.Sql;
  schemas?: string[];
  /**
   * Schemas appended to every request's search_path after the request's schema, as given (PostgREST's
   * db-extra-search-path). Other exposed schemas are not on the path: name their objects with their schema.
   */
  extraSearchPath?: string[];
  anonRole?: string;
  /**
   * The roles a request may run as besides `anonRole` (an allow-list; others answer 401 PGRST303). Default: any role
   * the authenticator can switch to, as PostgREST (the database refuses the others).
   */
  roles?: string[];
  /**
   * Check at start that `anonRole` exists and the authenticator may switch to it (default true); a failure rejects
   * with one line naming the fix.
   */
  checkRoles?: boolean;
  /**
   * A function called at the start of every request's transaction, after the role and claims are set, as
   * `schema.name` or `name` (PostgREST's db-pre-request): it may raise to refuse the request or set more settings.
   */
  preRequest?: string;
  maxRows?: number;
  statementTimeoutMs?: number;
  /** How long a request waits for a free connection of `sql`'s pool before PGRST003 (504); default 10 000. */
  poolTimeoutMs?: number;
  allowUnfilteredWrites?: boolean;
  aggregatesEnabled?: boolean;
  /** `Prefer: tx=rollback` honoured: the same as `txEnd: 'commit-allow-override'`. */
  txRollbackAllowed?: boolean;
  /**
   * How request transactions end, as PostgREST's db-tx-end: 'commit' (the default) or 'rollback' (nothing a request
   * writes stays: a server for tests), and their '-allow-override' forms, where `Prefer: tx=commit|rollback` decides.
   */
  txEnd?: TxEnd;
  /**
   * Answer `Accept: application/vnd.pgrst.plan` with the statement's EXPLAIN (default false, as PostgREST's
   * db-plan-enabled: plans tell how data is stored, and ANALYZE runs the statement).
   */
  planEnabled?: boolean;
  /**
   * What error answers tell clients (PostgREST's client-error-verbosity): 'verbose' (the default) gives code,
   * message, details and hint; 'minimal' only code and message (details and hints may name tables, columns or
   * values).
   */
  clientErrorVerbosity?: ErrorVerbosity;
  /**
   * Tables whose rows are marked rather than removed: `{ 'schema.table': 'schema.function' }`. A DELETE on such a
   * table calls the function (it takes the row's primary-key columns in key order and returns the table's row type)
   * for each row the DELETE's filters select among the rows the caller can read, and answers with the rows it
   * returns as a delete answers with the deleted ones (Prefer return and count, 204 without representation). A NULL
   * result skips the row; an error raised by the function is the answer. Both must be in exposed schemas; an
   * unknown table or function rejects at start.
   */
  softDeletes?: Record<string, string>;
  /** LISTEN on channel `pgrst` for 'reload schema' (default true). */
  listen?: boolean;
  /**
   * The client whose dedicated connection LISTENs (default `sql`). A LISTEN needs a session of its own: when `sql`
   * goes through a pooler in transaction mode, give a client that connects to the database directly.
   */
  listenSql?: postgres.Sql;
  /**
   * Request headers left out of `request.headers` (default: authorization, apikey, cookie). They carry
   * credentials that SQL should not see or leave in statement logs; the verified claims are in request.jwt.claims.
   */
  hiddenHeaders?: string[];
  /**
   * Sets `request.cookies` to the request's cookies as a JSON object (`{"session":"..."}`), as PostgREST does
   * (default false: `{}`, cookies often carry session credentials).
   */
  requestCookies?: boolean;
  /**
   * Settings every request's transaction sets (set_config, transaction-local), as PostgREST's app settings:
   * `{ 'app.settings.jwt_secret': '...' }`. Names must start with `app.settings.`; a function reads them with
   * current_setting(). They come from the configuration, never from a request.
   */
  appSettings?: Record<string, string>;
  /**
   * Times a write whose transaction PostgreSQL rolled back for a deadlock (40P01) or a serialization failure (40001)
   * is run again, a few milliseconds later, before its error is the answer (default 0: PostgREST answers 500 at
   * once). Safe for what the transaction did in the database, all of which was rolled back; a function with effects
   * outside it (an HTTP call from SQL) would repeat them.
   */
  conflictRetries?: number;
  /** Distinct main statement texts prepared per schema generation (default 2000); others run unnamed. */
  preparedStatements?: number;
  /** Planned and compiled GET/HEAD requests kept for reuse (default 1000; 0 turns the cache off). */
  planCacheSize?: number;
  /** Hears each GET or HEAD's plan-cache lookup: whether it was a hit (for metrics). */
  onPlanCacheLookup?: (hit: boolean) => void;
}

/**
 * The Cookie header's cookies as a JSON object (request.cookies): `name=value` pairs split on `;`, the last of a
 * name winning. The value is text for set_config: nothing of it reaches SQL text.
 */
function sqlCookies(header: string | undefined): string {
  const cookies: Record<string, string> = Object.create(null);
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq <= 0) continue;
    const name = part.slice(0, eq).trim();
    if (name !== '') cookies[name] = part.slice(eq + 1).trim();
  }
  return JSON.stringify(cookies);
}

/** The request headers as a JSON object, the hidden ones left out; written directly, without a copy to serialize. */
function sqlHeaders(headers: Record<string, string | undefined>, hidden: ReadonlySet<string>): string {
  let json = '';
  for (const name in headers) {
    const value = headers[name];
    if (value === undefined || hidden.has(name)) continue;
    json += `${json === '' ? '' : ','}${JSON.stringify(name)}:${JSON.stringify(value)}`;
  }
  return `{${json}}`;
}

export interface RestEngine {
  handle(req: EngineRequest): Promise<EngineResponse>;
  /** The `clientErrorVerbosity` it was created with (absent: verbose): the adapters answer their errors with it. */
  readonly clientErrorVerbosity?: ErrorVerbosity;
  reloadSchema(): Promise<void>;
  close(): Promise<void>;
  readonly schemaCache: SchemaCache;
}

const MEDIA = 'application/json; charset=utf-8';

/** An error's answer: its JSON body, and, as PostgREST, a Proxy-Status header naming its code. */
export function errorResponse(e: RestError, verbosity: ErrorVerbosity = 'verbose'): EngineResponse {
  return {
    status: e.status,
    headers: {
      'content-type': MEDIA,
      // A code raised by a function may hold any text: only printable ASCII goes into a header.
      ...(/^[\x20-\x7e]*$/.test(e.code) ? { 'proxy-status': `PostgREST; error=${e.code}` } : {}),
      ...e.headers,
    },
    body: e.body(verbosity),
    errorCode: e.code,
  };
}

export async function createRestEngine(options: RestEngineOptions): Promise<RestEngine> {
  const sql = options.sql;
  const schemas = options.schemas ?? ['public'];
  const anonRole = options.anonRole ?? 'anon';
  const roles = options.roles === undefined ? null : new Set([anonRole, ...options.roles]);
  if (options.checkRoles ?? true) await checkAnonRole(sql, anonRole);
  const maxRows = options.maxRows ?? null;
  const verbosity: ErrorVerbosity = options.clientErrorVerbosity ?? 'verbose';
  const txEnd = options.txEnd ?? (options.txRollbackAllowed ? 'commit-allow-override' : 'commit');
  const plannerOptions: PlannerOptions = {
    schemas,
    maxRows,
    aggregatesEnabled: options.aggregatesEnabled ?? false,
    allowUnfilteredWrites: options.allowUnfilteredWrites ?? false,
    txOverridable: txEnd.endsWith('-allow-override'),
    planEnabled: options.planEnabled ?? false,
    softDeletes: new Map(Object.entries(options.softDeletes ?? {})),
  };
  const hiddenHeaders = new Set(
    (options.hiddenHeaders ?? ['authorization', 'apikey', 'cookie']).map((h) => h.toLowerCase()),
  );
  const appSettings = Object.entries(options.appSettings ?? {});
  for (const [name] of appSettings) {
    if (!/^app\.settings\.[A-Za-z0-9_.-]+$/.test(name))
      throw new TypeError(`appSettings: ${JSON.stringify(name)} is not named app.settings.<name>`);
  }
  const appSettingNames = arrayLiteral(appSettings.map(([name]) => name));
  const appSettingValues = arrayLiteral(appSettings.map(([, value]) => value));
  const poolTimeoutMs = options.poolTimeoutMs ?? 10_000;
  const conflictRetries = options.conflictRetries ?? 0;
  if (!Number.isInteger(conflictRetries) || conflictRetries < 0)
    throw new TypeError(`conflictRetries: ${conflictRetries} is not a whole number of times, 0 or more`);
  const statementTimeout = options.statementTimeoutMs !== undefined ? String(options.statementTimeoutMs) : null;

  let cache = await loadSchemaCache(sql, schemas);
  for (const [table, fn] of plannerOptions.softDeletes ?? []) {
    const found = softDeleteFunction(cache, table, fn);
    if (typeof found === 'string') throw new Error(found);
  }
  let openapi: string | null = null;
  const preparedLimit = options.preparedStatements ?? 2000;
  let generation = 0;
  let statements = new StatementBudget(preparedLimit, generation);
  // One record per schema generation (the statement budget is replaced on reload), not one per request.
  let execution: PlanExecution = {
    sql,
    poolTimeoutMs,
    statements,
    txDefault: txEnd.startsWith('rollback') ? 'rollback' : 'commit',
    txOverridable: plannerOptions.txOverridable,
    preRequest: options.preRequest ? `select ${options.preRequest.split('.').map(quoteIdent).join('.')}()` : null,
    conflictRetries,
  };
  const planCacheSize = options.planCacheSize ?? 1000;
  let plans = new PlanCache(planCacheSize);
  let reloading: Promise<void> | null = null;
  const reloadSchema = (): Promise<void> => {
    // Requests keep using the old cache until the new one is complete; concurrent reloads share one load.
    reloading ??= loadSchemaCache(sql, schemas)
      .then((c) => {
        cache = c;
        openapi = null;
        statements = new StatementBudget(preparedLimit, ++generation);
        execution = { ...execution, statements };
        plans = new PlanCache(planCacheSize);
      })
      .finally(() => {
        reloading = null;
      });
    return reloading;
  };
  let unlisten: (() => Promise<void>) | null = null;
  if (options.listen ?? true) {
    const sub = await (options.listenSql ?? sql).listen('pgrst', (payload) => {
      if (payload === '' || payload === 'reload schema') reloadSchema().catch(() => {});
    });
    unlisten = () => sub.unlisten();
  }

  // The search_path per schema and the claims text per verified claims object (token verifiers hand out the same
  // object for the same token), so that neither is rebuilt on every request. The exposed schema comes first even
  // when the extra path names it again, as in PostgREST (`"public", "public", "extensions"`).
  const searchPaths = new Map(
    schemas.map((s) => [s, [s, ...(options.extraSearchPath ?? [])].map(quoteIdent).join(', ')]),
  );
  const claimsText = new WeakMap<object, string>();
  const claimsJson = (claims: Record<string, unknown> | undefined, role: string): string => {
    if (!claims) return JSON.stringify({ role });
    let text = claimsText.get(claims);
    if (text === undefined) {
      text = JSON.stringify(claims);
      claimsText.set(claims, text);
    }
    return text;
  };

  // Options and OpenAPI plans are answered without a transaction.
  function answerWithoutDatabase(prepared: CachedPlan): EngineResponse | null {
    const p = prepared.plan;
    if (p.kind === 'options') return { status: 200, headers: { allow: p.allow, 'content-type': MEDIA }, body: null };
    if (p.kind !== 'openapi') return null;
    openapi ??= JSON.stringify(buildOpenApi(cache, p.schema));
    const headers: Record<string, string> = { 'content-type': 'application/openapi+json; charset=utf-8' };
    if (p.profiled) headers['content-profile'] = p.schema;
    return { status: 200, headers, body: p.head ? null : openapi };
  }

  const txContext = (req: EngineRequest & RawRequest, p: Plan, role: string): TxContext => ({
    searchPath: searchPaths.get(p.schema)!,
    role,
    claims: claimsJson(req.claims, role),
    method: req.method.toUpperCase(),
    path: req.path,
    headers: sqlHeaders(req.headers, hiddenHeaders),
    statementTimeout,
    timezone: p.prefer.timezone,
    cookies: options.requestCookies ? sqlCookies(req.headers.cookie) : '{}',
    appSettingNames,
    appSettingValues,
  });

  async function handle(input: EngineRequest): Promise<EngineResponse> {
    // Wrong arguments reject with a TypeError before anything runs (not an error answer blaming the client).
    const raw = toRawRequest(input);
    const req = raw instanceof Promise ? await raw : raw;
    const role = req.role ?? (typeof req.claims?.role === 'string' ? req.claims.role : anonRole);
    const timer = new StageTimer();
    try {
      if (roles !== null && !roles.has(role)) throw errors.forbiddenRole(role);
      // GET and HEAD reuse a cached plan and statement: parse, plan and compile then take no time.
      const key = planKey(req);
      let prepared = key === null ? undefined : plans.get(key);
      if (key !== null) options.onPlanCacheLookup?.(prepared !== undefined);
      if (prepared === undefined) {
        const request = timer.time(PARSE, parse(req));
        const planned = timer.time(PLAN, plan(request, cache, plannerOptions));
        const compiled = timer.time(COMPILE, compileStage(planned, maxRows));
        prepared = { plan: planned, compiled };
        if (key !== null) plans.set(key, prepared);
      }
      const early = answerWithoutDatabase(prepared);
      if (early) return early;
      const p = prepared.plan as Exclude<Plan, { kind: 'options' | 'openapi' }>;
      const ctx = txContext(req, p, role);
      const env = req.sql === undefined || req.sql === sql ? execution : { ...execution, sql: req.sql };
      const result = timer.time(EXECUTE, await executePlan(env, ctx, p, prepared.compiled!));
      const answer = respond(p, result, maxRows);
      // A read of a table or view names its canonical location, as PostgREST (before SQL's own headers apply).
      if (p.kind === 'read' && p.read.source.kind === 'table')
        answer.headers['content-location'] = contentLocation(p.read.source.table.name, req.search);
      const res = timer.time(RESPOND, applyResponseGucs(answer, result));
      res.headers['server-timing'] = timer.header();
      return res;
    } catch (e) {
      const err =
        e instanceof RestError ? e : isRaisedAnswer(e) ? raisedAnswer(e) : fromDatabaseError(e, role !== anonRole);
      const res = errorResponse(err, verbosity);
      // HEAD answers carry no body, errors included (status and headers still tell what went wrong).
      if (req.method.toUpperCase() === 'HEAD') res.body = null;
      return res;
    }
  }

  return {
    handle,
    clientErrorVerbosity: verbosity,
    reloadSchema,
    get schemaCache() {
      return cache;
    },
    async close() {
      if (unlisten) await unlisten();
    },
  };
}

/** The compile stage, for the plans that run a statement. */
function compileStage(p: Plan, maxRows: number | null) {
  return p.kind === 'options' || p.kind === 'openapi' ? null : compile(p, maxRows);
}
