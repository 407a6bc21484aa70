// Compiles read plans: select lists, embeds as LATERAL joins that render JSON in Postgres, filters, order, paging.
import { qualified, quoteIdent } from '../ident.js';
import type { Field, Filter } from '../parse/types.js';
import type { Column, Relationship } from '../schema-cache/types.js';
import type { CallArgs, EmbedPlan, PlannedCondition, PlannedSelect, ReadPlan } from '../plan/types.js';
import { arrayLiteral, type SqlBuilder } from './sql-builder.js';

function field(b: SqlBuilder, alias: string, f: Field): void {
  if (f.jsonPath.length === 0) {
    b.push(alias, '.', quoteIdent(f.name));
    return;
  }
  b.push('(', alias, '.', quoteIdent(f.name));
  for (const step of f.jsonPath) {
    b.push(step.arrow);
    if (step.index) b.param(step.key, 'int4');
    else b.param(step.key, 'text');
  }
  b.push(')');
}

const SIMPLE_OPS: Record<string, string> = {
  eq: '=',
  neq: '<>',
  gt: '>',
  gte: '>=',
  lt: '<',
  lte: '<=',
  like: 'LIKE',
  ilike: 'ILIKE',
  match: '~',
  imatch: '~*',
  cs: '@>',
  cd: '<@',
  ov: '&&',
  sl: '<<',
  sr: '>>',
  nxr: '&<',
  nxl: '&>',
  adj: '-|-',
  isdistinct: 'IS DISTINCT FROM',
};
const FTS_FN: Record<string, string> = {
  fts: 'to_tsquery',
  plfts: 'plainto_tsquery',
  phfts: 'phraseto_tsquery',
  wfts: 'websearch_to_tsquery',
};

function filter(b: SqlBuilder, alias: string, f: Filter, col: Column): void {
  if (f.negate) b.push('NOT (');
  const v = f.value;
  if (v.kind === 'is') {
    field(b, alias, f.field);
    b.push(' IS ', v.value.toUpperCase());
  } else if (f.op === 'in' && v.kind === 'list') {
    field(b, alias, f.field);
    b.push(' = ANY(').param(arrayLiteral(v.values)).push(')');
  } else if (f.quant && v.kind === 'list') {
    field(b, alias, f.field);
    b.push(' ', SIMPLE_OPS[f.op], f.quant === 'any' ? ' ANY(' : ' ALL(')
      .param(arrayLiteral(v.values))
      .push(')');
  } else if (v.kind === 'scalar' && FTS_FN[f.op]) {
    const lang = () => {
      if (f.lang) b.param(f.lang, 'regconfig').push(', ');
    };
    if (col.baseType === 'tsvector' && f.field.jsonPath.length === 0) field(b, alias, f.field);
    else {
      b.push('to_tsvector(');
      lang();
      field(b, alias, f.field);
      b.push(')');
    }
    b.push(' @@ ', FTS_FN[f.op], '(');
    lang();
    b.param(v.value).push(')');
  } else if (v.kind === 'scalar') {
    field(b, alias, f.field);
    b.push(' ', SIMPLE_OPS[f.op], ' ').param(v.value);
  } else {
    b.push('FALSE'); // unreachable: the parser pairs operators and value kinds
  }
  if (f.negate) b.push(')');
}

export function condition(b: SqlBuilder, alias: string, c: PlannedCondition): void {
  switch (c.kind) {
    case 'filter':
      filter(b, alias, c.filter, c.column);
      return;
    case 'embed-null':
      if (c.embed.spread && c.embed.toOne) b.push(c.embed.sqlAlias, '.pgrst_rows IS ', c.isNull ? 'NULL' : 'NOT NULL');
      else if (c.embed.spread) b.push(c.embed.sqlAlias, '.pgrst_rows ', c.isNull ? '=' : '<>', ' 0');
      else if (c.embed.toOne) b.push(c.embed.sqlAlias, '.body IS ', c.isNull ? 'NULL' : 'NOT NULL');
      else b.push(c.embed.sqlAlias, '.body::text ', c.isNull ? '=' : '<>', " '[]'");
      return;
    case 'logic':
      b.push(c.negate ? 'NOT (' : '(');
      c.children.forEach((x, i) => {
        if (i) b.push(c.op === 'and' ? ' AND ' : ' OR ');
        condition(b, alias, x);
      });
      b.push(')');
  }
}

function source(b: SqlBuilder, plan: ReadPlan): void {
  const s = plan.source;
  if (s.kind === 'table') b.push(qualified(s.table.schema, s.table.name), ' ', plan.sqlAlias);
  else if (s.kind === 'mutated') b.push('pgrst_source ', plan.sqlAlias);
  else if (s.kind === 'computed') b.push(qualified(s.fn.schema, s.fn.name), '(', s.parent, ') ', plan.sqlAlias);
  else {
    callArgsFrom(b, s.call);
    b.push(s.call.mode === 'record' ? ' CROSS JOIN LATERAL ' : '');
    callExpr(b, s.call);
    b.push(' ', plan.sqlAlias);
  }
}

/** `json_to_record($n::json) AS _args(...)` for calls with named arguments; nothing otherwise. */
export function callArgsFrom(b: SqlBuilder, call: CallArgs): void {
  if (call.mode !== 'record') return;
  b.push('json_to_record(').param(call.json, 'text').push('::json').push(') AS _args(');
  b.push(call.argNames.map((n) => `${quoteIdent(n)} ${call.fn.args.find((a) => a.name === n)!.type}`).join(', '), ')');
}

export function callExpr(b: SqlBuilder, call: CallArgs): void {
  b.push(qualified(call.fn.schema, call.fn.name), '(');
  if (call.mode === 'single')
    // The body as text, cast in SQL: it is already the JSON the function takes.
    b.param(call.json, 'text').push('::', call.fn.args[0].type);
  else if (call.mode === 'record')
    b.push(call.argNames.map((n) => `${quoteIdent(n)} := _args.${quoteIdent(n)}`).join(', '));
  b.push(')');
}

function selectItem(b: SqlBuilder, alias: string, item: PlannedSelect, row: string): void {
  switch (item.kind) {
    case 'computed':
      if (item.cast) b.push('(');
      b.push(qualified(item.fn.schema, item.fn.name), '(', row, ')');
      if (item.cast) b.push(')::', item.cast);
      b.push(' AS ', quoteIdent(item.alias));
      return;
    case 'star':
      b.push(alias, '.*');
      return;
    case 'column':
      if (item.cast) {
        b.push('(');
        field(b, alias, item.field);
        b.push(')::', item.cast);
      } else field(b, alias, item.field);
      b.push(' AS ', quoteIdent(item.alias));
      return;
    case 'aggregate':
      if (item.cast) b.push('(');
      b.push(`pg_catalog.${item.fn}(`);
      if (item.field) field(b, alias, item.field);
      else b.push('*');
      b.push(')');
      if (item.cast) b.push(')::', item.cast);
      b.push(' AS ', quoteIdent(item.alias));
      return;
    case 'embed': {
      const e = item.embed;
      if (!e.spread) b.push(e.sqlAlias, '.body AS ', quoteIdent(e.name));
      // Named, not `.*`: the lateral also carries pgrst_rows (for `rel=is.null` and !inner), kept out of the row.
      else
        b.push(
          outputNames(e.plan)
            .map((n) => `${e.sqlAlias}.${quoteIdent(n)}`)
            .join(', '),
        );
    }
  }
}

/** The keys a level's rows carry: what a to-many spread turns into one JSON array each. */
function outputNames(plan: ReadPlan): string[] {
  const out: string[] = [];
  for (const s of plan.select) {
    if (s.kind === 'star') out.push(...plan.columns.keys());
    else if (s.kind !== 'embed') out.push(s.alias);
    else if (s.embed.spread) out.push(...outputNames(s.embed.plan));
    else if (s.embed.plan.select.length > 0) out.push(s.embed.name);
  }
  return out;
}

/** Whether a select item adds anything to the row (an empty embed `rel()` only filters). */
function contributes(s: PlannedSelect): boolean {
  if (s.kind !== 'embed') return true;
  return s.embed.spread ? outputNames(s.embed.plan).length > 0 : s.embed.plan.select.length > 0;
}

function joinCondition(b: SqlBuilder, rel: Relationship, parent: string, child: string): void {
  if (rel.junction) {
    const j = `${child}_j`,
      jt = rel.junction.table;
    b.push('EXISTS (SELECT 1 FROM ', qualified(jt.schema, jt.name), ' ', j, ' WHERE ');
    b.push(
      [
        ...rel.junction.cols1.map((c, i) => `${j}.${quoteIdent(c)} = ${parent}.${quoteIdent(rel.columns[i])}`),
        ...rel.junction.cols2.map((c, i) => `${j}.${quoteIdent(c)} = ${child}.${quoteIdent(rel.foreignColumns[i])}`),
      ].join(' AND '),
      ')',
    );
    return;
  }
  b.push(
    rel.columns
      .map((c, i) => `${child}.${quoteIdent(rel.foreignColumns[i])} = ${parent}.${quoteIdent(c)}`)
      .join(' AND '),
  );
}

const embedsOf = (plan: ReadPlan): EmbedPlan[] => plan.select.flatMap((s) => (s.kind === 'embed' ? [s.embed] : []));

function usesEmbed(c: PlannedCondition, e: EmbedPlan): boolean {
  return c.kind === 'embed-null' ? c.embed === e : c.kind === 'logic' ? c.children.some((x) => usesEmbed(x, e)) : false;
}

function lateralJoins(b: SqlBuilder, plan: ReadPlan, filteringOnly: boolean): void {
  for (const e of embedsOf(plan)) {
    const needed = e.inner || plan.where.some((c) => usesEmbed(c, e));
    if (filteringOnly && !needed) continue;
    b.push(e.inner ? ' INNER JOIN LATERAL (' : ' LEFT JOIN LATERAL (');
    // A computed relationship's function does the join itself.
    const join = e.rel.computed ? null : { parent: plan.sqlAlias, rel: e.rel };
    if (e.spread && e.toOne) selectQuery(b, e.plan, join, '1 AS pgrst_rows');
    else if (e.spread) {
      // Spread to-many (PostgREST 13): each column of the child rows becomes one JSON array, in the child's order.
      b.push('SELECT ');
      for (const n of outputNames(e.plan))
        b.push('coalesce(json_agg(_e.', quoteIdent(n), "), '[]') AS ", quoteIdent(n), ', ');
      b.push('pg_catalog.count(*) AS pgrst_rows FROM (');
      selectQuery(b, e.plan, join);
      b.push(') _e');
    } else {
      b.push(e.toOne ? 'SELECT row_to_json(_e) AS body FROM (' : "SELECT coalesce(json_agg(_e), '[]') AS body FROM (");
      selectQuery(b, e.plan, join);
      b.push(') _e');
    }
    b.push(') ', e.sqlAlias);
    if (!e.inner || e.toOne) b.push(' ON TRUE');
    else b.push(' ON ', e.sqlAlias, e.spread ? '.pgrst_rows > 0' : ".body::text <> '[]'");
  }
}

function whereClause(b: SqlBuilder, plan: ReadPlan, join: { parent: string; rel: Relationship } | null): void {
  const conds = plan.where;
  if (!join && conds.length === 0) return;
  b.push(' WHERE ');
  let first = true;
  if (join) {
    joinCondition(b, join.rel, join.parent, plan.sqlAlias);
    first = false;
  }
  for (const c of conds) {
    if (!first) b.push(' AND ');
    first = false;
    condition(b, plan.sqlAlias, c);
  }
}

export function selectQuery(
  b: SqlBuilder,
  plan: ReadPlan,
  join: { parent: string; rel: Relationship } | null,
  extraColumn: string | null = null,
): void {
  const a = plan.sqlAlias;
  b.push('SELECT ');
  // An empty embed `rel()` only filters; it adds nothing to the row.
  const items = plan.select.filter(contributes);
  // The level's row as the argument of computed fields: the rows a mutation returned are cast to the table's type.
  const s = plan.source;
  const row = s.kind === 'mutated' ? `${a}::${qualified(s.table.schema, s.table.name)}` : a;
  items.forEach((item, i) => {
    if (i) b.push(', ');
    selectItem(b, a, item, row);
  });
  if (extraColumn !== null) b.push(items.length ? ', ' : '', extraColumn);
  b.push(' FROM ');
  source(b, plan);
  lateralJoins(b, plan, false);
  whereClause(b, plan, join);
  if (plan.select.some((s) => s.kind === 'aggregate')) groupBy(b, plan, row);
  if (plan.order.length) {
    b.push(' ORDER BY ');
    plan.order.forEach((o, i) => {
      if (i) b.push(', ');
      if (o.related) {
        const r = o.related,
          ra = `${a}_o${i}`,
          t = r.foreignTable;
        b.push('(SELECT ');
        field(b, ra, o.field);
        b.push(' FROM ', qualified(t.schema, t.name), ' ', ra, ' WHERE ');
        joinCondition(b, r, a, ra);
        b.push(' LIMIT 1)');
      } else field(b, a, o.field);
      if (o.dir) b.push(o.dir === 'asc' ? ' ASC' : ' DESC');
      if (o.nulls) b.push(o.nulls === 'first' ? ' NULLS FIRST' : ' NULLS LAST');
    });
  }
  if (plan.limit !== null) b.push(' LIMIT ').param(plan.limit, 'int8');
  if (plan.offset !== null) b.push(' OFFSET ').param(plan.offset, 'int8');
}

/**
 * With aggregates, every other selected value groups the rows: columns, computed fields and the columns a to-one
 * spread lifts into the row (PostgREST 13 groups by them the same way).
 */
function groupBy(b: SqlBuilder, plan: ReadPlan, row: string): void {
  let first = true;
  const next = () => {
    b.push(first ? ' GROUP BY ' : ', ');
    first = false;
  };
  for (const s of plan.select) {
    if (s.kind === 'column') {
      next();
      field(b, plan.sqlAlias, s.field);
    } else if (s.kind === 'computed') {
      next();
      b.push(qualified(s.fn.schema, s.fn.name), '(', row, ')');
    } else if (s.kind === 'embed' && s.embed.spread && s.embed.toOne) {
      for (const n of outputNames(s.embed.plan)) {
        next();
        b.push(s.embed.sqlAlias, '.', quoteIdent(n));
      }
    }
  }
}

/** `SELECT 1 FROM <source> <joins that filter> WHERE <conditions>`: the rows a count counts (and EXPLAIN estimates). */
export function countedRows(b: SqlBuilder, plan: ReadPlan): void {
  b.push('SELECT 1 FROM ');
  source(b, plan);
  lateralJoins(b, plan, true);
  whereClause(b, plan, null);
}

/** The number of counted rows, stopping at `cap` rows when one is given. */
export function countQuery(b: SqlBuilder, plan: ReadPlan, cap: number | null): void {
  b.push('SELECT pg_catalog.count(*) FROM (');
  countedRows(b, plan);
  if (cap !== null) b.push(' LIMIT ').param(cap, 'int8');
  b.push(') _c');
}
