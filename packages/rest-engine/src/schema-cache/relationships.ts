// Relationships from foreign keys: many-to-one, one-to-many (one-to-one when the FK columns are unique),
// many-to-many through junction tables, and the same relationships seen through views over the tables.
import { tableKey, type Relationship, type Table } from './types.js';

export interface RawFk {
  name: string;
  from: Table;
  to: Table;
  cols: string[];
  fcols: string[];
}
export interface ViewColumnSource {
  view: Table;
  source: Table;
  column: string;
}

interface Alias {
  rel: Table;
  cols: Set<string> | null;
} // null: every column (the relation itself)

function aliasesOf(t: Table, byView: Map<Table, Map<Table, Set<string>>>): Alias[] {
  const out: Alias[] = [{ rel: t, cols: null }];
  for (let i = 0; i < out.length && out.length < 64; i++) {
    const cur = out[i];
    for (const [view, sources] of byView) {
      const cols = sources.get(cur.rel);
      if (!cols || out.some((a) => a.rel === view)) continue;
      out.push({ rel: view, cols: new Set([...cols].filter((c) => cur.cols === null || cur.cols.has(c))) });
    }
  }
  return out;
}

const covers = (a: Alias, cols: readonly string[]) => a.cols === null || cols.every((c) => a.cols!.has(c));
const sameSet = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x) => b.includes(x));
const isUnique = (t: Table, cols: readonly string[]) => t.uniques.some((u) => sameSet(u, cols));

export function buildRelationships(
  tables: Table[],
  fks: RawFk[],
  sources: ViewColumnSource[],
): Map<string, Relationship[]> {
  const byView = new Map<Table, Map<Table, Set<string>>>();
  for (const s of sources) {
    let m = byView.get(s.view);
    if (!m) {
      m = new Map();
      byView.set(s.view, m);
    }
    let cols = m.get(s.source);
    if (!cols) {
      cols = new Set();
      m.set(s.source, cols);
    }
    cols.add(s.column);
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
          columns: fk.cols,
          foreignColumns: fk.fcols,
        });
        add({
          cardinality: unique ? 'o2o' : 'o2m',
          table: b.rel,
          foreignTable: a.rel,
          constraint: fk.name,
          columns: fk.fcols,
          foreignColumns: fk.cols,
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
              columns: fk1.fcols,
              foreignColumns: fk2.fcols,
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
