// The engine: holds the schema cache (reloaded on NOTIFY pgrst) and runs each request through
// parse -> plan -> compile -> execute -> respond. Framework-agnostic: plain request and response objects.
import type postgres from 'postgres';
import { compile } from './compile/statement-compiler.js';
import { errors, fromDatabaseError, RestError } from './errors.js';
import { execute, installRawText, StatementBudget, type TxContext } from './execute.js';
import { quoteIdent } from './ident.js';
import { buildOpenApi } from './openapi.js';
import { plan as planRequest, type PlannerOptions } from './plan/planner.js';
import { PlanCache, planKey, type CachedPlan } from './plan-cache.js';
import type { Plan } from './plan/types.js';
import { checkResult, respond, type EngineResponse } from './respond.js';
import { loadSchemaCache } from './schema-cache/schema-loader.js';
import type { SchemaCache } from './schema-cache/types.js';

export interface RestEngineOptions {
  /** postgres.js client logged in as the authenticator role. */
  sql: postgres.Sql;
  schemas?: string[];
  anonRole?: string;
  /** Roles a request may switch to besides anon, authenticated and service_role. */
  roles?: string[];
  maxRows?: number;
  statementTimeoutMs?: number;
  /** How long a request waits for a free connection of `sql`'s pool before PGRST003 (504); default 10 000. */
  poolTimeoutMs?: number;
  allowUnfilteredWrites?: boolean;
  aggregatesEnabled?: boolean;
  txRollbackAllowed?: boolean;
  /** LISTEN on channel `pgrst` for 'reload schema' (default true). */
  listen?: boolean;
  /**
   * Request headers left out of `request.headers` (default: authorization, apikey, cookie). They carry
   * credentials that SQL should not see or leave in statement logs; the verified claims are in request.jwt.claims.
   */
  hiddenHeaders?: string[];
  /** Distinct main statement texts prepared per schema generation (default 2000); others run unnamed. */
  preparedStatements?: number;
  /** Planned and compiled GET/HEAD requests kept for reuse (default 1000; 0 turns the cache off). */
  planCacheSize?: number;
}

function sqlHeaders(headers: Record<string, string | undefined>, hidden: ReadonlySet<string>): string {
  const visible: Record<string, string | undefined> = {};
  for (const name in headers) if (!hidden.has(name)) visible[name] = headers[name];
  return JSON.stringify(visible);
}

export interface EngineRequest {
  method: string;
  /** Path relative to the mount: '/todos', '/rpc/fn' or '/'. */
  path: string;
  /** Raw query string without '?'. */
  search: string;
  /** Lower-case header names. */
  headers: Record<string, string | undefined>;
  body?: string;
  /** Verified JWT claims; undefined means anonymous. */
  claims?: Record<string, unknown>;
  /** Defaults to claims.role, else the anonymous role. */
  role?: string;
}

export interface RestEngine {
  handle(req: EngineRequest): Promise<EngineResponse>;
  reloadSchema(): Promise<void>;
  close(): Promise<void>;
  readonly schemaCache: SchemaCache;
}

const MEDIA = 'application/json; charset=utf-8';

export function errorResponse(e: RestError): EngineResponse {
  return { status: e.status, headers: { 'content-type': MEDIA, ...e.headers }, body: e.body() };
}

export async function createRestEngine(options: RestEngineOptions): Promise<RestEngine> {
  const sql = options.sql;
  const schemas = options.schemas ?? ['public'];
  const anonRole = options.anonRole ?? 'anon';
  const roles = new Set([anonRole, 'anon', 'authenticated', 'service_role', ...(options.roles ?? [])]);
  const maxRows = options.maxRows ?? null;
  const plannerOptions: PlannerOptions = {
    schemas,
    maxRows,
    aggregatesEnabled: options.aggregatesEnabled ?? false,
    allowUnfilteredWrites: options.allowUnfilteredWrites ?? false,
    txRollbackAllowed: options.txRollbackAllowed ?? false,
  };
  const hiddenHeaders = new Set(
    (options.hiddenHeaders ?? ['authorization', 'apikey', 'cookie']).map((h) => h.toLowerCase()),
  );
  const poolTimeoutMs = options.poolTimeoutMs ?? 10_000;
  const statementTimeout = options.statementTimeoutMs !== undefined ? String(options.statementTimeoutMs) : null;

  installRawText(sql);
  let cache = await loadSchemaCache(sql, schemas);
  let openapi: string | null = null;
  const preparedLimit = options.preparedStatements ?? 2000;
  let generation = 0;
  let statements = new StatementBudget(preparedLimit, generation);
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
        plans = new PlanCache(planCacheSize);
      })
      .finally(() => {
        reloading = null;
      });
    return reloading;
  };
  let unlisten: (() => Promise<void>) | null = null;
  if (options.listen ?? true) {
    const sub = await sql.listen('pgrst', (payload) => {
      if (payload === '' || payload === 'reload schema') reloadSchema().catch(() => {});
    });
    unlisten = () => sub.unlisten();
  }

  // The search_path per schema and the claims text per verified claims object (token verifiers hand out the same
  // object for the same token), so that neither is rebuilt on every request.
  const searchPaths = new Map(
    schemas.map((s) => [s, [s, ...schemas.filter((o) => o !== s)].map(quoteIdent).join(', ')]),
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

  function planAndCompile(req: EngineRequest, method: string): CachedPlan {
    const key = planKey({ method, path: req.path, search: req.search, headers: req.headers });
    const hit = key === null ? undefined : plans.get(key);
    if (hit) return hit;
    const plan = planRequest(req, cache, plannerOptions);
    const entry: CachedPlan = {
      plan,
      compiled: plan.kind === 'options' || plan.kind === 'openapi' ? null : compile(plan, maxRows),
    };
    if (key !== null) plans.set(key, entry);
    return entry;
  }

  async function handle(req: EngineRequest): Promise<EngineResponse> {
    const role = req.role ?? (typeof req.claims?.role === 'string' ? req.claims.role : anonRole);
    const authenticated = role !== anonRole;
    const t0 = performance.now();
    try {
      if (!roles.has(role)) throw errors.forbiddenRole(role);
      const method = req.method.toUpperCase();
      const { plan, compiled } = planAndCompile(req, method);
      if (plan.kind === 'options') {
        return { status: 200, headers: { allow: plan.allow, 'content-type': MEDIA }, body: null };
      }
      if (plan.kind === 'openapi' || compiled === null) {
        openapi ??= JSON.stringify(buildOpenApi(cache, plan.schema));
        return {
          status: 200,
          headers: { 'content-type': 'application/openapi+json; charset=utf-8' },
          body: plan.head ? null : openapi,
        };
      }
      const t1 = performance.now();
      const ctx: TxContext = {
        searchPath: searchPaths.get(plan.schema)!,
        role,
        claims: claimsJson(req.claims, role),
        method,
        path: req.path,
        headers: sqlHeaders(req.headers, hiddenHeaders),
        statementTimeout,
        timezone: plan.prefer.timezone,
      };
      const rollback = plan.prefer.tx === 'rollback' && plannerOptions.txRollbackAllowed;
      const mustDecide =
        !plan.readOnly &&
        (plan.media === 'object' || plan.media === 'stripped-object' || plan.prefer.maxAffected !== null);
      const { result } = await execute(sql, ctx, compiled.main, compiled.explain, {
        readOnly: plan.readOnly,
        poolTimeoutMs,
        statements,
        end: mustDecide
          ? (r) => {
              checkResult(plan, r);
              return rollback ? 'rollback' : 'commit';
            }
          : rollback
            ? 'rollback'
            : 'commit',
      });
      if (!mustDecide) checkResult(plan, result);
      const t2 = performance.now();
      const res = respond(plan, result, maxRows);
      res.headers['server-timing'] = `plan;dur=${(t1 - t0).toFixed(2)}, transaction;dur=${(t2 - t1).toFixed(2)}`;
      return res;
    } catch (e) {
      const res = errorResponse(e instanceof RestError ? e : fromDatabaseError(e, authenticated));
      // HEAD answers carry no body, errors included (status and headers still tell what went wrong).
      if (req.method.toUpperCase() === 'HEAD') res.body = null;
      return res;
    }
  }

  return {
    handle,
    reloadSchema,
    get schemaCache() {
      return cache;
    },
    async close() {
      if (unlisten) await unlisten();
    },
  };
}

export type { Plan };
