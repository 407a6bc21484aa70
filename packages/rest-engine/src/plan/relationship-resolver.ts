// Chooses the relationship an embed means: by target name, then by hint (FK constraint, FK column or junction).
import { errors } from '../errors.js';
import { tableKey, type Relationship, type SchemaCache, type Table } from '../schema-cache/types.js';

function describe(r: Relationship) {
  const card =
    r.cardinality === 'm2o'
      ? 'many-to-one'
      : r.cardinality === 'o2m'
        ? 'one-to-many'
        : r.cardinality === 'o2o'
          ? 'one-to-one'
          : 'many-to-many';
  const rel = r.junction
    ? `${r.junction.table.schema}.${r.junction.table.name}(${r.junction.constraint1}, ${r.junction.constraint2})`
    : `${r.constraint} using ${r.table.schema}.${r.table.name}(${r.columns.join(', ')}) and ` +
      `${r.foreignTable.schema}.${r.foreignTable.name}(${r.foreignColumns.join(', ')})`;
  return {
    cardinality: card,
    embedding: `${r.table.name} with ${r.foreignTable.name}`,
    relationship: rel,
    hint: r.junction ? r.junction.table.name : r.constraint,
  };
}

export function resolveRelationship(
  cache: SchemaCache,
  origin: Table,
  target: string,
  hint: string | null,
): Relationship {
  const all = cache.relationships.get(tableKey(origin.schema, origin.name)) ?? [];
  let candidates = all.filter((r) => r.foreignTable.name === target);
  if (candidates.length === 0) throw errors.noRelationship(origin.name, target, origin.schema);
  if (hint !== null) {
    const byName = candidates.filter(
      (r) => r.constraint === hint || r.junction?.table.name === hint || r.junction?.constraint1 === hint,
    );
    // A column hint preferably names a column on the origin side (so a self-reference resolves both ways).
    const local = candidates.filter((r) => r.columns.length === 1 && r.columns[0] === hint && !r.junction);
    const remote = candidates.filter(
      (r) => r.foreignColumns.length === 1 && r.foreignColumns[0] === hint && !r.junction,
    );
    candidates = byName.length ? byName : local.length ? local : remote;
    if (candidates.length === 0) throw errors.noRelationship(origin.name, `${target}!${hint}`, origin.schema);
  }
  if (candidates.length > 1) {
    const described = candidates.map(describe);
    throw errors.ambiguousEmbed(
      origin.name,
      target,
      described.map(({ hint: _h, ...d }) => d),
      described.map((d) => d.hint),
    );
  }
  return candidates[0];
}

export const isToOne = (r: Relationship) => r.cardinality === 'm2o' || r.cardinality === 'o2o';
