// Routes a request (method + path) to a plan: read, insert/update/delete/put, function call, OpenAPI or OPTIONS.
import { errors } from '../errors.js';
import { parseHeaders } from '../parse/header-parser.js';
import { parseQuery } from '../parse/query-parser.js';
import type { RequestHeaders } from '../parse/types.js';
import { tableKey, type DbFunction, type SchemaCache, type Table } from '../schema-cache/types.js';
import { checkAllUsed, planConditions, planRead, type ReadContext } from './read-planner.js';
import type { CallArgs, Mutation, Plan, PlanCommon, ReadPlan } from './types.js';

export interface PlannerOptions {
  readonly schemas: readonly string[];
  readonly maxRows: number | null;
  readonly aggregatesEnabled: boolean;
  readonly allowUnfilteredWrites: boolean;
  readonly txRollbackAllowed: boolean;
}

export interface PlanInput {
  readonly method: string;
  readonly path: string;
  readonly search: string;
  readonly headers: Readonly<Record<string, string | undefined>>;
  readonly body?: string | undefined;
}

const WRITE_METHODS = new Set(['POST', 'PATCH', 'PUT', 'DELETE']);

/** The fields every plan shares (an object, not a closure per request). */
class CommonFields {
  constructor(
    private readonly schema: string,
    private readonly h: RequestHeaders,
    private readonly head: boolean,
    private readonly txAllowed: boolean,
  ) {}

  of(readOnly: boolean, applied: string[]): PlanCommon {
    const prefer = this.h.prefer;
    if (prefer.count) applied.push(`count=${prefer.count}`);
    if (prefer.handling) applied.push(`handling=${prefer.handling}`);
    if (prefer.tx && this.txAllowed) applied.push(`tx=${prefer.tx}`);
    if (prefer.timezone) applied.push(`timezone=${prefer.timezone}`);
    return { schema: this.schema, readOnly, media: this.h.accept, prefer, head: this.head, applied };
  }
}

export function plan(input: PlanInput, cache: SchemaCache, opts: PlannerOptions): Plan {
  const method = input.method.toUpperCase();
  const segments = input.path.split('/').filter((s) => s !== '');
  let decoded: string[];
  try {
    decoded = segments.map(decodeURIComponent);
  } catch {
    throw errors.invalidPath();
  }
  const isRpc = decoded.length === 2 && decoded[0] === 'rpc';
  if (decoded.length > 1 && !isRpc) throw errors.invalidPath();

  const h = withKnownTimezone(parseHeaders(input.headers, WRITE_METHODS.has(method)), cache);
  const schema = h.profile ?? opts.schemas[0];
  if (!opts.schemas.includes(schema)) throw errors.schemaNotExposed(schema, opts.schemas);
  const prefer = h.prefer;
  if (prefer.handling === 'strict' && prefer.invalid.length) throw errors.strictPrefer([...prefer.invalid]);
  const common = new CommonFields(schema, h, method === 'HEAD', opts.txRollbackAllowed);

  if (decoded.length === 0) {
    if (method === 'OPTIONS') return { ...common.of(true, []), kind: 'options', allow: 'OPTIONS,GET,HEAD' };
    if (method !== 'GET' && method !== 'HEAD') throw errors.unsupportedMethod(method);
    if (h.accept !== 'openapi' && h.accept !== 'json') throw errors.notAcceptable(input.headers.accept ?? '');
    return { ...common.of(true, []), kind: 'openapi' };
  }
  if (h.accept === 'openapi') throw errors.notAcceptable(input.headers.accept ?? '');
  const query = parseQuery(input.search);
  const ctx: ReadContext = {
    cache,
    aggregatesEnabled: opts.aggregatesEnabled,
    query,
    used: new Set(),
    skip: new Set(),
    aliasCounter: 0,
  };

  if (isRpc) return planCall(ctx, method, decoded[1], schema, input.body, h, common, opts);

  const table = cache.tables.get(tableKey(schema, decoded[0]));
  if (!table) throw errors.noTable(schema, decoded[0]);
  switch (method) {
    case 'OPTIONS': {
      const allow = ['OPTIONS', 'GET', 'HEAD'];
      if (table.insertable) allow.push('POST');
      if (table.insertable && table.updatable) allow.push('PUT');
      if (table.updatable) allow.push('PATCH');
      if (table.deletable) allow.push('DELETE');
      return { ...common.of(true, []), kind: 'options', allow: allow.join(',') };
    }
    case 'GET':
    case 'HEAD': {
      const read = planRead(ctx, { kind: 'table', table }, table.name, table.columns, table, query.select, []);
      checkAllUsed(ctx);
      const { root, offset } = applyPaging(read, h, opts, true);
      return { ...common.of(true, []), kind: 'read', read: root, count: prefer.count, offset };
    }
    case 'POST':
    case 'PUT':
    case 'PATCH':
    case 'DELETE':
      return planWrite(ctx, method, table, input.body, h, common, opts);
    default:
      throw errors.unsupportedMethod(method);
  }
}

/**
 * A `timezone` preference naming no zone of pg_timezone_names is dropped and counted as invalid, as in PostgREST:
 * ignored (and not in Preference-Applied) unless handling=strict makes it PGRST122.
 */
function withKnownTimezone(h: RequestHeaders, cache: SchemaCache): RequestHeaders {
  const tz = h.prefer.timezone;
  if (tz === null || cache.timezones.has(tz)) return h;
  return { ...h, prefer: { ...h.prefer, timezone: null, invalid: [...h.prefer.invalid, `timezone=${tz}`] } };
}

function applyPaging(
  read: ReadPlan,
  h: RequestHeaders,
  opts: PlannerOptions,
  useRange: boolean,
): { root: ReadPlan; offset: number } {
  let limit = read.limit,
    offset = read.offset ?? 0;
  if (useRange && h.range) {
    offset = h.range.offset + (read.offset ?? 0);
    if (h.range.limit !== null) limit = limit === null ? h.range.limit : Math.min(limit, h.range.limit);
  }
  if (opts.maxRows !== null) limit = limit === null ? opts.maxRows : Math.min(limit, opts.maxRows);
  return { root: { ...read, limit, offset: offset || null }, offset };
}

function parseJsonBody(body: string | undefined): unknown {
  if (body === undefined || body.trim() === '') return undefined;
  try {
    return JSON.parse(body);
  } catch (e) {
    throw errors.invalidBody('Empty or invalid json', (e as Error).message);
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function planWrite(
  ctx: ReadContext,
  method: string,
  table: Table,
  rawBody: string | undefined,
  h: RequestHeaders,
  common: CommonFields,
  opts: PlannerOptions,
): Plan {
  const { query } = ctx;
  const prefer = h.prefer;
  const ret = prefer.return ?? 'minimal';
  const applied = prefer.return ? [`return=${prefer.return}`] : [];
  let mutation: Mutation;
  let status: number;
  let location: readonly string[] | null = null;

  if (method === 'POST' || method === 'PUT') {
    if (!table.insertable) throw errors.notInsertable(table.name, 'insert');
    const body = parseJsonBody(rawBody);
    const rows = Array.isArray(body) ? body : body === undefined ? null : [body];
    if (!rows?.every(isObject)) throw errors.invalidBody('Empty or invalid json');
    let columns: string[];
    if (query.columns) columns = [...query.columns];
    else {
      columns = rows.length ? Object.keys(rows[0]) : [];
      const sorted = [...columns].sort().join('\u0000');
      for (const r of rows) {
        if (Object.keys(r).sort().join('\u0000') !== sorted) throw errors.invalidBody('All object keys must match');
      }
    }
    checkColumns(table, columns);
    let onConflict: Extract<Mutation, { kind: 'insert' }>['onConflict'] = null;
    if (method === 'PUT') {
      if (rows.length !== 1) throw errors.invalidBody('PUT payload must contain a single row');
      const pkFilters = query.filters.filter((f) => f.path.length === 0);
      const ok =
        table.pk.length > 0 &&
        pkFilters.length === table.pk.length &&
        query.logic.length === 0 &&
        pkFilters.every(
          (f) =>
            !(f.node instanceof Error) &&
            f.node.op === 'eq' &&
            !f.node.negate &&
            f.node.field.jsonPath.length === 0 &&
            table.pk.includes(f.node.field.name),
        );
      if (!ok || query.limits.length) throw errors.invalidPut();
      for (const f of pkFilters) {
        const node = f.node as Exclude<typeof f.node, Error>;
        const v = rows[0][node.field.name];
        if (v === undefined || String(v) !== (node.value.kind === 'scalar' ? node.value.value : ''))
          throw errors.putMismatch();
        ctx.skip.add(f);
      }
      onConflict = { columns: table.pk, action: 'update' };
      status = ret === 'representation' ? 200 : 204;
    } else {
      if (prefer.resolution) {
        const cols = query.onConflict ?? table.pk;
        checkColumns(table, cols);
        onConflict = { columns: cols, action: prefer.resolution === 'merge-duplicates' ? 'update' : 'nothing' };
        applied.push(`resolution=${prefer.resolution}`);
      }
      for (const f of query.filters) if (f.path.length === 0) ctx.skip.add(f);
      status = 201;
    }
    const defaults = new Map<string, string>();
    if (prefer.missing === 'default' && query.columns) {
      applied.push('missing=default');
      for (const c of columns) {
        const col = table.columns.get(c)!;
        if (col.defaultExpr !== null && rows.some((r) => !(c in r))) defaults.set(c, col.defaultExpr);
      }
    }
    const empty = rows.length === 0 ? 'none' : columns.length === 0 ? 'default-values' : null;
    mutation = { kind: 'insert', table, columns, body: JSON.stringify(rows), defaults, onConflict, empty };
    if (ret === 'headers-only' && table.pk.length) location = table.pk;
  } else {
    if (method === 'PATCH' && !table.updatable) throw errors.notInsertable(table.name, 'update');
    if (method === 'DELETE' && !table.deletable) throw errors.notInsertable(table.name, 'delete');
    const where = planConditions(ctx, table.columns, table.name, [], []);
    if (where.length === 0 && !opts.allowUnfilteredWrites)
      throw errors.unfilteredWrite(method === 'PATCH' ? 'UPDATE' : 'DELETE');
    if (method === 'PATCH') {
      const body = parseJsonBody(rawBody);
      if (!isObject(body)) throw errors.invalidBody('Empty or invalid json');
      const columns = query.columns ? [...query.columns] : Object.keys(body);
      checkColumns(table, columns);
      mutation = { kind: 'update', table, columns, body: JSON.stringify(body), where };
    } else {
      mutation = { kind: 'delete', table, where };
    }
    status = ret === 'representation' ? 200 : 204;
  }
  if (prefer.maxAffected !== null && prefer.handling === 'strict' && mutation.kind !== 'insert')
    applied.push(`max-affected=${prefer.maxAffected}`);
  const returning = planRead(
    ctx,
    { kind: 'mutated', table },
    table.name,
    table.columns,
    table,
    query.select,
    [],
    false,
  );
  checkAllUsed(ctx);
  return {
    ...common.of(false, applied),
    kind: 'mutate',
    mutation,
    returning,
    representation: ret === 'representation',
    location,
    status,
  };
}

function checkColumns(table: Table, cols: readonly string[]): void {
  for (const c of cols) if (!table.columns.has(c)) throw errors.noColumn(c, table.name);
}

const isJsonType = (t: string) => t === 'json' || t === 'jsonb';

function chooseFunction(
  fns: readonly DbFunction[],
  keys: readonly string[] | null,
  schema: string,
  name: string,
  allowSingle: boolean,
): DbFunction {
  const matching =
    keys === null
      ? []
      : fns.filter(
          (f) =>
            keys.every((k) => f.args.some((a) => a.name === k)) &&
            f.args.every((a) => a.hasDefault || keys.includes(a.name)),
        );
  const candidates = matching.length
    ? matching
    : allowSingle
      ? fns.filter((f) => f.args.length === 1 && f.args[0].name === '' && isJsonType(f.args[0].type))
      : [];
  if (candidates.length === 0) throw errors.noFunction(schema, name, [...(keys ?? [])]);
  if (candidates.length > 1)
    throw errors.ambiguousFunction(
      schema,
      name,
      candidates.map((f) => f.args.map((a) => `${a.name} => ${a.type}`).join(', ')),
    );
  return candidates[0];
}

function planCall(
  ctx: ReadContext,
  method: string,
  name: string,
  schema: string,
  rawBody: string | undefined,
  h: RequestHeaders,
  common: CommonFields,
  opts: PlannerOptions,
): Plan {
  if (method === 'OPTIONS') return { ...common.of(true, []), kind: 'options', allow: 'OPTIONS,GET,HEAD,POST' };
  if (method !== 'GET' && method !== 'HEAD' && method !== 'POST') throw errors.rpcMethod(method);
  const fns = ctx.cache.functions.get(tableKey(schema, name));
  const readOnly = method !== 'POST';
  let fn: DbFunction, call: CallArgs;
  if (!readOnly) {
    const body = parseJsonBody(rawBody) ?? {};
    const keys = isObject(body) ? Object.keys(body) : null;
    if (!fns) throw errors.noFunction(schema, name, [...(keys ?? [])]);
    fn = chooseFunction(fns, keys, schema, name, true);
    const single = fn.args.length === 1 && fn.args[0].name === '';
    call = single
      ? { fn, mode: 'single', json: JSON.stringify(body), argNames: [] }
      : { fn, mode: keys!.length ? 'record' : 'none', json: JSON.stringify(body), argNames: keys! };
  } else {
    const argNames = new Set((fns ?? []).flatMap((f) => f.args.map((a) => a.name)).filter((n) => n !== ''));
    const args: Record<string, string> = {};
    for (const f of ctx.query.filters) {
      if (f.path.length === 0 && argNames.has(f.key)) {
        args[f.key] = f.raw;
        ctx.skip.add(f);
      }
    }
    if (!fns) throw errors.noFunction(schema, name, Object.keys(args));
    fn = chooseFunction(fns, Object.keys(args), schema, name, false);
    call = {
      fn,
      mode: Object.keys(args).length ? 'record' : 'none',
      json: JSON.stringify(args),
      argNames: Object.keys(args),
    };
  }
  const applied: string[] = [];
  if (fn.returnKind !== 'composite') {
    for (const f of ctx.query.filters) ctx.skip.add(f);
    checkAllUsed(ctx);
    return { ...common.of(readOnly, applied), kind: 'call', read: null, scalar: call, fn, count: null, offset: 0 };
  }
  const read = planRead(ctx, { kind: 'call', call }, fn.name, fn.outColumns, fn.returnTable, ctx.query.select, []);
  checkAllUsed(ctx);
  const { root, offset } = applyPaging(read, h, opts, readOnly);
  return { ...common.of(readOnly, applied), kind: 'call', read: root, scalar: null, fn, count: h.prefer.count, offset };
}
