// PostgreSQL type names to TypeScript, as the Supabase CLI maps them: scalars to string/number/boolean, json to
// Json, arrays element-wise, and enums, composite types and row types to references into `Database` when their
// schema is generated (types of other schemas become the enum's literal union or `unknown`).
import type { PgType } from './catalog-extras.js';
import { literal as str } from './ts-printer.js';

const NUMBERS = new Set(['int2', 'int4', 'int8', 'float4', 'float8', 'numeric']);
const STRINGS = new Set([
  'bytea',
  'bpchar',
  'varchar',
  'date',
  'text',
  'citext',
  'time',
  'timetz',
  'timestamp',
  'timestamptz',
  'uuid',
  'vector',
  'interval',
]);

interface NamedRelation {
  readonly schema: string;
  readonly name: string;
}

export interface TypeScope {
  readonly schemas: ReadonlySet<string>;
  readonly types: ReadonlyMap<number, PgType>;
  /** Tables (with partitioned and foreign ones) and views (without materialized ones) of the generated schemas. */
  readonly tables: readonly NamedRelation[];
  readonly views: readonly NamedRelation[];
}

/** The reference to prefer among same-named candidates: the current schema's, else the first. */
function pick<T extends { schema: string }>(candidates: T[], schema: string): T | undefined {
  return candidates.find((c) => c.schema === schema) ?? candidates[0];
}

export function tsTypeOf(scope: TypeScope, schema: string, pgType: string): string {
  if (pgType === 'bool') return 'boolean';
  if (NUMBERS.has(pgType)) return 'number';
  if (STRINGS.has(pgType)) return 'string';
  if (pgType === 'json' || pgType === 'jsonb') return 'Json';
  if (pgType === 'void') return 'undefined';
  if (pgType === 'record') return 'Record<string, unknown>';
  if (pgType.startsWith('_')) {
    const element = tsTypeOf(scope, schema, pgType.slice(1));
    return /[|&]/.test(element) ? `(${element})[]` : `${element}[]`;
  }
  const named = [...scope.types.values()].filter((t) => t.name === pgType);
  const enumType = pick(
    named.filter((t) => t.enumLabels.length > 0),
    schema,
  );
  if (enumType) {
    if (scope.schemas.has(enumType.schema)) return `Database[${str(enumType.schema)}]["Enums"][${str(enumType.name)}]`;
    return enumType.enumLabels.map(str).join(' | ');
  }
  const composite = pick(
    named.filter((t) => t.attributes.length > 0),
    schema,
  );
  if (composite) {
    return scope.schemas.has(composite.schema)
      ? `Database[${str(composite.schema)}]["CompositeTypes"][${str(composite.name)}]`
      : 'unknown';
  }
  for (const [section, list] of [
    ['Tables', scope.tables],
    ['Views', scope.views],
  ] as const) {
    const rel = pick(
      list.filter((r) => r.name === pgType),
      schema,
    );
    if (rel) return `Database[${str(rel.schema)}][${str(section)}][${str(rel.name)}]["Row"]`;
  }
  return 'unknown';
}

export function tsTypeOfOid(scope: TypeScope, schema: string, oid: number): string {
  const t = scope.types.get(oid);
  return t ? tsTypeOf(scope, schema, t.name) : 'unknown';
}

/** `T | null`, except for unknown (which holds null already). */
export function nullable(tsType: string, isNullable: boolean): string {
  return isNullable && tsType !== 'unknown' && tsType !== 'any' ? `${tsType} | null` : tsType;
}
