// Compiles a read level's select list: columns (with casts and JSON paths), computed fields, aggregates and the
// columns of embeds (a JSON body, or the keys a spread lifts into the row); and the GROUP BY that aggregates need.
import { qualified, quoteIdent } from '../ident.js';
import { contributes, outputNames } from '../plan/row-shape.js';
import type { EmbedPlan, PlannedSelect, ReadPlan } from '../plan/types.js';
import { field } from './condition-compiler.js';
import type { SqlBuilder } from './sql-builder.js';

/** A field with the cast the request puts on it: `(field)::type`. */
function castField(b: SqlBuilder, alias: string, f: Parameters<typeof field>[2] | null, cast: string | null): void {
  if (cast) b.push('(');
  if (f) field(b, alias, f);
  else b.push('1'); // count()'s input: one per row; a spread that matched no row gives null, which count() skips
  if (cast) b.push(')::', cast);
}

/**
 * One item of a level's select list. In a level that aggregates (`grouped`), JSON values it groups by are jsonb
 * (json has no equality): the bodies of embeds and the JSON columns of spreads.
 */
export function selectItem(b: SqlBuilder, alias: string, item: PlannedSelect, row: string, grouped = false): void {
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
      if (item.field) castField(b, alias, item.field, item.fieldCast);
      else b.push('*');
      b.push(')');
      if (item.cast) b.push(')::', item.cast);
      b.push(' AS ', quoteIdent(item.alias));
      return;
    case 'aggregate-input':
      castField(b, alias, item.field, item.fieldCast);
      b.push(' AS ', quoteIdent(item.alias));
      return;
    case 'embed': {
      const e = item.embed;
      if (!e.spread) {
        b.push(e.sqlAlias, grouped ? '.body::jsonb AS ' : '.body AS ', quoteIdent(e.name));
        return;
      }
      // Named, not `.*`: the lateral also carries pgrst_rows (for `rel=is.null` and !inner), kept out of the row.
      const json = grouped ? jsonNames(e) : null;
      outputNames(e.plan).forEach((n, i) => {
        if (i) b.push(', ');
        const agg = e.aggregates.get(n);
        if (agg) {
          if (agg.cast) b.push('(');
          b.push(`pg_catalog.${agg.fn}(`, e.sqlAlias, '.', quoteIdent(n), ')');
          if (agg.cast) b.push(')::', agg.cast);
          b.push(' AS ', quoteIdent(n));
        } else if (json?.has(n)) b.push(e.sqlAlias, '.', quoteIdent(n), '::jsonb AS ', quoteIdent(n));
        else b.push(e.sqlAlias, '.', quoteIdent(n));
      });
    }
  }
}

/** The names of a spread's columns that are JSON the engine built: bodies of embeds, a to-many spread's arrays. */
function jsonNames(e: EmbedPlan, out = new Set<string>()): Set<string> {
  if (!e.toOne) {
    for (const n of outputNames(e.plan)) out.add(n);
    return out;
  }
  for (const s of e.plan.select) {
    if (s.kind !== 'embed') continue;
    if (s.embed.spread) jsonNames(s.embed, out);
    else if (s.embed.plan.select.some(contributes)) out.add(s.embed.name);
  }
  return out;
}

/**
 * With aggregates (the level's own, or those hoisted out of its to-one spreads), every other selected value groups
 * the rows: columns, computed fields, the bodies of embeds and the columns spreads lift into the row (as PostgREST
 * groups them).
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
    } else if (s.kind === 'embed' && contributes(s)) {
      const e = s.embed;
      if (!e.spread) {
        next();
        b.push(e.sqlAlias, '.body::jsonb');
        continue;
      }
      const json = jsonNames(e);
      for (const n of outputNames(e.plan)) {
        if (e.aggregates.has(n)) continue;
        next();
        b.push(e.sqlAlias, '.', quoteIdent(n), json.has(n) ? '::jsonb' : '');
      }
    }
  }
}
