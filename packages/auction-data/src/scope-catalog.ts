// What the catalog says about the auction's tables: which tables belong to an auction (a column auction_id, or a
// foreign-key path to auctions), and per mapped table its columns, primary key and references to shared rows.
import type postgres from 'postgres';
import { LEFT_OUT, OBJECT_URL_COLUMNS, type Scope, TABLES, type TableEntry } from './table-map.js';

/** Every table of the database that holds per-auction rows, by the catalog (schema-qualified names). */
async function tablesWithAuctionRows(sql: postgres.Sql): Promise<string[]> {
  const rows = await sql<{ name: string }[]>`
    with recursive scoped(rel) as (
      select 'public.auctions'::regclass
      union
      select c.conrelid::regclass from pg_constraint c join scoped s on c.confrelid = s.rel
      where c.contype = 'f' and c.conrelid <> c.confrelid
    ), with_column as (
      select a.attrelid::regclass as rel from pg_attribute a
      join pg_class c on c.oid = a.attrelid
      join pg_namespace n on n.oid = c.relnamespace
      where a.attname = 'auction_id' and not a.attisdropped and c.relkind in ('r', 'p') and not c.relispartition
        and n.nspname not in ('pg_catalog', 'information_schema')
    )
    select distinct n.nspname || '.' || c.relname as name
    from (select rel from scoped union select rel from with_column) t
    join pg_class c on c.oid = t.rel join pg_namespace n on n.oid = c.relnamespace
    order by 1`;
  return rows.map((r) => r.name);
}

/** Tables the catalog holds per-auction rows in that the map neither carries nor leaves out with a reason. */
export async function uncoveredTables(sql: postgres.Sql): Promise<string[]> {
  const mapped = new Set([...TABLES.map((t) => t.table), ...Object.keys(LEFT_OUT)]);
  return (await tablesWithAuctionRows(sql)).filter((t) => !mapped.has(t));
}

export interface TableShape {
  table: string;
  /** Columns a row is written with (generated columns are left out; Postgres computes them). */
  columns: string[];
  primaryKey: string[];
  /** Identity columns, whose sequences must move past imported values. */
  identity: string[];
  /** Columns referencing public.users / public.defect_categories: remapped on import. */
  userColumns: string[];
  categoryColumns: string[];
}

export async function tableShape(sql: postgres.Sql | postgres.TransactionSql, table: string): Promise<TableShape> {
  const cols = await sql<{ name: string; identity: boolean }[]>`
    select attname as name, attidentity <> '' as identity from pg_attribute
    where attrelid = ${table}::regclass and attnum > 0 and not attisdropped and attgenerated = ''
    order by attnum`;
  const pk = await sql<{ name: string }[]>`
    select a.attname as name from pg_index i
    join pg_attribute a on a.attrelid = i.indrelid and a.attnum = any(i.indkey)
    where i.indrelid = ${table}::regclass and i.indisprimary
    order by array_position(i.indkey::int2[], a.attnum)`;
  const refs = await sql<{ name: string; target: string }[]>`
    select a.attname as name, c.confrelid::regclass::text as target from pg_constraint c
    join pg_attribute a on a.attrelid = c.conrelid and a.attnum = c.conkey[1]
    where c.conrelid = ${table}::regclass and c.contype = 'f' and cardinality(c.conkey) = 1
      and c.confrelid in ('public.users'::regclass, 'public.defect_categories'::regclass)`;
  return {
    table,
    columns: cols.map((c) => c.name),
    primaryKey: pk.map((c) => c.name),
    identity: cols.filter((c) => c.identity).map((c) => c.name),
    userColumns: refs.filter((r) => r.target === 'users').map((r) => r.name),
    categoryColumns: refs.filter((r) => r.target === 'defect_categories').map((r) => r.name),
  };
}

/** Quotes `schema.table` (names come from the map or the catalog, never from users). */
export function quoteTable(table: string): string {
  return table
    .split('.')
    .map((part) => quoteIdent(part))
    .join('.');
}

export function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The id as a SQL literal: COPY takes no parameters, so the id (from our own auctions row) is checked first. */
export function uuidLiteral(id: string): string {
  if (!UUID.test(id)) throw new Error(`not a uuid: ${id}`);
  return `'${id}'::uuid`;
}

/** The SQL condition selecting the auction's rows of a table (alias `t`). */
export function scopeCondition(scope: Scope, auctionId: string, alias = 't'): string {
  const id = uuidLiteral(auctionId);
  switch (scope.kind) {
    case 'self':
      return `${alias}.id = ${id}`;
    case 'auction':
      return `${alias}.auction_id = ${id}`;
    case 'parent': {
      const parentEntry = TABLES.find((t) => t.table === scope.parent) as TableEntry;
      return `${alias}.${quoteIdent(scope.column)} in (select p.${quoteIdent(scope.parentColumn)} from ${quoteTable(
        scope.parent,
      )} p where ${scopeCondition(parentEntry.scope, auctionId, 'p')})`;
    }
    case 'objects':
      return objectsCondition(auctionId, alias);
  }
}

/**
 * The auction's stored objects (alias a storage.objects row): those under its `<auction_id>/` folder and those
 * linked to it (domain.auction_object_links, domain/0032). A URL in its rows grants nothing: an object another user
 * owns is carried only if its uploader linked it by writing its URL into this auction. Unlike the purge
 * (domain.auction_object_refs), an object other auctions link too is carried: it is this auction's as well.
 */
function objectsCondition(auctionId: string, alias: string): string {
  const id = uuidLiteral(auctionId);
  return `(${alias}.name like (${id}::text || '/%') or exists (select 1 from domain.auction_object_links l
    where l.auction_id = ${id} and l.bucket_id = ${alias}.bucket_id and l.name = ${alias}.name))`;
}

/**
 * The objects condition for the database being read: a snapshot from before domain/0032 (a point-in-time restore
 * to before the upgrade exports from one) has no links, so its objects are chosen by 0032's backfill rule instead:
 * the auction's folder, and objects its rows name by URL whose first folder is one of its members. A borrowed URL
 * carries nothing either way.
 */
export async function objectsConditionIn(tx: postgres.TransactionSql, auctionId: string, alias = 't'): Promise<string> {
  const [found] = await tx<{ links: boolean }[]>`
    select to_regclass('domain.auction_object_links') is not null as links`;
  if (found?.links) return objectsCondition(auctionId, alias);
  const id = uuidLiteral(auctionId);
  const pattern = `'/storage/v1/(?:object|render/image)/(?:public/|authenticated/|sign/)?([a-z0-9][a-z0-9._-]{0,62}/[^?#]+)'`;
  const urls = OBJECT_URL_COLUMNS.map(
    ({ table, column, imagesOnly }) =>
      `select substring(u.${quoteIdent(column)} from ${pattern}) from ${quoteTable(table)} u
        where u.auction_id = ${id}${imagesOnly ? ` and u.message_type = 'image'` : ''}`,
  ).join(' union ');
  return `(${alias}.name like (${id}::text || '/%') or ((${alias}.bucket_id || '/' || ${alias}.name) in (${urls})
    and split_part(${alias}.name, '/', 1) in (select m.user_id::text from public.auction_members m
      where m.auction_id = ${id})))`;
}
