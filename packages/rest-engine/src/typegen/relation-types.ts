// The Tables and Views of one schema: Row, Insert and Update from the schema cache's columns, and Relationships
// from its foreign-key relationships (the ones that start at the relation, views over the tables included).
import type { Relationship, SchemaCache, Table } from '../schema-cache/types.js';
import { tableKey } from '../schema-cache/types.js';
import type { CatalogExtras } from './catalog-extras.js';
import { indent, key, literal, literalTuple, typeLiteral } from './ts-printer.js';
import { nullable, tsTypeOf, type TypeScope } from './ts-type-mapper.js';

export interface RelationContext {
  readonly cache: SchemaCache;
  readonly extras: CatalogExtras;
  readonly scope: TypeScope;
  /** Computed fields of a relation (functions of its row), already printed as `name: type`, by relation name. */
  readonly computedFields: (relation: Table) => readonly string[];
}

const byName = (a: string, b: string) => a.localeCompare(b);

export function relationsOf(cache: SchemaCache, schema: string): { tables: Table[]; views: Table[] } {
  const all = [...cache.tables.values(), ...cache.partitions.values()]
    .filter((t) => t.schema === schema)
    .sort((a, b) => byName(a.name, b.name));
  return {
    tables: all.filter((t) => t.kind === 'table' || t.kind === 'foreign'),
    views: all.filter((t) => t.kind === 'view' || t.kind === 'matview'),
  };
}

export function tableEntry(ctx: RelationContext, table: Table): string {
  const extra = ctx.extras.relations.get(tableKey(table.schema, table.name));
  const columns = [...table.columns.values()].sort((a, b) => byName(a.name, b.name));
  const typeOf = (name: string, fallback: string) =>
    tsTypeOf(ctx.scope, table.schema, extra?.columns.get(name)?.typeName ?? fallback);
  const never = (name: string) => `${key(name)}?: never`;
  const row = columns.map((c) => `${key(c.name)}: ${nullable(typeOf(c.name, c.baseType), c.nullable)}`);
  const members = [`Row: ${typeLiteral([...row, ...ctx.computedFields(table)])}`];
  const isView = table.kind === 'view' || table.kind === 'matview';
  if (!isView) {
    const always = (name: string) => extra?.columns.get(name)?.identityAlways === true;
    members.push(
      `Insert: ${typeLiteral(
        columns.map((c) =>
          always(c.name)
            ? never(c.name)
            : `${key(c.name)}${c.nullable || c.defaultExpr !== null ? '?' : ''}: ${nullable(typeOf(c.name, c.baseType), c.nullable)}`,
        ),
      )}`,
      `Update: ${typeLiteral(
        columns.map((c) =>
          always(c.name) ? never(c.name) : `${key(c.name)}?: ${nullable(typeOf(c.name, c.baseType), c.nullable)}`,
        ),
      )}`,
    );
  } else if (extra?.viewUpdatable) {
    // Every column of an updatable view may be left out or set to null; the ones it cannot write are `never`.
    const writable = columns.map((c) =>
      extra.columns.get(c.name)?.updatable === false
        ? never(c.name)
        : `${key(c.name)}?: ${nullable(typeOf(c.name, c.baseType), true)}`,
    );
    members.push(`Insert: ${typeLiteral(writable)}`, `Update: ${typeLiteral(writable)}`);
  }
  members.push(`Relationships: ${relationshipsOf(ctx, table)}`);
  return `${key(table.name)}: ${typeLiteral(members)}`;
}

function relationshipsOf(ctx: RelationContext, table: Table): string {
  const seen = new Set<string>();
  const entries: { name: string; to: string; refs: string; text: string }[] = [];
  for (const r of ctx.cache.relationships.get(tableKey(table.schema, table.name)) ?? []) {
    if (r.computed || r.junction || r.foreignTable.schema !== table.schema || !startsHere(ctx.extras, r)) continue;
    const text = typeLiteral([
      `foreignKeyName: ${literal(r.constraint)}`,
      `columns: ${literalTuple(r.columns)}`,
      `isOneToOne: ${r.cardinality === 'o2o'}`,
      `referencedRelation: ${literal(r.foreignTable.name)}`,
      `referencedColumns: ${literalTuple(r.foreignColumns)}`,
    ]);
    if (seen.has(text)) continue;
    seen.add(text);
    entries.push({ name: r.constraint, to: r.foreignTable.name, refs: JSON.stringify(r.foreignColumns), text });
  }
  if (entries.length === 0) return '[]';
  entries.sort((a, b) => byName(a.name, b.name) || byName(a.to, b.to) || byName(a.refs, b.refs));
  return `[\n${entries.map((e) => `${indent(e.text)},`).join('\n')}\n]`;
}

/**
 * Whether a relationship follows its foreign key forwards (from the referencing relation). Many-to-one ones do;
 * a one-to-one relationship is listed both ways in the cache, so its direction is told by the relations the
 * key joins (a view counts as the relations it reads).
 */
function startsHere(extras: CatalogExtras, r: Relationship): boolean {
  if (r.cardinality === 'm2o') return true;
  if (r.cardinality !== 'o2o') return false;
  const oid = (t: Table) => extras.relations.get(tableKey(t.schema, t.name))?.oid ?? -1;
  const reaches = (from: number, target: number, depth = 0): boolean =>
    from === target || (depth < 16 && (extras.viewSources.get(from) ?? []).some((s) => reaches(s, target, depth + 1)));
  return extras.foreignKeys.some(
    (fk) => fk.name === r.constraint && reaches(oid(r.table), fk.from) && reaches(oid(r.foreignTable), fk.to),
  );
}
