// `generateTypeScriptTypes`: the `Database` type of the given schemas in the Supabase CLI's format (what
// `supabase gen types typescript` prints), for createClient<Database>() in supabase-js and postgrest-js.
// Relations, columns and relationships come from the engine's schema cache, so the types describe what the engine
// serves; the catalog extras add what only type generation needs.
import type postgres from 'postgres';
import { loadSchemaCache } from '../schema-cache/schema-loader.js';
import { tableKey, type Table } from '../schema-cache/types.js';
import { loadCatalogExtras } from './catalog-extras.js';
import { computedFieldsOf, functionEntries, listedFunctions, type FunctionContext } from './function-types.js';
import { HELPER_TYPES } from './helper-types.js';
import { relationsOf, tableEntry, type RelationContext } from './relation-types.js';
import { indent, key, literal, typeLiteral } from './ts-printer.js';
import { nullable, tsTypeOf, tsTypeOfOid, type TypeScope } from './ts-type-mapper.js';

export interface TypeGenOptions {
  /** Schemas to describe (default: public). */
  readonly schemas?: readonly string[];
  /** Adds `__InternalSupabase: { PostgrestVersion }`, which supabase-js reads to pick its PostgREST dialect. */
  readonly postgrestVersion?: string;
}

const JSON_TYPE = 'export type Json = string | number | boolean | null | { [key: string]: Json | undefined } | Json[]';

export async function generateTypeScriptTypes(sql: postgres.Sql, options: TypeGenOptions = {}): Promise<string> {
  const schemas = [...new Set(options.schemas ?? ['public'])].sort((a, b) => a.localeCompare(b));
  const [cache, extras] = await Promise.all([loadSchemaCache(sql, schemas), loadCatalogExtras(sql, schemas)]);
  const perSchema = new Map(schemas.map((s) => [s, relationsOf(cache, s)]));
  const scope: TypeScope = {
    schemas: new Set(schemas),
    types: extras.types,
    tables: [...perSchema.values()].flatMap((r) => r.tables.filter((t) => t.kind === 'table')),
    views: [...perSchema.values()].flatMap((r) => r.views.filter((t) => t.kind === 'view')),
  };
  const byOid = new Map<number, Table>();
  for (const t of [...cache.tables.values(), ...cache.partitions.values()]) {
    const oid = extras.relations.get(tableKey(t.schema, t.name))?.oid;
    if (oid !== undefined) byOid.set(oid, t);
  }
  const fnCtx: FunctionContext = {
    extras,
    scope,
    relationNames: new Map([...byOid].map(([oid, t]) => [oid, t.name])),
    rowColumns: (relid) => {
      const t = byOid.get(relid);
      if (!t) return null;
      const columns = extras.relations.get(tableKey(t.schema, t.name))?.columns;
      return [...t.columns.values()]
        .sort((a, b) => a.name.localeCompare(b.name))
        .map(
          (c) =>
            `${key(c.name)}: ${nullable(tsTypeOf(scope, t.schema, columns?.get(c.name)?.typeName ?? c.baseType), c.nullable)}`,
        );
    },
  };

  const sections = schemas.map((schema) => {
    const { tables, views } = perSchema.get(schema)!;
    const listed = listedFunctions(fnCtx, schema);
    const relCtx: RelationContext = {
      cache,
      extras,
      scope,
      computedFields: (t) => computedFieldsOf(fnCtx, schema, listed, t.name),
    };
    const types = [...extras.types.values()]
      .filter((t) => t.schema === schema)
      .sort((a, b) => a.name.localeCompare(b.name));
    const enums = types.filter((t) => t.enumLabels.length > 0);
    const composites = types.filter((t) => t.attributes.length > 0);
    return `${key(schema)}: ${typeLiteral([
      `Tables: ${typeLiteral(tables.map((t) => tableEntry(relCtx, t)))}`,
      `Views: ${typeLiteral(views.map((t) => tableEntry(relCtx, t)))}`,
      `Functions: ${typeLiteral(functionEntries(fnCtx, schema, listed))}`,
      `Enums: ${typeLiteral(enums.map((e) => `${key(e.name)}: ${e.enumLabels.map(literal).join(' | ')}`))}`,
      `CompositeTypes: ${typeLiteral(
        composites.map(
          (c) =>
            `${key(c.name)}: ${typeLiteral(
              c.attributes.map((a) => `${key(a.name)}: ${nullable(tsTypeOfOid(scope, schema, a.typeOid), true)}`),
            )}`,
        ),
      )}`,
    ])}`;
  });

  const internal = options.postgrestVersion
    ? [`__InternalSupabase: {\n  PostgrestVersion: ${literal(options.postgrestVersion)}\n}`]
    : [];
  const constants = schemas.map((schema) => {
    const enums = [...extras.types.values()]
      .filter((t) => t.schema === schema && t.enumLabels.length > 0)
      .sort((a, b) => a.name.localeCompare(b.name));
    const members = enums.map((e) => `${key(e.name)}: [${e.enumLabels.map(literal).join(', ')}],`);
    return `${key(schema)}: {\n  Enums: {${members.length ? `\n${indent(members.join('\n'), 4)}\n  ` : ''}},\n},`;
  });

  return [
    JSON_TYPE,
    '',
    `export type Database = ${typeLiteral([...internal, ...sections])}`,
    '',
    HELPER_TYPES,
    `export const Constants = {\n${indent(constants.join('\n'))}\n} as const`,
    '',
  ].join('\n');
}
