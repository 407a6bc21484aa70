// The write plans: POST and PUT (insert, upsert), PATCH (update) and DELETE, with their body checks and the
// rows they return.
import { errors } from '../errors.js';
import type { ApiRequest } from '../parse/request-parser.js';
import { type DbFunction, type Table, tableKey } from '../schema-cache/types.js';
import { type AppliedByPlan, isObject, rootLevel, type Step } from './plan-step.js';
import { isDefaultSelect, negotiateMedia } from './media-negotiation.js';
import { checkAllAddressed, planConditions, planRead } from './read-planner.js';
import { softDeleteFunction } from './soft-delete.js';
import type { Mutation, Plan } from './types.js';

function insertRows(body: unknown): Record<string, unknown>[] {
  const rows = Array.isArray(body) ? body : body === undefined ? null : [body];
  if (rows === null || (!Array.isArray(body) && !isObject(body))) throw errors.invalidBody('Empty or invalid json');
  // An array of anything but objects cannot be rows with the same keys, as PostgREST words it.
  if (!rows.every(isObject)) throw errors.invalidBody('All object keys must match');
  return rows;
}

type KeyFilters = ApiRequest['query']['filters'];

/** PUT: filtered by eq on every primary-key column (PGRST105 otherwise); those filters. */
function putKeyFilters(table: Table, query: ApiRequest['query']): KeyFilters {
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
  return pkFilters;
}

/** Whether a row carries the values the PUT's key filters (from putKeyFilters) give. */
function matchesPut(pkFilters: KeyFilters, row: Record<string, unknown>): boolean {
  return pkFilters.every((f) => {
    const node = f.node as Exclude<typeof f.node, Error>;
    const v = row[node.field.name];
    return v !== undefined && String(v) === (node.value.kind === 'scalar' ? node.value.value : '');
  });
}

function planInsert(step: Step, table: Table): Extract<Mutation, { kind: 'insert' }> {
  const { query } = step.ctx;
  const prefer = step.h.prefer;
  if (!table.insertable) throw errors.notInsertable(table.name, 'insert');
  // PUT names one row by its key: a limit or offset on it is refused first (400 PGRST114), as in PostgREST.
  if (step.request.method === 'PUT') {
    for (const l of query.limits)
      if (l.path.length === 0 && (l.node.limit !== null || (l.node.offset ?? 0) > 0)) throw errors.putLimit();
  }
  let rows = insertRows(step.request.body);
  let columns: string[];
  if (query.columns) {
    columns = [...query.columns];
    // Keys ?columns= leaves out are not read at all (not even parsed as their column's type), as in PostgREST.
    const wanted = new Set(columns);
    rows = rows.map((r) => Object.fromEntries(Object.entries(r).filter(([k]) => wanted.has(k))));
  } else {
    columns = rows.length ? Object.keys(rows[0]) : [];
    const sorted = [...columns].sort().join('\u0000');
    for (const r of rows) {
      if (Object.keys(r).sort().join('\u0000') !== sorted) throw errors.invalidBody('All object keys must match');
    }
  }
  checkColumns(table, columns);
  let onConflict: Extract<Mutation, { kind: 'insert' }>['onConflict'] = null;
  if (step.request.method === 'PUT') {
    if (rows.length === 0) throw errors.invalidBody('PUT payload must contain a single row');
    const keyFilters = putKeyFilters(table, query);
    // Of several rows, the one the key filters name is put, as PostgREST (which inserts the rows that match and
    // wants exactly one); a single row must match them (400 PGRST115).
    rows = rows.filter((r) => matchesPut(keyFilters, r));
    if (rows.length !== 1) throw errors.putMismatch();
    onConflict = { columns: table.pk, action: 'update' };
  } else if (prefer.resolution && (query.onConflict !== null || table.pk.length > 0)) {
    // Without a conflict target (no primary key, no on_conflict) the resolution is ignored, as in PostgREST.
    const cols = query.onConflict ?? table.pk;
    checkColumns(table, cols);
    onConflict = { columns: cols, action: prefer.resolution === 'merge-duplicates' ? 'update' : 'nothing' };
  }
  const defaults = new Map<string, string>();
  if (prefer.missing === 'default' && query.columns) {
    for (const c of columns) {
      const col = table.columns.get(c)!;
      if (col.defaultExpr !== null && rows.some((r) => !(c in r))) defaults.set(c, col.defaultExpr);
    }
  }
  const empty = rows.length === 0 ? 'none' : columns.length === 0 ? 'default-values' : null;
  return { kind: 'insert', table, columns, body: JSON.stringify(rows), defaults, onConflict, empty };
}

export function planWrite(step: Step, table: Table): Plan {
  const { ctx, h, request } = step;
  const { query } = ctx;
  const method = request.method;
  const ret = h.prefer.return ?? 'minimal';
  let mutation: Mutation;
  let status: number;
  let location: readonly string[] | null = null;

  if (method === 'POST' || method === 'PUT') {
    mutation = planInsert(step, table);
    // A PUT answering with its row is 201 when the row was inserted, 200 when it replaced one (respond.ts turns 201
    // into 200 when the upsert counted no insert; a view's upsert cannot count them and stays 200).
    // A merge-duplicates POST of no row inserted nothing: 200, as PostgREST (also where no key makes it an upsert).
    if (method === 'POST')
      status =
        h.prefer.resolution === 'merge-duplicates' && mutation.kind === 'insert' && mutation.empty === 'none'
          ? 200
          : 201;
    else status = ret !== 'representation' ? 204 : table.kind === 'table' ? 201 : 200;
    if (ret === 'headers-only' && table.pk.length) location = table.pk;
  } else {
    if (method === 'PATCH' && !table.updatable) throw errors.notInsertable(table.name, 'update');
    if (method === 'DELETE' && !table.deletable) throw errors.notInsertable(table.name, 'delete');
    const where = planConditions(ctx, table.columns, table.name, [], [], table);
    if (where.length === 0 && !step.opts.allowUnfilteredWrites)
      throw errors.unfilteredWrite(method === 'PATCH' ? 'UPDATE' : 'DELETE');
    if (method === 'PATCH') {
      // An array body updates with its first object (an empty one with nothing), as PostgREST.
      let body = Array.isArray(request.body) ? (request.body[0] ?? {}) : request.body;
      if (!isObject(body)) throw errors.invalidBody('Empty or invalid json');
      const columns = query.columns ? [...query.columns] : Object.keys(body);
      checkColumns(table, columns);
      let defaults: string[] = [];
      if (query.columns) {
        // As for POST: keys ?columns= leaves out are not read; with missing=default, a column it names that the body
        // lacks takes its default (PostgreSQL's DEFAULT: the column's, or a view's own), otherwise null.
        const wanted = new Set(columns);
        body = Object.fromEntries(Object.entries(body).filter(([k]) => wanted.has(k)));
        if (h.prefer.missing === 'default') defaults = columns.filter((c) => !(c in body));
      }
      mutation = { kind: 'update', table, columns, body: JSON.stringify(body), defaults, where };
    } else {
      mutation = { kind: 'delete', table, where, softDelete: softDeleteOf(step, table) };
    }
    status = ret === 'representation' ? 200 : 204;
  }
  const returning = planRead(ctx, rootLevel(ctx, { kind: 'mutated', table }, false));
  checkAllAddressed(query, returning);
  // A media type handler makes the answer only of a write that answers with its rows (as PostgREST).
  const media = negotiateMedia(ctx.cache, request.acceptHeader, h.accept, table, isDefaultSelect(query.select), false);
  return {
    ...step.common.of(false, appliedBy(step, mutation)),
    media: media.media,
    handler: ret === 'representation' ? media.handler : null,
    kind: 'mutate',
    mutation,
    count: h.prefer.count,
    returning,
    representation: ret === 'representation',
    location,
    status,
  };
}

/** What a write names in Preference-Applied besides the preferences every plan applies (PostgREST's rules). */
function appliedBy(step: Step, m: Mutation): AppliedByPlan {
  const post = step.request.method === 'POST';
  return {
    // An upsert's resolution only where a conflict target exists: the primary key or on_conflict.
    resolution: post && (m.table.pk.length > 0 || step.ctx.query.onConflict !== null),
    missing: (post && m.kind === 'insert') || m.kind === 'update',
    return: true,
    maxAffected: m.kind !== 'insert',
  };
}

/**
 * The function a DELETE on `table` calls instead (option softDeletes), or null. A limit on a DELETE pages only its
 * answer; a soft delete's rows are marked as the answer reads them, so a limit would leave selected rows unmarked:
 * refused.
 */
function softDeleteOf(step: Step, table: Table): DbFunction | null {
  const fnKey = step.opts.softDeletes?.get(tableKey(table.schema, table.name));
  if (fnKey === undefined) return null;
  const fn = softDeleteFunction(step.ctx.cache, tableKey(table.schema, table.name), fnKey);
  if (typeof fn === 'string') throw errors.softDeleteUnavailable(fn);
  if (step.ctx.query.limits.some((l) => l.path.length === 0))
    throw errors.notImplemented('limit and offset on a DELETE of a table with soft deletes');
  return fn;
}

function checkColumns(table: Table, cols: readonly string[]): void {
  for (const c of cols) if (!table.columns.has(c)) throw errors.noColumn(c, table.name);
}
