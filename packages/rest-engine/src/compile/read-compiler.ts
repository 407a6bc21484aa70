// Compiles read plans: a level's SELECT from its source with its embeds joined, the WHERE (with the join to the
// parent level), order (also by a column of a to-one relation) and paging; and the count of the rows a read matches.
import { qualified, quoteIdent } from '../ident.js';
import { isAggregated } from '../plan/row-shape.js';
import type { EmbedPlan, ReadPlan } from '../plan/types.js';
import { condition, field } from './condition-compiler.js';
import { joinCondition, lateralJoins, type ParentJoin } from './embed-joins.js';
import { source } from './row-source.js';
import { contributes } from '../plan/row-shape.js';
import { groupBy, selectItem } from './select-list.js';
import type { SqlBuilder } from './sql-builder.js';

function whereClause(b: SqlBuilder, plan: ReadPlan, join: ParentJoin | null): void {
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
  join: ParentJoin | null,
  extraColumn: string | null = null,
): void {
  const a = plan.sqlAlias;
  b.push('SELECT ');
  // An empty embed `rel()` only filters; it adds nothing to the row.
  const items = plan.select.filter(contributes);
  // The level's row as the argument of computed fields: the rows a mutation returned are cast to the table's type.
  const s = plan.source;
  const row = s.kind === 'mutated' ? `${a}::${qualified(s.table.schema, s.table.name)}` : a;
  const grouped = isAggregated(plan);
  items.forEach((item, i) => {
    if (i) b.push(', ');
    selectItem(b, a, item, row, grouped);
  });
  if (extraColumn !== null) b.push(items.length ? ', ' : '', extraColumn);
  b.push(' FROM ');
  source(b, plan);
  lateralJoins(b, plan, selectQuery);
  whereClause(b, plan, join);
  if (grouped) groupBy(b, plan, row);
  if (plan.order.length) {
    b.push(' ORDER BY ');
    plan.order.forEach((o, i) => {
      if (i) b.push(', ');
      if (o.spread) b.push(o.spread.sqlAlias, '.', quoteIdent(o.spread.name));
      else if (o.related) {
        const r = o.related,
          ra = `${a}_o${i}`,
          t = r.foreignTable;
        b.push('(SELECT ');
        field(b, ra, o.field);
        // A computed relationship's function of the row does the join itself.
        if (r.computed) b.push(' FROM ', qualified(r.computed.schema, r.computed.name), '(', row, ') ', ra);
        else {
          b.push(' FROM ', qualified(t.schema, t.name), ' ', ra, ' WHERE ');
          joinCondition(b, r, a, ra);
        }
        b.push(' LIMIT 1)');
      } else if (o.computed) field(b, row, o.field, o.computed);
      else field(b, a, o.field);
      if (o.dir) b.push(o.dir === 'asc' ? ' ASC' : ' DESC');
      if (o.nulls) b.push(o.nulls === 'first' ? ' NULLS FIRST' : ' NULLS LAST');
    });
  }
  if (plan.limit !== null) b.push(' LIMIT ').param(plan.limit, 'int8');
  if (plan.offset !== null) b.push(' OFFSET ').param(plan.offset, 'int8');
}

/**
 * `SELECT 1 FROM <source> WHERE <conditions>`: the rows a count counts (and EXPLAIN estimates). Embeds only filter
 * here, and build no JSON: an inner join, or a null check on an embed, is whether the embed's level has a row
 * (`EXISTS` of its own counted rows, joined to this level), as PostgREST counts.
 */
export function countedRows(b: SqlBuilder, plan: ReadPlan, join: ParentJoin | null = null): void {
  b.push('SELECT 1 FROM ');
  source(b, plan);
  const a = plan.sqlAlias;
  const exists = (b: SqlBuilder, e: EmbedPlan) => {
    b.push('EXISTS (');
    // A computed relationship's function does the join itself.
    countedRows(b, e.plan, e.rel.computed ? null : { parent: a, rel: e.rel });
    b.push(')');
  };
  const terms: ((b: SqlBuilder) => void)[] = [];
  if (join) terms.push((b) => joinCondition(b, join.rel, join.parent, a));
  for (const c of plan.where) terms.push((b) => condition(b, a, c, exists));
  for (const s of plan.select) {
    if (s.kind === 'embed' && s.embed.inner) terms.push((b) => exists(b, s.embed));
  }
  terms.forEach((term, i) => {
    b.push(i ? ' AND ' : ' WHERE ');
    term(b);
  });
}

/** The number of counted rows, stopping at `cap` rows when one is given. */
export function countQuery(b: SqlBuilder, plan: ReadPlan, cap: number | null): void {
  b.push('SELECT pg_catalog.count(*) FROM (');
  countedRows(b, plan);
  if (cap !== null) b.push(' LIMIT ').param(cap, 'int8');
  b.push(') _c');
}
