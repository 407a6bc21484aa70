// What type generation needs beyond the schema cache, read in one read-only transaction: every type by oid
// (enum labels, composite attributes, the row types of relations), the columns' type names as the Supabase CLI
// spells them, identity and view-column updatability, foreign keys' origins, and the functions with all their
// arguments (the cache keeps only those PostgREST can call, and without type oids).
import type postgres from 'postgres';

export interface PgType {
  readonly oid: number;
  readonly schema: string;
  readonly name: string;
  /** format_type() with search_path public: `users` for public.users, `personal.users` otherwise. */
  readonly format: string;
  readonly relid: number | null;
  readonly enumLabels: readonly string[];
  readonly attributes: readonly { name: string; typeOid: number }[];
}

interface ColumnExtra {
  /** The base type's name for domains, else the type's name (`_text` for text[]). */
  readonly typeName: string;
  readonly identityAlways: boolean;
  readonly updatable: boolean;
}

interface RelationExtra {
  readonly oid: number;
  /** Views: updatable and deletable without triggers (what the Supabase CLI calls an updatable view). */
  readonly viewUpdatable: boolean;
  readonly columns: ReadonlyMap<string, ColumnExtra>;
}

export interface FunctionArgument {
  readonly name: string;
  readonly mode: 'in' | 'out' | 'inout' | 'variadic' | 'table';
  readonly typeOid: number;
  readonly hasDefault: boolean;
}

export interface CatalogFunction {
  readonly schema: string;
  readonly name: string;
  /** pg_get_function_arguments(): a computed field's is the bare row type name, e.g. `users`. */
  readonly argumentTypes: string;
  /** pg_get_function_result(), for ordering overloads. */
  readonly resultText: string;
  readonly args: readonly FunctionArgument[];
  readonly returnTypeOid: number;
  readonly returnRelid: number | null;
  readonly returnsSet: boolean;
  /** prorows for set-returning functions (null when 0 or not a set). */
  readonly rows: number | null;
}

export interface CatalogExtras {
  readonly types: ReadonlyMap<number, PgType>;
  /** Keyed by schema.name. */
  readonly relations: ReadonlyMap<string, RelationExtra>;
  /** Foreign keys by name: origin and target relation oids (partition copies left out). */
  readonly foreignKeys: readonly { name: string; from: number; to: number }[];
  /** View oid to the relations its rules read. */
  readonly viewSources: ReadonlyMap<number, readonly number[]>;
  readonly functions: readonly CatalogFunction[];
}

const TYPES = `
select t.oid::int as oid, n.nspname as schema, t.typname as name, format_type(t.oid, null) as format,
  nullif(t.typrelid, 0)::int as relid,
  coalesce((select json_agg(e.enumlabel order by e.enumsortorder) from pg_enum e where e.enumtypid = t.oid), '[]')
    as labels,
  coalesce((select json_agg(json_build_object('name', a.attname, 'typeOid', a.atttypid::int) order by a.attnum)
    from pg_class c join pg_attribute a on a.attrelid = c.oid
    where c.oid = t.typrelid and c.relkind = 'c' and a.attnum > 0 and not a.attisdropped), '[]') as attributes
from pg_type t join pg_namespace n on n.oid = t.typnamespace
where n.nspname not in ('information_schema') and n.nspname not like 'pg\\_toast%' and n.nspname not like 'pg\\_temp%'`;

const COLUMNS = `
select c.oid::int as oid, n.nspname as schema, c.relname as name,
  c.relkind in ('v', 'm') and (pg_relation_is_updatable(c.oid, false) & 20) = 20 as view_updatable,
  coalesce((select json_agg(json_build_object('name', a.attname, 'typeName', coalesce(bt.typname, t.typname),
      'identityAlways', a.attidentity = 'a',
      'updatable', c.relkind not in ('v', 'f') or pg_column_is_updatable(c.oid, a.attnum, false)))
    from pg_attribute a join pg_type t on t.oid = a.atttypid
    left join pg_type bt on t.typtype = 'd' and bt.oid = t.typbasetype
    where a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped), '[]') as columns
from pg_class c join pg_namespace n on n.oid = c.relnamespace
where n.nspname = any($1) and c.relkind in ('r', 'p', 'v', 'm', 'f')`;

const FOREIGN_KEYS = `
select conname as name, conrelid::int as "from", confrelid::int as "to" from pg_constraint
where contype = 'f' and conparentid = 0`;

const VIEW_SOURCES = `
select r.ev_class::int as view, json_agg(distinct d.refobjid::int) as sources
from pg_rewrite r join pg_depend d on d.objid = r.oid and d.classid = 'pg_rewrite'::regclass
  and d.refclassid = 'pg_class'::regclass and d.refobjid <> r.ev_class
group by r.ev_class`;

const FUNCTIONS = `
select n.nspname as schema, p.proname as name, pg_get_function_arguments(p.oid) as argument_types,
  pg_get_function_result(p.oid) as result_text, p.prorettype::int as return_type, nullif(t.typrelid, 0)::int as relid,
  p.proretset as retset, case when p.proretset then nullif(p.prorows, 0)::float8 end as rows,
  coalesce((select json_agg(json_build_object('name', coalesce(p.proargnames[x.i], ''),
      'mode', coalesce(p.proargmodes[x.i], 'i'), 'typeOid', x.t::int,
      'hasDefault', x.i > p.pronargs - p.pronargdefaults) order by x.i)
    from unnest(coalesce(p.proallargtypes, p.proargtypes::oid[])) with ordinality x(t, i)), '[]') as args
from pg_proc p join pg_namespace n on n.oid = p.pronamespace join pg_type t on t.oid = p.prorettype
where n.nspname = any($1) and p.prokind = 'f'`;

const MODES: Record<string, FunctionArgument['mode']> = { i: 'in', o: 'out', b: 'inout', v: 'variadic', t: 'table' };

// biome-ignore lint/suspicious/noExplicitAny: catalog rows are shaped by the queries above, not by a type.
type Row = Record<string, any>;

export async function loadCatalogExtras(sql: postgres.Sql, schemas: readonly string[]): Promise<CatalogExtras> {
  const [types, rels, fks, views, fns] = await sql
    .begin('read only', (tx) => [
      // The Supabase CLI reads with search_path public: format_type() and pg_get_function_arguments() spell
      // public's names bare and the others qualified.
      tx.unsafe(`select set_config('search_path', 'public', true)`),
      tx.unsafe(TYPES),
      tx.unsafe(COLUMNS, [schemas as string[]]),
      tx.unsafe(FOREIGN_KEYS),
      tx.unsafe(VIEW_SOURCES),
      tx.unsafe(FUNCTIONS, [schemas as string[]]),
    ])
    .then((r) => r.slice(1) as unknown as Row[][]);

  return {
    types: new Map(
      types.map((t) => [
        t.oid,
        {
          oid: t.oid,
          schema: t.schema,
          name: t.name,
          format: t.format,
          relid: t.relid,
          enumLabels: t.labels,
          attributes: t.attributes,
        },
      ]),
    ),
    relations: new Map(
      rels.map((r) => [
        `${r.schema}.${r.name}`,
        {
          oid: r.oid,
          viewUpdatable: r.view_updatable,
          columns: new Map((r.columns as Row[]).map((c) => [c.name, c as ColumnExtra])),
        },
      ]),
    ),
    foreignKeys: fks.map((f) => ({ name: f.name, from: f.from, to: f.to })),
    viewSources: new Map(views.map((v) => [v.view, v.sources])),
    functions: fns.map((f) => ({
      schema: f.schema,
      name: f.name,
      argumentTypes: f.argument_types,
      resultText: f.result_text,
      returnTypeOid: f.return_type,
      returnRelid: f.relid,
      returnsSet: f.retset,
      rows: f.rows === null ? null : Number(f.rows),
      args: (f.args as Row[]).map((a) => ({ ...a, mode: MODES[a.mode] ?? 'in' }) as FunctionArgument),
    })),
  };
}
