// POST /object/list-v2/{bucket} (storage-js listV2): objects whose names start with `prefix`, optionally grouped
// into folders at the next `/` (with_delimiter), sorted by name, created_at or updated_at, paged by an opaque
// cursor (the last entry's sort key), so a page never repeats or skips entries while others are written.
import type postgres from 'postgres';
import { asCaller, type Caller } from './caller-transaction.js';
import type { ObjectMetadata } from './object-row.js';
import { escapeLike } from './object-path.js';
import { errors } from './storage-errors.js';

const SORT_COLUMNS = new Set(['name', 'created_at', 'updated_at']);
const MAX_LIST = 1000;

interface Cursor {
  /** 0 folders, 1 objects (folders come first). */
  k: number;
  /** The sort value: the name, or the timestamp as fixed-width UTC text. */
  v: string;
  n: string;
}

interface Entry {
  kind: number;
  sortv: string;
  name: string;
  id: string | null;
  created_at: Date | null;
  updated_at: Date | null;
  last_accessed_at: Date | null;
  metadata: ObjectMetadata | null;
}

export interface ListV2Result {
  hasNext: boolean;
  folders: { name: string; key: string }[];
  objects: Array<Omit<Entry, 'kind' | 'sortv'> & { key: string }>;
  nextCursor?: string;
}

function decodeCursor(value: unknown): Cursor | null {
  if (value === undefined || value === null || value === '') return null;
  try {
    const c = JSON.parse(Buffer.from(String(value), 'base64url').toString('utf8')) as Cursor;
    if ((c.k === 0 || c.k === 1) && typeof c.v === 'string' && typeof c.n === 'string') return c;
  } catch {}
  throw errors.invalidRequest('Invalid cursor');
}

const encodeCursor = (e: Entry) =>
  Buffer.from(JSON.stringify({ k: e.kind, v: e.sortv, n: e.name } satisfies Cursor)).toString('base64url');

function listOptions(body: Record<string, unknown>) {
  const prefix = typeof body.prefix === 'string' ? body.prefix : '';
  if (Buffer.byteLength(prefix) > 1024) throw errors.invalidRequest('prefix is too long');
  const limit = body.limit === undefined || body.limit === null ? MAX_LIST : Number(body.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIST)
    throw errors.invalidRequest(`limit must be an integer between 1 and ${MAX_LIST}`);
  const sortBy = (body.sortBy ?? {}) as { column?: unknown; order?: unknown };
  const column = typeof sortBy.column === 'string' && SORT_COLUMNS.has(sortBy.column) ? sortBy.column : 'name';
  const desc = typeof sortBy.order === 'string' && sortBy.order.toLowerCase() === 'desc';
  return { prefix, limit, column, desc, delimiter: body.with_delimiter === true, cursor: decodeCursor(body.cursor) };
}

export async function listV2(
  sql: postgres.Sql,
  caller: Caller,
  bucket: string,
  body: Record<string, unknown>,
): Promise<ListV2Result> {
  const o = listOptions(body);
  const [cmp, dir] = o.desc ? ['<', 'desc'] : ['>', 'asc'];
  const sortv = o.column === 'name' ? 'name' : `to_char(${o.column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US')`;
  // The column and direction come from the whitelists above; every value is a parameter.
  const text = `
    with matches as (
      select o.id, o.name, o.created_at, o.updated_at, o.last_accessed_at, o.metadata,
        substr(o.name, $2) as rest
      from storage.objects o where o.bucket_id = $1 and o.name like $3 escape '\\'
    ), entries as (
      select distinct 0 as kind, $4 || split_part(rest, '/', 1) || '/' as name, null::uuid as id,
        null::timestamptz as created_at, null::timestamptz as updated_at, null::timestamptz as last_accessed_at,
        null::jsonb as metadata
      from matches where $5 and strpos(rest, '/') > 0
      union all
      select 1, name, id, created_at, updated_at, last_accessed_at, metadata
      from matches where not $5 or strpos(rest, '/') = 0
    ), keyed as (
      select *, (case when kind = 0 then name else ${sortv} end) collate "C" as sortv from entries
    )
    select * from keyed
    where $6::int is null or kind > $6 or (kind = $6 and (sortv ${cmp} $7 or (sortv = $7 and name ${cmp} $8)))
    order by kind, sortv ${dir}, name ${dir}
    limit $9`;
  const c = o.cursor;
  const params = [
    bucket,
    [...o.prefix].length + 1,
    `${escapeLike(o.prefix)}%`,
    o.prefix,
    o.delimiter,
    c?.k ?? null,
    c?.v ?? null,
    c?.n ?? null,
    o.limit + 1,
  ];
  const rows = (await asCaller(sql, caller, (tx) => tx.unsafe(text, params as never[]))) as unknown as Entry[];
  const page = rows.slice(0, o.limit);
  const result: ListV2Result = {
    hasNext: rows.length > o.limit,
    folders: page.filter((e) => e.kind === 0).map((e) => ({ name: e.name, key: e.name.replace(/\/$/, '') })),
    objects: page.filter((e) => e.kind === 1).map(({ kind: _k, sortv: _s, ...e }) => ({ ...e, key: e.name })),
  };
  if (result.hasNext) result.nextCursor = encodeCursor(page[page.length - 1]!);
  return result;
}
