// Compiles embeds: each embedded relation as a LATERAL join whose subquery renders the child rows as JSON (one
// object, an array, or spread columns), and the condition that joins a child level to its parent (directly or
// through a junction table).
import { qualified, quoteIdent } from '../ident.js';
import type { Relationship } from '../schema-cache/types.js';
import type { EmbedPlan, ReadPlan } from '../plan/types.js';
import { outputNames } from '../plan/row-shape.js';
import type { SqlBuilder } from './sql-builder.js';

/** How a child level's rows are tied to its parent's. */
export interface ParentJoin {
  parent: string;
  rel: Relationship;
}

/** Compiles a child level's query: the read compiler's `selectQuery`, passed in since embeds nest reads in reads. */
type LevelQuery = (b: SqlBuilder, plan: ReadPlan, join: ParentJoin | null, extraColumn?: string | null) => void;

export function joinCondition(b: SqlBuilder, rel: Relationship, parent: string, child: string): void {
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

export function lateralJoins(b: SqlBuilder, plan: ReadPlan, levelQuery: LevelQuery): void {
  for (const e of embedsOf(plan)) {
    b.push(e.inner ? ' INNER JOIN LATERAL (' : ' LEFT JOIN LATERAL (');
    // A computed relationship's function does the join itself.
    const join = e.rel.computed ? null : { parent: plan.sqlAlias, rel: e.rel };
    if (e.spread && e.toOne) levelQuery(b, e.plan, join, '1 AS pgrst_rows');
    else if (e.spread) {
      // Spread to-many (PostgREST 13): each column of the child rows becomes one JSON array, in the child's order.
      b.push('SELECT ');
      for (const n of outputNames(e.plan))
        b.push('coalesce(json_agg(_e.', quoteIdent(n), "), '[]') AS ", quoteIdent(n), ', ');
      b.push('pg_catalog.count(*) AS pgrst_rows FROM (');
      levelQuery(b, e.plan, join);
      b.push(') _e');
    } else {
      b.push(e.toOne ? 'SELECT row_to_json(_e) AS body FROM (' : "SELECT coalesce(json_agg(_e), '[]') AS body FROM (");
      levelQuery(b, e.plan, join);
      b.push(') _e');
    }
    b.push(') ', e.sqlAlias);
    if (!e.inner || e.toOne) b.push(' ON TRUE');
    else b.push(' ON ', e.sqlAlias, e.spread ? '.pgrst_rows > 0' : ".body::text <> '[]'");
  }
}
