// Compiles a read level's select list: columns (with casts and JSON paths), computed fields, aggregates and the
// columns of embeds (a JSON body, or the keys a spread lifts into the row); and the GROUP BY that aggregates need.
import { qualified, quoteIdent } from '../ident.js';
import type { PlannedSelect, ReadPlan } from '../plan/types.js';
import { field } from './condition-compiler.js';
import type { SqlBuilder } from './sql-builder.js';

export function selectItem(b: SqlBuilder, alias: string, item: PlannedSelect, row: string): void {
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
      if (item.cast) b.push('(');
      // A data representation: the domain's own cast function to json, then any cast the request asks for.
      if (item.toJson) b.push(qualified(item.toJson.schema, item.toJson.name), '(');
      field(b, alias, item.field);
      if (item.toJson) b.push(')');
      if (item.cast) b.push(')::', item.cast);
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
export function outputNames(plan: ReadPlan): string[] {
  const out: string[] = [];
  for (const s of plan.select) {
    if (s.kind === 'star') out.push(...plan.columns.keys());
    else if (s.kind !== 'embed') out.push(s.alias);
    else if (s.embed.spread) out.push(...outputNames(s.embed.plan));
    else if (s.embed.plan.select.some(contributes)) out.push(s.embed.name);
  }
  return out;
}

/**
 * Whether a select item adds anything to the row: an empty embed `rel()` only filters, and so does an embed that
 * selects only such embeds (`users_tasks(tasks(projects()))`), as in PostgREST.
 */
export function contributes(s: PlannedSelect): boolean {
  if (s.kind !== 'embed') return true;
  return s.embed.spread ? outputNames(s.embed.plan).length > 0 : s.embed.plan.select.some(contributes);
}

/**
 * With aggregates, every other selected value groups the rows: columns, computed fields and the columns a to-one
 * spread lifts into the row (PostgREST 13 groups by them the same way).
 */
export function groupBy(b: SqlBuilder, plan: ReadPlan, row: string): void {
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
