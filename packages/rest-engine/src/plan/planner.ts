// The plan stage's entry: routes the parsed request (method + target) to a plan: read, insert/update/delete/put,
// function call, OpenAPI or OPTIONS. Pure over the request, the schema cache and the options.
import { closest, distance } from 'fastest-levenshtein';
import { errors } from '../errors.js';
import type { ApiRequest } from '../parse/request-parser.js';
import type { RequestHeaders } from '../parse/types.js';
import { tableKey, type DbFunction, type SchemaCache, type Table } from '../schema-cache/types.js';
import { checkAllAddressed, type Level, type PlanContext, planConditions, planRead } from './read-planner.js';
import type { CallArgs, Mutation, Plan, PlanCommon, ReadPlan, Source } from './types.js';

export interface PlannerOptions {
  readonly schemas: readonly string[];
  readonly maxRows: number | null;
  readonly aggregatesEnabled: boolean;
  readonly allowUnfilteredWrites: boolean;
  /** `Prefer: tx` decides how the transaction ends (db-tx-end's -allow-override forms). */
  readonly txOverridable: boolean;
  /** Plan output (`application/vnd.pgrst.plan`) allowed; otherwise that media type is not acceptable. */
  readonly planEnabled?: boolean;
}

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
    const media = this.h.accept;
    return { schema: this.schema, readOnly, media, explain: this.h.plan, prefer, head: this.head, applied };
  }
}

/** The plan stage: the parsed request resolved against the schema cache. Pure: same inputs, same plan. */
export function plan(request: ApiRequest, cache: SchemaCache, opts: PlannerOptions): Plan {
  const { method, target } = request;
  const h = withKnownTimezone(request.headers, cache);
  const schema = h.profile ?? opts.schemas[0];
  if (!opts.schemas.includes(schema)) throw errors.schemaNotExposed(schema, opts.schemas);
  const prefer = h.prefer;
  if (prefer.handling === 'strict' && prefer.invalid.length) throw errors.strictPrefer([...prefer.invalid]);
  const common = new CommonFields(schema, h, method === 'HEAD', opts.txOverridable);

  if (target.kind === 'root') {
    if (method === 'OPTIONS') return { ...common.of(true, []), kind: 'options', allow: 'OPTIONS,GET,HEAD' };
    if (method !== 'GET' && method !== 'HEAD') throw errors.unsupportedMethod(method);
    if (h.accept !== 'openapi' && h.accept !== 'json') throw errors.notAcceptable(request.acceptHeader);
    return { ...common.of(true, []), kind: 'openapi' };
  }
  if (h.accept === 'openapi' || (h.accept === 'plan' && !opts.planEnabled)) {
    throw errors.notAcceptable(request.acceptHeader);
  }
  const ctx: PlanContext = { cache, aggregatesEnabled: opts.aggregatesEnabled, query: request.query };
  const step: Step = { ctx, request, h, schema, common, opts };
  if (target.kind === 'rpc') return planCall(step, target.name);

  const table = cache.tables.get(tableKey(schema, target.name));
  if (!table) throw errors.noTable(schema, target.name);
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
      const read = planRead(ctx, rootLevel(ctx, { kind: 'table', table }, true));
      checkAllAddressed(ctx.query, read);
      const { root, offset } = applyPaging(read, h, opts, true);
      return { ...common.of(true, []), kind: 'read', read: root, count: prefer.count, offset };
    }
    case 'POST':
    case 'PUT':
    case 'PATCH':
    case 'DELETE':
      return planWrite(step, table);
    default:
      throw errors.unsupportedMethod(method);
  }
}

/** What every planning step reads, in one record rather than a row of positional arguments. */
interface Step {
  readonly ctx: PlanContext;
  readonly request: ApiRequest;
  readonly h: RequestHeaders;
  readonly schema: string;
  readonly common: CommonFields;
  readonly opts: PlannerOptions;
}

/** The root level of a read: the table, the rows a mutation returned or a function's result. */
function rootLevel(ctx: PlanContext, source: Source, takeFilters: boolean): Level {
  const select = ctx.query.select;
  if (source.kind === 'call') {
    const fn = source.call.fn;
    return {
      source,
      label: fn.name,
      columns: fn.outColumns,
      relTable: fn.returnTable,
      select,
      names: [],
      alias: 't0',
      takeFilters,
    };
  }
  const t = source.table;
  return { source, label: t.name, columns: t.columns, relTable: t, select, names: [], alias: 't0', takeFilters };
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

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function insertRows(body: unknown): Record<string, unknown>[] {
  const rows = Array.isArray(body) ? body : body === undefined ? null : [body];
  if (!rows?.every(isObject)) throw errors.invalidBody('Empty or invalid json');
  return rows;
}

/** PUT: one row, filtered by eq on every primary-key column with the same values as the row (PGRST105 otherwise). */
function checkPut(table: Table, query: ApiRequest['query'], row: Record<string, unknown>): void {
  const pkFilters = query.filters.filter((f) => f.path.length === 0);
  const ok =
    table.pk.length > 0 &&
    pkFilters.length === table.pk.length &&
    query.logic.length === 0 &&
    query.limits.length === 0 &&
    pkFilters.every(
      (f) =>
        !(f.node instanceof Error) &&
        f.node.op === 'eq' &&
        !f.node.negate &&
        f.node.field.jsonPath.length === 0 &&
        table.pk.includes(f.node.field.name),
    );
  if (!ok) throw errors.invalidPut();
  for (const f of pkFilters) {
    const node = f.node as Exclude<typeof f.node, Error>;
    const v = row[node.field.name];
    if (v === undefined || String(v) !== (node.value.kind === 'scalar' ? node.value.value : ''))
      throw errors.putMismatch();
  }
}

function planInsert(step: Step, table: Table, applied: string[]): Extract<Mutation, { kind: 'insert' }> {
  const { query } = step.ctx;
  const prefer = step.h.prefer;
  if (!table.insertable) throw errors.notInsertable(table.name, 'insert');
  const rows = insertRows(step.request.body);
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
  if (step.request.method === 'PUT') {
    if (rows.length !== 1) throw errors.invalidBody('PUT payload must contain a single row');
    checkPut(table, query, rows[0]);
    onConflict = { columns: table.pk, action: 'update' };
  } else if (prefer.resolution) {
    const cols = query.onConflict ?? table.pk;
    checkColumns(table, cols);
    onConflict = { columns: cols, action: prefer.resolution === 'merge-duplicates' ? 'update' : 'nothing' };
    applied.push(`resolution=${prefer.resolution}`);
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
  return { kind: 'insert', table, columns, body: JSON.stringify(rows), defaults, onConflict, empty };
}

function planWrite(step: Step, table: Table): Plan {
  const { ctx, h, request } = step;
  const { query } = ctx;
  const method = request.method;
  const ret = h.prefer.return ?? 'minimal';
  const applied = h.prefer.return ? [`return=${h.prefer.return}`] : [];
  let mutation: Mutation;
  let status: number;
  let location: readonly string[] | null = null;

  if (method === 'POST' || method === 'PUT') {
    mutation = planInsert(step, table, applied);
    status = method === 'POST' ? 201 : ret === 'representation' ? 200 : 204;
    if (ret === 'headers-only' && table.pk.length) location = table.pk;
  } else {
    if (method === 'PATCH' && !table.updatable) throw errors.notInsertable(table.name, 'update');
    if (method === 'DELETE' && !table.deletable) throw errors.notInsertable(table.name, 'delete');
    const where = planConditions(ctx, table.columns, table.name, [], []);
    if (where.length === 0 && !step.opts.allowUnfilteredWrites)
      throw errors.unfilteredWrite(method === 'PATCH' ? 'UPDATE' : 'DELETE');
    if (method === 'PATCH') {
      const body = request.body;
      if (!isObject(body)) throw errors.invalidBody('Empty or invalid json');
      const columns = query.columns ? [...query.columns] : Object.keys(body);
      checkColumns(table, columns);
      mutation = { kind: 'update', table, columns, body: JSON.stringify(body), where };
    } else {
      mutation = { kind: 'delete', table, where };
    }
    status = ret === 'representation' ? 200 : 204;
  }
  if (h.prefer.maxAffected !== null && h.prefer.handling === 'strict' && mutation.kind !== 'insert')
    applied.push(`max-affected=${h.prefer.maxAffected}`);
  const returning = planRead(ctx, rootLevel(ctx, { kind: 'mutated', table }, false));
  checkAllAddressed(query, returning);
  return {
    ...step.common.of(false, applied),
    kind: 'mutate',
    mutation,
    count: h.prefer.count,
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
  if (candidates.length > 1) {
    // Fewest parameters first, then by signature, as PostgREST lists them.
    const sigs = candidates
      .map((f) => ({ n: f.args.length, sig: f.args.map((a) => `${a.name} => ${a.type}`).join(', ') }))
      .sort((a, b) => a.n - b.n || (a.sig < b.sig ? -1 : a.sig > b.sig ? 1 : 0));
    throw errors.ambiguousFunction(
      schema,
      name,
      sigs.map((s) => s.sig),
    );
  }
  return candidates[0];
}

/**
 * The text a single unnamed parameter receives: the whole body for json/jsonb; for text, xml and bytea the value
 * of the body's one key '' when the client sent `{"": value}` (supabase-js's way to call them), else the body.
 */
function singleArgument(fn: DbFunction, body: unknown): string {
  if (!isJsonType(fn.args[0].type) && isObject(body)) {
    const keys = Object.keys(body);
    if (keys.length === 1 && keys[0] === '') {
      const v = body[''];
      return typeof v === 'string' ? v : JSON.stringify(v);
    }
  }
  return JSON.stringify(body);
}

/** For a misspelt function name: the nearest name in the schema, within a third of its length in edits. */
function closestFunction(cache: SchemaCache, schema: string, name: string): string | null {
  const names = [...cache.functions.values()].filter((f) => f[0].schema === schema).map((f) => f[0].name);
  if (names.length === 0) return null;
  const best = closest(name, names);
  return distance(name, best) <= Math.max(1, Math.floor(name.length / 3)) ? best : null;
}

function planCall(step: Step, name: string): Plan {
  const { request, schema, common, h } = step;
  const method = request.method;
  if (method === 'OPTIONS') return { ...common.of(true, []), kind: 'options', allow: 'OPTIONS,GET,HEAD,POST' };
  if (method !== 'GET' && method !== 'HEAD' && method !== 'POST') throw errors.rpcMethod(method);
  const fns = step.ctx.cache.functions.get(tableKey(schema, name));
  const readOnly = method !== 'POST';
  let fn: DbFunction, call: CallArgs;
  // By GET, query-string entries naming an argument are arguments, not filters on the result.
  let query = step.ctx.query;
  if (!readOnly) {
    const body = request.body ?? {};
    const keys = isObject(body) ? Object.keys(body) : null;
    if (!fns) throw errors.noFunction(schema, name, [...(keys ?? [])], closestFunction(step.ctx.cache, schema, name));
    fn = chooseFunction(fns, keys, schema, name, true);
    const single = fn.args.length === 1 && fn.args[0].name === '';
    call = single
      ? { fn, mode: 'single', json: singleArgument(fn, body), argNames: [] }
      : { fn, mode: keys!.length ? 'record' : 'none', json: JSON.stringify(body), argNames: keys! };
  } else {
    const argNames = new Set((fns ?? []).flatMap((f) => f.args.map((a) => a.name)).filter((n) => n !== ''));
    const isArg = (f: (typeof query.filters)[number]) => f.path.length === 0 && argNames.has(f.key);
    const args: Record<string, string> = {};
    for (const f of query.filters) if (isArg(f)) args[f.key] = f.raw;
    if (!fns) throw errors.noFunction(schema, name, Object.keys(args), closestFunction(step.ctx.cache, schema, name));
    fn = chooseFunction(fns, Object.keys(args), schema, name, false);
    const argKeys = Object.keys(args);
    call = { fn, mode: argKeys.length ? 'record' : 'none', json: JSON.stringify(args), argNames: argKeys };
    query = { ...query, filters: query.filters.filter((f) => !isArg(f)) };
  }
  if (fn.returnKind !== 'composite') {
    checkAllAddressed(query, null);
    return { ...common.of(readOnly, []), kind: 'call', read: null, scalar: call, fn, count: h.prefer.count, offset: 0 };
  }
  const ctx: PlanContext = { ...step.ctx, query };
  const read = planRead(ctx, rootLevel(ctx, { kind: 'call', call }, true));
  checkAllAddressed(query, read);
  const { root, offset } = applyPaging(read, h, step.opts, readOnly);
  return { ...common.of(readOnly, []), kind: 'call', read: root, scalar: null, fn, count: h.prefer.count, offset };
}
