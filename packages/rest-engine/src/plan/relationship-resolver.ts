// Chooses the relationship an embed means: by target name, then by hint (FK constraint, FK column or junction).
import { closest, distance } from 'fastest-levenshtein';
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
  // A many-to-many names its junction and the two foreign keys with their columns, as PostgREST 13.
  const rel = r.junction
    ? `${r.junction.table.name} using ${r.junction.constraint1}(${r.junction.cols1.join(', ')}) and ` +
      `${r.junction.constraint2}(${r.junction.cols2.join(', ')})`
    : `${r.constraint} using ${r.table.name}(${r.columns.join(', ')}) and ` +
      `${r.foreignTable.name}(${r.foreignColumns.join(', ')})`;
  return {
    cardinality: card,
    embedding: `${r.table.name} with ${r.foreignTable.name}`,
    relationship: rel,
    hint: r.junction ? r.junction.table.name : r.constraint,
  };
}

/**
 * Whether an embed's target names this relationship: the foreign table (or view), or, as in PostgREST, the FK
 * constraint (`best_friends_first_user_fkey(*)`) or the origin's single FK column (`username(*)`, `parent_id(*)`).
 */
function targets(r: Relationship, target: string): boolean {
  if (r.computed) return r.computed.name === target;
  // A self-reference (also one seen through a view): the table's name means the children, the FK column the parent.
  if (isSelf(r) && !r.junction) {
    if (r.foreignTable.name === target) return r.cardinality !== 'm2o';
    return r.cardinality === 'm2o' && r.columns.length === 1 && r.columns[0] === target;
  }
  if (r.foreignTable.name === target) return true;
  // By constraint or column the relationship to the table is meant, not those derived through views.
  if (r.junction || r.foreignTable.kind === 'view') return false;
  return r.constraint === target || (r.columns.length === 1 && r.columns[0] === target);
}

/**
 * Whether a hint (`target!hint`) selects this relationship: its FK constraint (not on a self-reference, whose two
 * readings share it), either side's single FK column, or the junction of a many-to-many.
 */
function hinted(r: Relationship, hint: string): boolean {
  if (r.computed) return false;
  if (r.junction) return r.junction.table.name === hint || r.junction.constraint1 === hint || r.constraint === hint;
  if (r.constraint === hint && !isSelf(r)) return true;
  return (
    (r.columns.length === 1 && r.columns[0] === hint) || (r.foreignColumns.length === 1 && r.foreignColumns[0] === hint)
  );
}

const isSelf = (r: Relationship) => r.table.schema === r.foreignTable.schema && r.table.name === r.foreignTable.name;

/** How alike two texts are: 1 for equal, 0 for nothing in common (edits over the longer length). */
const similarity = (a: string, b: string) => 1 - distance(a, b) / Math.max(a.length, b.length, 1);

/**
 * For a target the origin has no relationship to: the most alike name it can embed (at least a third alike), as
 * PostgREST hints it (`car_model_sales` for the partition `car_model_sales_202101`). Only names of relationships
 * the origin has are named.
 */
function closestTarget(all: readonly Relationship[], target: string): string | null {
  const names = [...new Set(all.map((r) => (r.computed ? r.computed.name : r.foreignTable.name)))];
  if (names.length === 0) return null;
  const best = closest(target, names);
  return best !== target && similarity(target, best) >= 1 / 3 ? best : null;
}

export function resolveRelationship(
  cache: SchemaCache,
  origin: Table,
  target: string,
  hint: string | null,
): Relationship {
  const all = cache.relationships.get(tableKey(origin.schema, origin.name)) ?? [];
  let candidates = all.filter((r) => targets(r, target));
  if (candidates.length === 0)
    throw errors.noRelationship(origin.name, target, origin.schema, null, closestTarget(all, target));
  if (hint !== null) {
    candidates = candidates.filter((r) => hinted(r, hint));
    if (candidates.length === 0) throw errors.noRelationship(origin.name, target, origin.schema, hint);
  }
  // A self-reference has two readings, parent (many-to-one) and children (one-to-many): as PostgREST, embed the
  // children (the parent is reached through the FK column, `parent_id(*)`).
  if (candidates.length === 2 && candidates.every(isSelf) && candidates[0].constraint === candidates[1].constraint) {
    candidates = candidates.filter((r) => r.cardinality === 'o2m');
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
