// Relationships from foreign keys: many-to-one, one-to-many (one-to-one when the FK columns are unique),
// many-to-many through junction tables, and the same relationships seen through views over the tables (following
// each view column to the base column it shows, also when renamed).
import { tableKey, type Relationship, type Table } from './types.js';

export interface RawFk {
  name: string;
  from: Table;
  to: Table;
  cols: string[];
  fcols: string[];
}
/** A view column and the column of the relation it shows (from the view's query tree, see view-lineage.ts). */
export interface ViewColumnSource {
  view: Table;
  source: Table;
  column: string;
  sourceColumn: string;
}

/** A relation a foreign key can be seen through: the table itself, or a view showing some of its columns. */
interface Alias {
  rel: Table;
  /**
   * Base column to the alias's columns showing it (a view may show one column under several names); null: every
   * column (the relation itself).
   */
  cols: Map<string, string[]> | null;
}

/** A view's columns by the source relation and source column they show. */
type ViewSources = Map<Table, Map<Table, Map<string, string[]>>>;

function aliasesOf(t: Table, byView: ViewSources): Alias[] {
  const out: Alias[] = [{ rel: t, cols: null }];
  for (let i = 0; i < out.length && out.length < 64; i++) {
    const cur = out[i];
    for (const [view, sources] of byView) {
      const shown = sources.get(cur.rel);
      if (!shown || out.some((a) => a.rel === view)) continue;
      const cols = new Map<string, string[]>();
      for (const [base, curCols] of cur.cols ?? new Map([...shown.keys()].map((c) => [c, [c]]))) {
        const viewCols = curCols.flatMap((c) => shown.get(c) ?? []);
        if (viewCols.length > 0) cols.set(base, viewCols);
      }
      out.push({ rel: view, cols });
    }
  }
  return out;
}

const covers = (a: Alias, cols: readonly string[]) => a.cols === null || cols.every((c) => a.cols!.has(c));
/**
 * The alias's names for base columns it covers: one list, or, when the alias shows a column under several names,
 * one list per combination of them (each a relationship of its own, as in PostgREST).
 */
function namesIn(a: Alias, cols: readonly string[]): (readonly string[])[] {
  if (a.cols === null) return [cols];
  let out: string[][] = [[]];
  for (const c of cols) out = out.flatMap((prefix) => a.cols!.get(c)!.map((name) => [...prefix, name]));
  return out;
}
const sameSet = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x) => b.includes(x));
const isUnique = (t: Table, cols: readonly string[]) => t.uniques.some((u) => sameSet(u, cols));

export function buildRelationships(
  tables: Table[],
  fks: RawFk[],
  sources: ViewColumnSource[],
): Map<string, Relationship[]> {
  const byView: ViewSources = new Map();
  for (const s of sources) {
    let m = byView.get(s.view);
    if (!m) {
      m = new Map();
      byView.set(s.view, m);
    }
    let cols = m.get(s.source);
    if (!cols) {
      cols = new Map();
      m.set(s.source, cols);
    }
    cols.set(s.sourceColumn, [...(cols.get(s.sourceColumn) ?? []), s.column]);
  }
  const aliasCache = new Map<Table, Alias[]>();
  const aliases = (t: Table) => {
    let a = aliasCache.get(t);
    if (!a) {
      a = aliasesOf(t, byView);
      aliasCache.set(t, a);
    }
    return a;
  };

  // `tables` are the exposed relations: a relationship is kept when both its ends are among them (the foreign keys
  // and views it runs through may lie in other schemas).
  const out = new Map<string, Relationship[]>(tables.map((t) => [tableKey(t.schema, t.name), []]));
  const exposed = new Set(tables);
  const add = (r: Relationship) => {
    if (exposed.has(r.foreignTable)) out.get(tableKey(r.table.schema, r.table.name))?.push(r);
  };

  for (const fk of fks) {
    const unique = isUnique(fk.from, fk.cols);
    for (const a of aliases(fk.from)) {
      if (!covers(a, fk.cols)) continue;
      for (const b of aliases(fk.to)) {
        if (!covers(b, fk.fcols)) continue;
        for (const columns of namesIn(a, fk.cols)) {
          for (const foreignColumns of namesIn(b, fk.fcols)) {
            add({
              cardinality: unique ? 'o2o' : 'm2o',
              table: a.rel,
              foreignTable: b.rel,
              constraint: fk.name,
              columns,
              foreignColumns,
            });
            add({
              cardinality: unique ? 'o2o' : 'o2m',
              table: b.rel,
              foreignTable: a.rel,
              constraint: fk.name,
              columns: foreignColumns,
              foreignColumns: columns,
            });
          }
        }
      }
    }
  }

  // A junction: a table with two foreign keys whose columns together lie within its primary key or a unique key,
  // or an exposed view showing those columns of such a table. A junction in a schema that is not exposed is not
  // used (it would name a relation requests cannot).
  const fksFrom = new Map<Table, RawFk[]>();
  for (const fk of fks) fksFrom.set(fk.from, [...(fksFrom.get(fk.from) ?? []), fk]);
  for (const [base, list] of fksFrom) {
    if (base.kind !== 'table') continue;
    for (const fk1 of list) {
      for (const fk2 of list) {
        if (fk1 === fk2) continue;
        const both = [...fk1.cols, ...fk2.cols];
        if (!base.uniques.some((u) => both.every((c) => u.includes(c)))) continue;
        for (const junction of aliases(base)) {
          if (!exposed.has(junction.rel) || !covers(junction, both)) continue;
          for (const a of aliases(fk1.to)) {
            if (!covers(a, fk1.fcols)) continue;
            for (const b of aliases(fk2.to)) {
              if (!covers(b, fk2.fcols)) continue;
              add({
                cardinality: 'm2m',
                table: a.rel,
                foreignTable: b.rel,
                constraint: fk2.name,
                columns: namesIn(a, fk1.fcols)[0],
                foreignColumns: namesIn(b, fk2.fcols)[0],
                junction: {
                  table: junction.rel,
                  constraint1: fk1.name,
                  cols1: namesIn(junction, fk1.cols)[0],
                  constraint2: fk2.name,
                  cols2: namesIn(junction, fk2.cols)[0],
                },
              });
            }
          }
        }
      }
    }
  }
  return out;
}
