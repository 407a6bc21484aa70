// The main statement of a request: the source rows (read, mutation CTE or function call) wrapped so that Postgres
// returns three columns: the total count (or null), the page size and the body as text.
import { qualified, quoteIdent } from '../ident.js';
import type { MediaType, Preferences } from '../parse/types.js';
import type { Mutation, Plan, ReadPlan } from '../plan/types.js';
import type { DbFunction, MediaHandler, Table } from '../schema-cache/types.js';
import { condition } from './condition-compiler.js';
import { countedRows, countQuery, selectQuery } from './read-compiler.js';
import { callArgsFrom, callExpr } from './row-source.js';
import { arrayLiteral, SqlBuilder, type Statement } from './sql-builder.js';

export interface CompiledRequest {
  readonly main: Statement;
  /** The main statement is an EXPLAIN in this format: its output is the body. */
  readonly planOutput: 'json' | 'text' | null;
  /** EXPLAIN of the counted rows, for count=planned and count=estimated. */
  readonly explain: Statement | null;
}

/**
 * The response.headers and response.status settings, read after the rows (an aggregate's outputs are computed after
 * its input), so that what a function or trigger of this statement set is seen: in the same statement, no extra round
 * trip. Empty when nothing set them.
 */
const RESPONSE_GUCS =
  ", nullif(current_setting('response.headers', true), '') AS response_headers" +
  ", nullif(current_setting('response.status', true), '') AS response_status";

/**
 * The answer of a media type handler, as bytes: its domain's binary form (the base type's send function), empty
 * without a value. `row`: the rows (`_t`, cast to an aggregate's relation) or a function's single value.
 */
function handlerBody(b: SqlBuilder, handler: MediaHandler, row: '_t' | '_t.pgrst_scalar'): void {
  const send = qualified(handler.send.schema, handler.send.name);
  let value: string;
  if (handler.kind === 'function') value = `(pg_catalog.array_agg(${row}))[1]`;
  else {
    const arg = handler.target && row === '_t' ? `_t::${qualified(handler.target.schema, handler.target.name)}` : row;
    value = `${qualified(handler.schema, handler.name)}(${arg})`;
  }
  b.push(`coalesce(${send}(${value}), ''::pg_catalog.bytea)`);
}

function body(b: SqlBuilder, media: MediaType, single: boolean, handler: MediaHandler | null = null): void {
  if (handler) {
    handlerBody(b, handler, '_t');
    return;
  }
  switch (media) {
    case 'csv':
      b.push(
        "coalesce((SELECT string_agg(k, ',') FROM json_object_keys(json_agg(_t)->0) k) || E'\\n' ||" +
          " string_agg(substring(_t::text, 2, length(_t::text) - 2), E'\\n'), '')",
      );
      return;
    case 'geojson':
      // PostGIS's ST_AsGeoJSON(record): each row a Feature, its geometry column the geometry.
      b.push(
        "json_build_object('type', 'FeatureCollection', 'features', " +
          "coalesce(json_agg(ST_AsGeoJSON(_t)::json), '[]'))::text",
      );
      return;
    case 'stripped-array':
    case 'stripped-object':
      b.push("coalesce(json_strip_nulls(json_agg(_t)), '[]')::text");
      return;
    default:
      b.push(single ? "coalesce((json_agg(_t)->0)::text, 'null')" : "coalesce(json_agg(_t), '[]')::text");
  }
}

function wrapRead(
  b: SqlBuilder,
  read: ReadPlan,
  media: MediaType,
  handler: MediaHandler | null,
  count: Preferences['count'],
  maxRows: number | null,
  single = false,
): void {
  b.push('SELECT ');
  // count=estimated counts exactly, but stops one row past the cap: past it the planner's estimate is used.
  if (count === 'exact' || (count === 'estimated' && maxRows === null)) {
    b.push('(');
    countQuery(b, read, null);
    b.push(')');
  } else if (count === 'estimated') {
    b.push('(');
    countQuery(b, read, maxRows! + 1);
    b.push(')');
  } else b.push('NULL::bigint');
  b.push(' AS total, pg_catalog.count(_t) AS page_total, ');
  body(b, media, single, handler);
  b.push(' AS body', RESPONSE_GUCS, ' FROM (');
  selectQuery(b, read, null);
  b.push(') _t');
}

/** EXPLAIN of the counted rows themselves: its top node's "Plan Rows" is the planner's estimate of the total. */
function explainOf(read: ReadPlan): Statement {
  const b = new SqlBuilder();
  b.push('EXPLAIN (FORMAT JSON) ');
  countedRows(b, read);
  return b.build();
}

/** An upsert that updates on conflict, into a table (views have no xmax): its answer says whether rows were new. */
const upsertCountsInserts = (m: Mutation) =>
  m.kind === 'insert' && m.onConflict?.action === 'update' && m.empty === null && m.table.kind === 'table';

/**
 * Counts a row in the transaction-local setting pgrst.inserted (up or down); always true, so that it can stand as a
 * WHERE condition. Its text is constant: nothing of the request is in it.
 */
const countInserted = (sign: '+' | '-') =>
  `pg_catalog.set_config('pgrst.inserted', (coalesce(nullif(pg_catalog.current_setting('pgrst.inserted', true), '')::int, 0) ${sign} 1)::text, true) IS NOT NULL`;

/**
 * The columns a mutation must return: what the representation, its embeds and order read, and the Location key;
 * null for all of them (`*`, computed fields, aggregates). RETURNING only these, as PostgREST does, lets a role
 * with column privileges write: `RETURNING *` would need SELECT on every column (hidden ones such as a token hash).
 */
function returnedColumns(plan: Extract<Plan, { kind: 'mutate' }>): readonly string[] | null {
  const columns = new Set(plan.location ?? []);
  if (!plan.representation) return [...columns];
  const read = plan.returning;
  for (const item of read.select) {
    if (item.kind === 'column') columns.add(item.field.name);
    else if (item.kind === 'embed' && !item.embed.rel.computed) for (const c of item.embed.rel.columns) columns.add(c);
    else return null;
  }
  for (const o of read.order) {
    if (o.related) for (const c of o.related.columns) columns.add(c);
    else columns.add(o.field.name);
  }
  if (read.where.length > 0) return null;
  return [...columns];
}

function returningList(columns: readonly string[] | null): string {
  if (columns === null) return ' RETURNING pgrst_t.*';
  // A row with no column still counts: `RETURNING 1` returns one row per affected row, and reads nothing.
  return columns.length === 0
    ? ' RETURNING 1'
    : ` RETURNING ${columns.map((c) => `pgrst_t.${quoteIdent(c)}`).join(', ')}`;
}

/** The written columns whose domain is read from JSON through its own cast (data representations). */
const fromJsonColumns = (table: Table, columns: readonly string[]) =>
  columns.filter((c) => table.columns.get(c)?.representation?.fromJson);

/** The qualified name of a written column's cast function from json (only for those fromJsonColumns lists). */
function fromJsonCast(table: Table, column: string): string {
  const f = table.columns.get(column)!.representation!.fromJson!;
  return qualified(f.schema, f.name);
}

function mutationCte(b: SqlBuilder, m: Mutation, returned: readonly string[] | null): void {
  const t = qualified(m.table.schema, m.table.name);
  b.push(upsertCountsInserts(m) ? 'WITH pgrst_upsert AS (' : 'WITH pgrst_source AS (');
  if (m.kind === 'insert') {
    if (m.empty === 'none') {
      b.push('SELECT pgrst_t.* FROM ', t, ' pgrst_t WHERE FALSE');
    } else if (m.empty === 'default-values') {
      b.push('INSERT INTO ', t, ' AS pgrst_t DEFAULT VALUES RETURNING pgrst_t.*');
    } else {
      const cols = m.columns.map(quoteIdent).join(', ');
      b.push('INSERT INTO ', t, ' AS pgrst_t (', cols, ') SELECT ');
      const reps = fromJsonColumns(m.table, m.columns);
      if (m.defaults.size === 0 && reps.length === 0) {
        b.push(m.columns.map((c) => `_r.${quoteIdent(c)}`).join(', '), ' FROM json_populate_recordset(NULL::', t, ', ')
          .param(m.body, 'text')
          .push('::json')
          .push(') _r');
      } else {
        const defaults = [...m.defaults];
        // A column read through its data representation: the body's JSON value cast to the column's domain.
        const value = (c: string) => {
          if (reps.includes(c)) b.push(fromJsonCast(m.table, c), '(_j.j -> ').param(c, 'text').push(')');
          else b.push(`_r.${quoteIdent(c)}`);
        };
        m.columns.forEach((c, i) => {
          if (i) b.push(', ');
          const d = defaults.findIndex(([name]) => name === c);
          if (d !== -1) {
            b.push('CASE WHEN _j.j::jsonb ? ').param(c, 'text').push(' THEN ');
            value(c);
            b.push(` ELSE _d.d${d} END`);
          } else value(c);
        });
        b.push(' FROM json_array_elements(').param(m.body, 'text').push('::json').push(') _j(j)');
        b.push(' CROSS JOIN LATERAL json_populate_record(NULL::', t, ', ');
        // The represented keys are left out of the row the base types read (their text is not the base's).
        if (reps.length) b.push('(_j.j::jsonb - ').param(arrayLiteral(reps), 'text[]').push(')::json');
        else b.push('_j.j');
        b.push(') _r');
        // Defaults come from pg_catalog (pg_get_expr), never from the request. Evaluated once per row, as
        // PostgREST does: a sequence advances for every row, also for rows that carry their own value.
        // The row reference makes the subquery correlated, so that it runs for each row rather than once.
        if (defaults.length)
          b.push(
            ' CROSS JOIN LATERAL (SELECT _j.j AS pgrst_row, ',
            defaults.map(([, def], k) => `${def} AS d${k}`).join(', '),
            ') _d',
          );
      }
      // A partitioned table's RETURNING reads no xmax: the rows the statement inserts are counted in a
      // transaction-local setting instead, up for every row offered and down for every row updated on conflict.
      const counted = upsertCountsInserts(m) && m.table.partitioned;
      if (counted) b.push(` WHERE ${countInserted('+')}`);
      if (m.onConflict) {
        b.push(' ON CONFLICT (', m.onConflict.columns.map(quoteIdent).join(', '), ')');
        if (m.onConflict.action === 'nothing' || m.columns.length === 0) b.push(' DO NOTHING');
        else b.push(' DO UPDATE SET ', m.columns.map((c) => `${quoteIdent(c)} = EXCLUDED.${quoteIdent(c)}`).join(', '));
        if (counted) b.push(` WHERE ${countInserted('-')}`);
      }
      if (counted) {
        b.push(' RETURNING pgrst_t AS pgrst_row), pgrst_source AS (');
        b.push('SELECT (pgrst_row).* FROM pgrst_upsert');
      } else if (upsertCountsInserts(m)) {
        // Which rows were inserted rather than updated (xmax is 0 on a fresh row): 201 or 200 for the upsert.
        b.push(' RETURNING pgrst_t AS pgrst_row, pgrst_t.xmax = 0 AS pgrst_inserted), pgrst_source AS (');
        b.push('SELECT (pgrst_row).* FROM pgrst_upsert');
      } else b.push(returningList(returned));
    }
  } else if (m.kind === 'update') {
    if (m.columns.length === 0) {
      b.push('SELECT pgrst_t.* FROM ', t, ' pgrst_t WHERE FALSE');
    } else {
      const reps = fromJsonColumns(m.table, m.columns);
      b.push('UPDATE ', t, ' AS pgrst_t SET ');
      m.columns.forEach((c, i) => {
        b.push(i ? ', ' : '', quoteIdent(c), ' = ');
        // A data representation: the body's JSON value through the domain's cast function.
        if (m.defaults.includes(c)) b.push('DEFAULT');
        else if (reps.includes(c)) b.push(fromJsonCast(m.table, c), '(_j.j -> ').param(c, 'text').push(')');
        else b.push(`_r.${quoteIdent(c)}`);
      });
      if (reps.length) {
        // The body comes from a set-returning function, so that the (often immutable) cast functions run per
        // updated row, never folded into constants at planning: an update of no row calls none of them.
        b.push(' FROM json_array_elements(json_build_array(').param(m.body, 'text').push('::json)) _j(j)');
        b.push(' CROSS JOIN LATERAL json_populate_record(NULL::', t, ', (_j.j::jsonb - ');
        b.param(arrayLiteral(reps), 'text[]').push(')::json) _r');
      } else {
        b.push(' FROM json_populate_record(NULL::', t, ', ').param(m.body, 'text').push('::json) _r');
      }
      where(b, m.where);
      b.push(returningList(returned));
    }
  } else if (m.softDelete) {
    softDelete(b, m, m.softDelete);
  } else {
    b.push('DELETE FROM ', t, ' AS pgrst_t');
    where(b, m.where);
    b.push(returningList(returned));
  }
  b.push(') ');
}

/**
 * A soft delete: the rows the filters select among those the caller can read (SELECT policies, not DELETE ones: the
 * function decides who may delete, and its refusal is the answer), each passed by primary key to the function,
 * whose rows are the answer. A NULL answer skips the row, as a BEFORE DELETE trigger's NULL does. The filters stay
 * on the table's scan, so the function is called only for the rows they select.
 */
function softDelete(b: SqlBuilder, m: Extract<Mutation, { kind: 'delete' }>, fn: DbFunction): void {
  const pk = m.table.pk.map(quoteIdent);
  b.push('SELECT pgrst_d.* FROM ', qualified(m.table.schema, m.table.name), ' AS pgrst_t CROSS JOIN LATERAL ');
  b.push(qualified(fn.schema, fn.name), '(', pk.map((c) => `pgrst_t.${c}`).join(', '), ') AS pgrst_d');
  where(b, m.where);
  b.push(m.where.length ? ' AND ' : ' WHERE ', `pgrst_d.${pk[0]} IS NOT NULL`);
}

function where(b: SqlBuilder, conds: Extract<Mutation, { kind: 'update' }>['where']): void {
  conds.forEach((c, i) => {
    b.push(i ? ' AND ' : ' WHERE ');
    condition(b, 'pgrst_t', c);
  });
}

export function compile(plan: Plan, maxRows: number | null): CompiledRequest {
  const c = compileStatement(plan, maxRows);
  if (!plan.explain) return c;
  const { format, options } = plan.explain;
  const explain = [`FORMAT ${format.toUpperCase()}`, ...options.map((o) => o.toUpperCase())].join(', ');
  return {
    main: { sql: `EXPLAIN (${explain}) ${c.main.sql}`, params: c.main.params },
    planOutput: format,
    explain: null,
  };
}

function compileStatement(
  plan: Plan,
  maxRows: number | null,
): Omit<CompiledRequest, 'planOutput'> & {
  planOutput: null;
} {
  const b = new SqlBuilder();
  switch (plan.kind) {
    case 'read':
      wrapRead(b, plan.read, plan.media, plan.handler, plan.count, maxRows);
      return {
        main: b.build(),
        explain: plan.count === 'planned' || plan.count === 'estimated' ? explainOf(plan.read) : null,
        planOutput: null,
      };
    case 'mutate': {
      mutationCte(b, plan.mutation, returnedColumns(plan));
      const r = plan.returning;
      // Every affected row is in _t (the representation is not paged), so the count is the page's.
      b.push(
        'SELECT ',
        plan.count ? 'pg_catalog.count(_t)' : 'NULL::bigint',
        ' AS total, pg_catalog.count(_t) AS page_total, ',
      );
      if (plan.representation) body(b, plan.media, false, plan.handler);
      else b.push("''");
      b.push(' AS body', RESPONSE_GUCS);
      if (plan.location) {
        b.push(
          ', (SELECT row_to_json(_l)::text FROM (SELECT ',
          plan.location.map(quoteIdent).join(', '),
          ' FROM pgrst_source LIMIT 1) _l) AS location',
        );
      }
      if (upsertCountsInserts(plan.mutation) && plan.mutation.table.partitioned) {
        // Read once every row of the upsert was written (the count runs it to its end).
        b.push(
          ", (SELECT coalesce(nullif(pg_catalog.current_setting('pgrst.inserted', true), '')::int, 0)",
          ' FROM (SELECT pg_catalog.count(*) FROM pgrst_upsert) _c) AS inserted',
        );
      } else if (upsertCountsInserts(plan.mutation)) {
        b.push(', (SELECT pg_catalog.count(*) FROM pgrst_upsert WHERE pgrst_inserted) AS inserted');
      }
      b.push(' FROM (');
      if (plan.representation) selectQuery(b, r, null);
      else b.push('SELECT 1 FROM pgrst_source');
      b.push(') _t');
      return { main: b.build(), explain: null, planOutput: null };
    }
    case 'call': {
      if (plan.read) {
        const single = !plan.fn.returnsSet && plan.media !== 'csv';
        wrapRead(b, plan.read, plan.media, plan.handler, plan.count, maxRows, single);
        return {
          main: b.build(),
          explain: plan.count === 'planned' || plan.count === 'estimated' ? explainOf(plan.read) : null,
          planOutput: null,
        };
      }
      const call = plan.scalar!;
      // count(_t) reads the whole row: an unreferenced column of a stable function would be pruned, never called.
      b.push(
        'SELECT ',
        plan.count ? 'pg_catalog.count(_t)' : 'NULL::bigint',
        ' AS total, pg_catalog.count(_t) AS page_total, ',
      );
      // A media type handler: the function's value (or an aggregate of it) as bytes, the whole answer.
      if (plan.handler !== null) handlerBody(b, plan.handler, '_t.pgrst_scalar');
      else if (plan.fn.returnKind === 'void') b.push("''");
      else if (plan.fn.returnsSet) b.push("coalesce(json_agg(_t.pgrst_scalar), '[]')::text");
      else b.push("coalesce((json_agg(_t.pgrst_scalar)->0)::text, 'null')");
      b.push(' AS body', RESPONSE_GUCS, ' FROM (SELECT ');
      callExpr(b, call);
      b.push(' AS pgrst_scalar');
      if (call.mode === 'record') {
        b.push(' FROM ');
        callArgsFrom(b, call);
      }
      // OFFSET 0 keeps _t a subquery: pulled up, the call would be copied into count(_t) and json_agg, and a
      // stable function (which PostgreSQL may evaluate as often as it appears) ran twice.
      b.push(' OFFSET 0) _t');
      return { main: b.build(), explain: null, planOutput: null };
    }
    default:
      throw new Error(`nothing to compile for a ${plan.kind} plan`);
  }
}
