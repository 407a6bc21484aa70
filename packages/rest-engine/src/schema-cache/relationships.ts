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
  /** Base column to the alias's column showing it; null: every column (the relation itself). */
  cols: Map<string, string> | null;
}

/** A view's columns by the source relation and source column they show. */
type ViewSources = Map<Table, Map<Table, Map<string, string>>>;

function aliasesOf(t: Table, byView: ViewSources): Alias[] {
  const out: Alias[] = [{ rel: t, cols: null }];
  for (let i = 0; i < out.length && out.length < 64; i++) {
    const cur = out[i];
    for (const [view, sources] of byView) {
      const shown = sources.get(cur.rel);
      if (!shown || out.some((a) => a.rel === view)) continue;
      const cols = new Map<string, string>();
      for (const [base, curCol] of cur.cols ?? new Map([...shown.keys()].map((c) => [c, c]))) {
        const viewCol = shown.get(curCol);
        if (viewCol !== undefined) cols.set(base, viewCol);
      }
      out.push({ rel: view, cols });
    }
  }
  return out;
}

const covers = (a: Alias, cols: readonly string[]) => a.cols === null || cols.every((c) => a.cols!.has(c));
/** The alias's names for base columns it covers. */
const namesIn = (a: Alias, cols: readonly string[]) => (a.cols === null ? cols : cols.map((c) => a.cols!.get(c)!));
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
    // A base column shown twice: the view column keeping its name wins, else the first.
    if (!cols.has(s.sourceColumn) || s.column === s.sourceColumn) cols.set(s.sourceColumn, s.column);
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

  const out = new Map<string, Relationship[]>(tables.map((t) => [tableKey(t.schema, t.name), []]));
  const add = (r: Relationship) => out.get(tableKey(r.table.schema, r.table.name))?.push(r);

  for (const fk of fks) {
    const unique = isUnique(fk.from, fk.cols);
    for (const a of aliases(fk.from)) {
      if (!covers(a, fk.cols)) continue;
      for (const b of aliases(fk.to)) {
        if (!covers(b, fk.fcols)) continue;
        add({
          cardinality: unique ? 'o2o' : 'm2o',
          table: a.rel,
          foreignTable: b.rel,
          constraint: fk.name,
          columns: namesIn(a, fk.cols),
          foreignColumns: namesIn(b, fk.fcols),
        });
        add({
          cardinality: unique ? 'o2o' : 'o2m',
          table: b.rel,
          foreignTable: a.rel,
          constraint: fk.name,
          columns: namesIn(b, fk.fcols),
          foreignColumns: namesIn(a, fk.cols),
        });
      }
    }
  }

  // A junction: a table with two foreign keys whose columns together lie within its primary key or a unique key.
  const fksFrom = new Map<Table, RawFk[]>();
  for (const fk of fks) fksFrom.set(fk.from, [...(fksFrom.get(fk.from) ?? []), fk]);
  for (const [junction, list] of fksFrom) {
    if (junction.kind !== 'table') continue;
    for (const fk1 of list) {
      for (const fk2 of list) {
        if (fk1 === fk2) continue;
        const both = [...fk1.cols, ...fk2.cols];
        if (!junction.uniques.some((u) => both.every((c) => u.includes(c)))) continue;
        for (const a of aliases(fk1.to)) {
          if (!covers(a, fk1.fcols)) continue;
          for (const b of aliases(fk2.to)) {
            if (!covers(b, fk2.fcols)) continue;
            add({
              cardinality: 'm2m',
              table: a.rel,
              foreignTable: b.rel,
              constraint: fk2.name,
              columns: namesIn(a, fk1.fcols),
              foreignColumns: namesIn(b, fk2.fcols),
              junction: {
                table: junction,
                constraint1: fk1.name,
                cols1: fk1.cols,
                constraint2: fk2.name,
                cols2: fk2.cols,
              },
            });
          }
        }
      }
    }
  }
  return out;
}
