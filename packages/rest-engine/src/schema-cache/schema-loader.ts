// Reads tables, views, columns, keys, foreign keys (also through views) and functions from pg_catalog.
// The queries run with an empty search_path so that format_type() schema-qualifies every non-catalog type.
import type postgres from 'postgres';
import { quoteIdent } from '../ident.js';
import { buildRelationships, type RawFk, type ViewColumnSource } from './relationships.js';
import { viewColumnOrigins } from './view-lineage.js';
import {
  type Column,
  type DbFunction,
  type MediaHandler,
  mediaHandlerKey,
  type Relationship,
  type SchemaCache,
  type Table,
  tableKey,
} from './types.js';

const OUTSIDE_SYSTEM_SCHEMAS = `(n.nspname = any($1) or (n.nspname not in ('pg_catalog', 'information_schema')
  and n.nspname not like 'pg\\_toast%' and n.nspname not like 'pg\\_temp\\_%'))`;

// The catalogs only: the authenticator may lack USAGE on the exposed schemas (PostgREST's tutorials grant it to the
// request roles alone), and name-resolving functions such as pg_get_serial_sequence would then fail.
// Relations of every schema but the system ones are read: a relationship between two exposed relations may run
// through tables and views of schemas that are not exposed (views over private tables, middle views on the extra
// search path); only the exposed ones ($1) become names requests may use.
const RELATIONS = `
select c.oid::int as oid, n.nspname as schema, n.nspname = any($1) as exposed, c.relispartition as partition, c.relname as name, c.relkind::text as relkind,
  pg_relation_is_updatable(c.oid, true) as upd, obj_description(c.oid, 'pg_class') as comment,
  coalesce((select json_agg(json_build_object('name', a.attname, 'type', format_type(a.atttypid, a.atttypmod),
      'oid', a.atttypid::int, 'num', a.attnum, 'cat', t.typcategory, 'typname', t.typname, 'nullable', not a.attnotnull,
      -- The type under a domain, through domains over domains (tsvector for a domain over a domain over tsvector).
      'under', case when t.typtype = 'd' then (with recursive u(oid, depth) as (select t.typbasetype, 1 union all
          select ut.typbasetype, u.depth + 1 from u join pg_type ut on ut.oid = u.oid where ut.typtype = 'd')
        select ut.typname from u join pg_type ut on ut.oid = u.oid order by u.depth desc limit 1) end,
      'default', coalesce(pg_get_expr(d.adbin, d.adrelid), case when a.attidentity <> '' then
        (select format('nextval(%L::regclass)', format('%I.%I', sn.nspname, s.relname))
          from pg_depend dep join pg_class s on s.oid = dep.objid and s.relkind = 'S'
          join pg_namespace sn on sn.oid = s.relnamespace
          join pg_attribute owner on owner.attrelid = dep.refobjid and owner.attnum = dep.refobjsubid
          -- A partition's identity column (PostgreSQL 17+) draws on the sequence of its partition tree's root.
          where dep.classid = 'pg_class'::regclass and dep.refobjid = coalesce(pg_partition_root(c.oid), c.oid)
            and owner.attname = a.attname and dep.deptype = 'i' limit 1)
      end,
      -- A domain's default applies where the column has none of its own.
      case when t.typtype = 'd' then pg_get_expr(t.typdefaultbin, 0) end), 'generated', a.attgenerated <> '',
      'enum', (select json_agg(e.enumlabel order by e.enumsortorder) from pg_enum e where e.enumtypid = a.atttypid))
      order by a.attnum)
    from pg_attribute a join pg_type t on t.oid = a.atttypid
    left join pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
    where a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped), '[]') as columns,
  coalesce((select json_agg(json_build_object('type', k.contype, 'cols',
      (select json_agg(a.attname order by x.i) from unnest(k.conkey) with ordinality x(n, i)
        join pg_attribute a on a.attrelid = k.conrelid and a.attnum = x.n)))
    from pg_constraint k where k.conrelid = c.oid and k.contype in ('p', 'u')), '[]') as keys
from pg_class c join pg_namespace n on n.oid = c.relnamespace
where c.relkind in ('r', 'p', 'v', 'm', 'f') and ${OUTSIDE_SYSTEM_SCHEMAS}`;

const FKS = `
select k.conname as name, k.conrelid::int as from_oid, k.confrelid::int as to_oid,
  (select json_agg(a.attname order by x.i) from unnest(k.conkey) with ordinality x(n, i)
    join pg_attribute a on a.attrelid = k.conrelid and a.attnum = x.n) as cols,
  (select json_agg(a.attname order by x.i) from unnest(k.confkey) with ordinality x(n, i)
    join pg_attribute a on a.attrelid = k.confrelid and a.attnum = x.n) as fcols
from pg_constraint k where k.contype = 'f'`;

// Each view's stored query tree, from which view-lineage.ts reads the base column behind each view column.
const VIEW_TREES = `
select r.ev_class::int as view_oid, r.ev_action::text as tree
from pg_rewrite r join pg_class v on v.oid = r.ev_class join pg_namespace n on n.oid = v.relnamespace
where v.relkind in ('v', 'm') and r.rulename = '_RETURN' and ${OUTSIDE_SYSTEM_SCHEMAS}`;

// Casts of domains to json, and from json or text to domains, done by a function: data representations.
const REPRESENTATIONS = `
select c.castsource::int as src, c.casttarget::int as tgt, s.typtype::text as srctype, t.typtype::text as tgttype,
  s.typname as srcname, t.typname as tgtname, fn.nspname as fschema, f.proname as fname
from pg_cast c join pg_type s on s.oid = c.castsource join pg_type t on t.oid = c.casttarget
join pg_proc f on f.oid = c.castfunc join pg_namespace fn on fn.oid = f.pronamespace
where c.castmethod = 'f' and ((s.typtype = 'd' and t.oid = 'pg_catalog.json'::pg_catalog.regtype)
  or (t.typtype = 'd' and c.castsource in ('pg_catalog.json'::pg_catalog.regtype, 'pg_catalog.text'::pg_catalog.regtype)))`;

const FUNCTIONS = `
select n.nspname as schema, p.proname as name, p.provolatile::text as vol, p.proretset as retset,
  format_type(p.prorettype, null) as rettype, t.typtype::text as rettyptype,
  -- The table of a row type, also under a domain over it (a function returning SETOF projects_domain).
  coalesce(nullif(t.typrelid, 0), (select b.typrelid from pg_type b where b.oid = t.typbasetype))::int as retrel,
  p.pronargs as nargs, p.pronargdefaults as ndefaults, p.prorows::float8 as rows, obj_description(p.oid, 'pg_proc') as
    comment,
  coalesce((select json_agg(json_build_object('name', coalesce(p.proargnames[x.i], ''), 'type', format_type(x.t, null),
      'oid', x.t::int, 'mode', coalesce(p.proargmodes[x.i], 'i')) order by x.i)
    from unnest(coalesce(p.proallargtypes, p.proargtypes::oid[])) with ordinality x(t, i)), '[]') as args,
  coalesce((select json_agg(json_build_object('oid', ty.oid::int, 'cat', ty.typcategory, 'typname', ty.typname,
      'relid', ty.typrelid::int))
    from pg_type ty where ty.oid = any(coalesce(p.proallargtypes, p.proargtypes::oid[]))), '[]') as argtypes
from pg_proc p join pg_namespace n on n.oid = p.pronamespace join pg_type t on t.oid = p.prorettype
where n.nspname = any($1) and p.prokind = 'f'`;

// Media type handlers (see MediaHandler): aggregates over a relation's rows (or anyelement) and functions, of the
// exposed schemas, whose result is a domain named like a media type; with the send function of the domain's base.
const MEDIA_HANDLERS = `
with media as (
  select t.oid, pg_catalog.lower(t.typname) as media_type,
    case t.typname when '*/*' then 'application/octet-stream' else pg_catalog.lower(t.typname) end as answers,
    sn.nspname as send_schema, s.proname as send_name
  from pg_catalog.pg_type t join pg_catalog.pg_proc s on s.oid = t.typsend
  join pg_catalog.pg_namespace sn on sn.oid = s.pronamespace
  where t.typtype = 'd' and (t.typname operator(pg_catalog.~*) '^[A-Za-z0-9.-]+/[A-Za-z0-9.+-]+$' or t.typname = '*/*')
)
select 'aggregate' as kind, pn.nspname as schema, p.proname as name,
  case when at.oid = 'pg_catalog.anyelement'::pg_catalog.regtype then null else an.nspname end as target_schema,
  at.typname as target_name, m.media_type, m.answers, m.send_schema, m.send_name
from media m join pg_catalog.pg_proc p on p.prorettype = m.oid
join pg_catalog.pg_namespace pn on pn.oid = p.pronamespace
join pg_catalog.pg_aggregate a on a.aggfnoid = p.oid
join pg_catalog.pg_type at on at.oid = p.proargtypes[0]
join pg_catalog.pg_namespace an on an.oid = at.typnamespace
where pn.nspname = any($1) and p.pronargs = 1 and (at.oid = 'pg_catalog.anyelement'::pg_catalog.regtype
  or exists (select from pg_catalog.pg_class c where c.oid = at.typrelid and c.relkind in ('v', 'r', 'm', 'f', 'p')))
union all
select 'function', pn.nspname, p.proname, pn.nspname, p.proname, m.media_type, m.answers, m.send_schema, m.send_name
from media m join pg_catalog.pg_proc p on p.prorettype = m.oid
join pg_catalog.pg_namespace pn on pn.oid = p.pronamespace
where pn.nspname = any($1) and not p.proretset and p.prokind = 'f'`;

const TYPES = `
select n.nspname as schema, t.typname as name from pg_type t join pg_namespace n on n.oid = t.typnamespace
where (n.nspname = 'pg_catalog' or n.nspname = any($1)) and t.typtype in ('b', 'e', 'r', 'd', 'c', 'm')
  and t.typisdefined and (t.typrelid = 0 or (select c.relkind from pg_class c where c.oid = t.typrelid) = 'c'
  or n.nspname <> 'pg_catalog')`;

const SQL_TYPE_ALIASES: Record<string, string> = {
  integer: 'int4',
  int: 'int4',
  bigint: 'int8',
  smallint: 'int2',
  boolean: 'bool',
  real: 'float4',
  'double precision': 'float8',
  float: 'float8',
  decimal: 'numeric',
  varchar: 'varchar',
  'character varying': 'varchar',
  character: 'bpchar',
  char: 'bpchar',
  timestamptz: 'timestamptz',
  'timestamp with time zone': 'timestamptz',
  'timestamp without time zone': 'timestamp',
  'time with time zone': 'timetz',
  'time without time zone': 'time',
};

// biome-ignore lint/suspicious/noExplicitAny: catalog rows are shaped by the queries below, not by a type.
type Row = Record<string, any>;

export async function loadSchemaCache(sql: postgres.Sql, schemas: readonly string[]): Promise<SchemaCache> {
  const [rels, fks, viewTrees, fns, types, reps, handlers] = await sql
    .begin('read only', (tx) => [
      tx.unsafe(`select set_config('search_path', '', true)`),
      tx.unsafe(RELATIONS, [schemas as string[]]),
      tx.unsafe(FKS),
      tx.unsafe(VIEW_TREES, [schemas as string[]]),
      tx.unsafe(FUNCTIONS, [schemas as string[]]),
      tx.unsafe(TYPES, [schemas as string[]]),
      tx.unsafe(REPRESENTATIONS),
      tx.unsafe(MEDIA_HANDLERS, [schemas as string[]]),
    ])
    .then((r) => r.slice(1) as unknown as Row[][]);

  const castsBy = (pick: (r: Row) => boolean, key: (r: Row) => number) =>
    new Map<number, { schema: string; name: string }>(
      reps.filter(pick).map((r) => [key(r), { schema: r.fschema, name: r.fname }]),
    );
  const toJson = castsBy(
    (r) => r.srctype === 'd',
    (r) => r.src,
  );
  const fromJson = castsBy(
    (r) => r.tgttype === 'd' && r.srcname === 'json',
    (r) => r.tgt,
  );
  const fromText = castsBy(
    (r) => r.tgttype === 'd' && r.srcname === 'text',
    (r) => r.tgt,
  );
  const representationOf = (oid: number): Column['representation'] =>
    toJson.has(oid) || fromJson.has(oid) || fromText.has(oid)
      ? { toJson: toJson.get(oid) ?? null, fromJson: fromJson.get(oid) ?? null, fromText: fromText.get(oid) ?? null }
      : undefined;
  const byOid = new Map<number, Table>();
  const tables = new Map<string, Table>();
  const partitionTables = new Map<string, Table>();
  const columnNames = new Map<number, Map<number, string>>();
  for (const r of rels) {
    const columns = new Map<string, Column>();
    columnNames.set(r.oid, new Map((r.columns as Row[]).map((c) => [c.num, c.name])));
    for (const c of r.columns as Row[]) {
      columns.set(c.name, {
        name: c.name,
        type: c.type,
        typeOid: c.oid,
        typeCategory: c.cat,
        baseType: c.typname,
        ...(c.under ? { underlyingType: c.under } : {}),
        nullable: c.nullable,
        defaultExpr: c.default,
        generated: c.generated,
        enumValues: c.enum,
        ...(representationOf(c.oid) ? { representation: representationOf(c.oid) } : {}),
      });
    }
    const keys = r.keys as { type: string; cols: string[] }[];
    const kind = r.relkind === 'v' ? 'view' : r.relkind === 'm' ? 'matview' : r.relkind === 'f' ? 'foreign' : 'table';
    const upd = Number(r.upd);
    const t: Table = {
      schema: r.schema,
      name: r.name,
      kind,
      ...(r.relkind === 'p' ? { partitioned: true } : {}),
      columns,
      comment: r.comment,
      pk: keys.find((k) => k.type === 'p')?.cols ?? [],
      uniques: keys.map((k) => k.cols),
      insertable: kind === 'table' || (upd & 8) !== 0,
      updatable: kind === 'table' || (upd & 4) !== 0,
      deletable: kind === 'table' || (upd & 16) !== 0,
    };
    byOid.set(r.oid, t);
    // A partition is no name of the API, as in PostgREST: its rows are read and written through its partitioned table.
    if (r.exposed) (r.partition ? partitionTables : tables).set(tableKey(t.schema, t.name), t);
  }

  // Partitions have no relationships of their own, as in PostgREST: the foreign keys a partition inherits from its
  // partitioned table (and those pointing at a partition) would only copy the partitioned table's.
  const partitions = new Set<number>(rels.filter((r) => r.partition).map((r) => r.oid));
  const rawFks: RawFk[] = [];
  for (const f of fks) {
    const from = byOid.get(f.from_oid),
      to = byOid.get(f.to_oid);
    if (from && to && !partitions.has(f.from_oid) && !partitions.has(f.to_oid))
      rawFks.push({ name: f.name, from, to, cols: f.cols, fcols: f.fcols });
  }
  const sources: ViewColumnSource[] = [];
  for (const { view_oid, tree } of viewTrees) {
    const view = byOid.get(view_oid);
    for (const o of view ? viewColumnOrigins(tree) : []) {
      const source = byOid.get(o.relationOid);
      const sourceColumn = columnNames.get(o.relationOid)?.get(o.attnum);
      if (view && source && sourceColumn) sources.push({ view, source, column: o.column, sourceColumn });
    }
  }

  setViewPrimaryKeys(sources);

  const functions = new Map<string, DbFunction[]>();
  // Computed fields and relationships take the row as an unnamed parameter: they are read from every function.
  const rowFunctions = new Map<string, DbFunction[]>();
  for (const f of fns) {
    const argTypes = new Map<number, Row>((f.argtypes as Row[]).map((t) => [t.oid, t]));
    const all = f.args as { name: string; type: string; oid: number; mode: string }[];
    const inArgs = all.filter((a) => a.mode === 'i' || a.mode === 'b' || a.mode === 'v');
    const outArgs = all.filter((a) => a.mode === 'o' || a.mode === 'b' || a.mode === 't');
    const firstDefault = inArgs.length - Number(f.ndefaults);
    const returnTable = f.retrel ? (byOid.get(f.retrel) ?? null) : null;
    let returnKind: DbFunction['returnKind'] = 'scalar';
    let outColumns: ReadonlyMap<string, Column> = new Map();
    if (f.rettype === 'void') returnKind = 'void';
    else if (returnTable) {
      returnKind = 'composite';
      outColumns = returnTable.columns;
      // Any OUT, INOUT or TABLE parameter makes rows with those columns, also when there is one (Postgres then
      // reports its type as the return type): `{"num_plus_one": 6}`, not `6`, as PostgREST.
    } else if (f.rettyptype === 'c' || outArgs.length > 0) {
      returnKind = 'composite';
      outColumns = new Map(
        outArgs.map((a) => {
          const t = argTypes.get(a.oid);
          return [
            a.name,
            {
              name: a.name,
              type: a.type,
              typeOid: a.oid,
              typeCategory: t?.cat ?? 'U',
              baseType: t?.typname ?? a.type,
              nullable: true,
              defaultExpr: null,
              generated: false,
              enumValues: null,
            } satisfies Column,
          ];
        }),
      );
    }
    const fn: DbFunction = {
      schema: f.schema,
      name: f.name,
      comment: f.comment,
      returnType: f.rettype,
      returnsSet: f.retset,
      returnKind,
      returnTable,
      outColumns,
      volatility: f.vol === 'i' ? 'immutable' : f.vol === 's' ? 'stable' : 'volatile',
      args: inArgs.map((a, i) => ({
        name: a.name,
        type: a.type,
        typeOid: a.oid,
        hasDefault: i >= firstDefault,
        variadic: a.mode === 'v',
      })),
      argTable:
        inArgs.length > 0 && firstDefault <= 1 ? (byOid.get(argTypes.get(inArgs[0].oid)?.relid ?? 0) ?? null) : null,
      rows: Number(f.rows),
    };
    const key = tableKey(fn.schema, fn.name);
    if (fn.argTable) rowFunctions.set(key, [...(rowFunctions.get(key) ?? []), fn]);
    if (callable(f.args)) functions.set(key, [...(functions.get(key) ?? []), fn]);
  }

  const typeMap = new Map<string, string>();
  for (const t of types) {
    const spelled = `${quoteIdent(t.schema)}.${quoteIdent(t.name)}`;
    if (t.schema === 'pg_catalog' || !typeMap.has(t.name.toLowerCase())) typeMap.set(t.name.toLowerCase(), spelled);
    typeMap.set(`${t.schema}.${t.name}`.toLowerCase(), spelled);
  }
  for (const [alias, name] of Object.entries(SQL_TYPE_ALIASES)) {
    const spelled = typeMap.get(name);
    if (spelled) typeMap.set(alias, spelled);
  }

  return {
    schemas,
    tables,
    partitions: partitionTables,
    functions,
    types: typeMap,
    mediaHandlers: mediaHandlersOf(handlers),
    loadedAt: Date.now(),
    relationships: withComputed(buildRelationships([...tables.values()], rawFks, sources), rowFunctions),
    computedFields: computedFields(rowFunctions),
  };
}

/** Send functions of the textual base types: their bytes are the value's text (jsonb's after a version byte). */
const TEXT_SENDS = new Set([
  'textsend',
  'varcharsend',
  'bpcharsend',
  'namesend',
  'xml_send',
  'json_send',
  'jsonb_send',
]);

function mediaHandlersOf(rows: readonly Row[]): Map<string, MediaHandler> {
  const out = new Map<string, MediaHandler>();
  for (const r of rows) {
    const target =
      r.target_schema === null ? null : { schema: r.target_schema as string, name: r.target_name as string };
    out.set(mediaHandlerKey(target ? tableKey(target.schema, target.name) : '', r.media_type), {
      kind: r.kind,
      schema: r.schema,
      name: r.name,
      target,
      mediaType: r.media_type,
      answers: r.answers,
      send: { schema: r.send_schema, name: r.send_name },
      binary: !(r.send_schema === 'pg_catalog' && TEXT_SENDS.has(r.send_name)),
    });
  }
  return out;
}

/** Functions of one table's row returning a single scalar: selectable like columns of that table. */
function computedFields(functions: ReadonlyMap<string, readonly DbFunction[]>): Map<string, Map<string, DbFunction>> {
  const out = new Map<string, Map<string, DbFunction>>();
  for (const fns of functions.values()) {
    for (const f of fns) {
      if (!f.argTable || f.returnKind !== 'scalar' || f.returnsSet) continue;
      const key = tableKey(f.argTable.schema, f.argTable.name);
      const byName = out.get(key) ?? new Map<string, DbFunction>();
      byName.set(f.name, f);
      out.set(key, byName);
    }
  }
  return out;
}

/**
 * Computed relationships: a function of one table's row returning rows of a table or view embeds like a
 * relationship named after the function; to-one when it returns one row (not SETOF, or ROWS 1).
 */
function withComputed(
  rels: ReadonlyMap<string, readonly Relationship[]>,
  functions: ReadonlyMap<string, readonly DbFunction[]>,
): Map<string, readonly Relationship[]> {
  const out = new Map(rels);
  for (const fns of functions.values()) {
    for (const f of fns) {
      if (!f.argTable || f.returnKind !== 'composite' || !f.returnTable) continue;
      const key = tableKey(f.argTable.schema, f.argTable.name);
      const rel: Relationship = {
        cardinality: !f.returnsSet || f.rows === 1 ? 'm2o' : 'o2m',
        table: f.argTable,
        foreignTable: f.returnTable,
        computed: f,
        constraint: f.name,
        columns: [],
        foreignColumns: [],
      };
      out.set(key, [...(out.get(key) ?? []), rel]);
    }
  }
  return out;
}

/** Types a single unnamed parameter may have: the request body is passed to it whole (as PostgREST does). */
const SINGLE_UNNAMED_TYPES = new Set(['json', 'jsonb', 'text', 'xml', 'bytea']);

/**
 * Functions with unnamed parameters cannot be called with named arguments, so, as in PostgREST, they are left out
 * of the cache, except a function whose only parameter is unnamed and takes the body whole.
 */
function callable(args: readonly { name: string; type: string; mode: string }[]): boolean {
  const inArgs = args.filter((a) => a.mode === 'i' || a.mode === 'b' || a.mode === 'v');
  if (inArgs.every((a) => a.name !== '')) return true;
  return inArgs.length === 1 && SINGLE_UNNAMED_TYPES.has(inArgs[0].type);
}

/**
 * A view's primary key is made of the key columns of the relations it shows, as PostgREST reads it: each primary
 * key column of a table (or, through it, of a view) that the view shows, under the first view column showing it;
 * relations in the order the view's columns first show them. A view showing no key column has none. It gives views
 * PUT and the Location of an insert.
 */
function setViewPrimaryKeys(sources: readonly ViewColumnSource[]): void {
  const byView = new Map<Table, ViewColumnSource[]>();
  for (const s of sources) byView.set(s.view, [...(byView.get(s.view) ?? []), s]);
  const done = new Map<Table, readonly string[]>();
  const keyOf = (t: Table, seen: ReadonlySet<Table>): readonly string[] => {
    if (t.kind !== 'view') return t.pk;
    const known = done.get(t);
    if (known) return known;
    if (seen.has(t)) return []; // a view defined over itself (through `create or replace`)
    const shown = byView.get(t) ?? [];
    const key: string[] = [];
    for (const source of new Set(shown.map((s) => s.source))) {
      for (const column of keyOf(source, new Set([...seen, t]))) {
        const first = shown.find((s) => s.source === source && s.sourceColumn === column);
        if (first && !key.includes(first.column)) key.push(first.column);
      }
    }
    done.set(t, key);
    return key;
  };
  for (const view of byView.keys()) {
    // Tables are built before their views' lineage is read: the key is set once, before the cache is handed out.
    (view as { pk: readonly string[] }).pk = keyOf(view, new Set());
  }
}
