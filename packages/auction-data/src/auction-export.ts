// Export of one auction: every row of the map's tables that belongs to it, the shared rows it points at (users by
// e-mail, default defect categories by name), its dataset tables and the bytes of the objects its rows name, read
// in one REPEATABLE READ READ ONLY transaction (a consistent snapshot) and streamed with COPY into the framed,
// gzipped archive (archive-frames.ts). Per-table counts and sha256 go into the manifest, the last frame.
import { formatBytes } from '@auction-ops/console/format-bytes';
import { createHash } from 'node:crypto';
import type { Writable } from 'node:stream';
import { createGzip } from 'node:zlib';
import { pipeline } from 'node:stream/promises';
import { PassThrough, type Readable } from 'node:stream';
import type postgres from 'postgres';
import type { StorageBackend } from '@auction-ops/storage';
import { CHUNK, FORMAT_VERSION, FrameWriter, MAGIC } from './archive-frames.js';
import { errors } from './auction-data-errors.js';
import {
  objectsConditionIn,
  quoteIdent,
  quoteTable,
  scopeCondition,
  tableShape,
  uuidLiteral,
} from './scope-catalog.js';
import { seal } from './secret-box.js';
import { DATASET_SCHEMA, TABLES } from './table-map.js';

export interface ArchiveHeader {
  magic: typeof MAGIC;
  version: number;
  auction: { id: string; slug: string; name: string };
  exported_at: string;
  secrets: boolean;
}

interface TableStart {
  table: string;
  columns: string[];
  /** Dataset tables only: the column types, to create the table on import. */
  types?: string[];
  dataset_id?: string;
}

export interface ObjectStart {
  bucket_id: string;
  name: string;
  version: string;
  size: number;
  content_type: string;
}

export interface Manifest {
  tables: Record<string, { rows: number; sha256: string }>;
  objects: Record<string, { bytes: number; sha256: string }>;
}

export interface ExportOptions {
  /** Owner connection (reads every table, bypassing row-level security). */
  sql: postgres.Sql;
  /** Where the stored objects' bytes are. */
  backend: Pick<StorageBackend, 'get'>;
  /** Slug or id. */
  auction: string;
  out: Writable;
  /** With a passphrase, the webhook signing secrets are carried, sealed with it; without, left out. */
  secretsPassphrase?: string;
  progress?: (message: string) => void;
}

export interface ExportResult {
  auction: ArchiveHeader['auction'];
  manifest: Manifest;
}

export const SHARED_USERS = 'shared.users';
export const SHARED_CATEGORIES = 'shared.default_categories';

export async function resolveAuction(sql: postgres.Sql | postgres.TransactionSql, ref: string) {
  // No slug has a NUL (PostgreSQL text cannot hold one; asking would be an error, not an answer).
  if (ref.includes('\0')) throw errors.unknownAuction(ref);
  const byId = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(ref);
  const [row] = await sql<{ id: string; slug: string; name: string }[]>`
    select id, slug, name from public.auctions where ${byId ? sql`id = ${ref}::uuid` : sql`slug = ${ref}`}`;
  if (!row) throw errors.unknownAuction(ref);
  return row;
}

/** COPY (query) TO STDOUT into table frames of CHUNK bytes (rows may span frames), counted and hashed on the way. */
async function copyOut(
  tx: postgres.TransactionSql,
  frames: FrameWriter,
  query: string,
  onRows: (rows: number) => void = () => {},
) {
  const stream = (await tx.unsafe(`copy (${query}) to stdout`).readable()) as Readable;
  const hash = createHash('sha256');
  let rows = 0;
  const pending = Buffer.allocUnsafe(CHUNK);
  let size = 0;
  for await (const chunk of stream) {
    const bytes = chunk as Buffer;
    hash.update(bytes);
    for (let i = bytes.indexOf(10); i !== -1; i = bytes.indexOf(10, i + 1)) rows++;
    // Copied into the frame buffer: the client may reuse the buffer it handed out once the next message arrives.
    for (let at = 0; at < bytes.length; ) {
      const n = bytes.copy(pending, size, at);
      size += n;
      at += n;
      if (size === CHUNK) {
        await frames.write('D', pending);
        size = 0;
        onRows(rows);
      }
    }
  }
  if (size) await frames.write('D', pending.subarray(0, size));
  return { rows, sha256: hash.digest('hex') };
}

/** The SELECT of the auction's users: everyone a user column of its rows names (members, authors, assignees). */
async function sharedUsersQuery(tx: postgres.TransactionSql, auctionId: string): Promise<string> {
  const parts: string[] = [];
  for (const entry of TABLES) {
    if (entry.table === 'storage.objects') continue;
    const shape = await tableShape(tx, entry.table);
    for (const column of shape.userColumns)
      parts.push(
        `select t.${quoteIdent(column)} from ${quoteTable(entry.table)} t where ${scopeCondition(entry.scope, auctionId)}`,
      );
  }
  return `select u.id, u.email, u.full_name from public.users u where u.id in (${parts.join(' union ')}) order by u.id`;
}

export async function exportAuction(options: ExportOptions): Promise<ExportResult> {
  const { sql, backend } = options;
  const log = options.progress ?? (() => {});
  const gzip = createGzip();
  const done = pipeline(gzip, options.out);
  const frames = new FrameWriter(gzip);
  const manifest: Manifest = { tables: {}, objects: {} };
  let header: ArchiveHeader | undefined;
  try {
    await sql.begin('isolation level repeatable read read only', async (tx) => {
      const auction = await resolveAuction(tx, options.auction);
      const id = auction.id;
      header = {
        magic: MAGIC,
        version: FORMAT_VERSION,
        auction,
        exported_at: new Date().toISOString(),
        secrets: options.secretsPassphrase !== undefined,
      };
      await frames.json('H', header);
      const table = async (start: TableStart, query: string) => {
        await frames.json('T', start);
        let shown = Date.now();
        manifest.tables[start.table] = await copyOut(tx, frames, query, (rows) => {
          // A large table says how far it is every few seconds.
          if (Date.now() - shown < 5000) return;
          shown = Date.now();
          log(`${start.table}: ${rows} rows so far`);
        });
        await frames.write('E');
        log(`${start.table}: ${manifest.tables[start.table]!.rows} rows`);
      };

      await table({ table: SHARED_USERS, columns: ['id', 'email', 'full_name'] }, await sharedUsersQuery(tx, id));
      await table(
        { table: SHARED_CATEGORIES, columns: ['id', 'name'] },
        `select c.id, c.name from public.defect_categories c where c.auction_id is null and c.id in ` +
          `(select d.category_id from public.quality_defects d where d.auction_id = ${uuidLiteral(id)}) order by c.id`,
      );

      // Objects before rows: an import stores the bytes first and removes them if its transaction fails.
      // The auction's objects are its folder and its links (domain/0032), whichever schema this snapshot has.
      const objectsWhere = await objectsConditionIn(tx, id);
      const objects = await tx<
        { bucket_id: string; name: string; version: string; metadata: Record<string, unknown> }[]
      >`
        select bucket_id, name, version, metadata from storage.objects t
        where ${tx.unsafe(objectsWhere)} order by bucket_id, name`;
      let objectBytes = 0;
      for (const object of objects) {
        const start: ObjectStart = {
          bucket_id: object.bucket_id,
          name: object.name,
          version: object.version,
          size: Number(object.metadata.size ?? 0),
          content_type: String(object.metadata.mimetype ?? 'application/octet-stream'),
        };
        await frames.json('O', start);
        const hash = createHash('sha256');
        let bytes = 0;
        for await (const chunk of await backend.get(`${object.bucket_id}/${object.version}`)) {
          const b = chunk as Buffer;
          hash.update(b);
          bytes += b.length;
          for (let at = 0; at < b.length; at += CHUNK) await frames.write('B', b.subarray(at, at + CHUNK));
        }
        await frames.write('E');
        manifest.objects[`${object.bucket_id}/${object.name}`] = { bytes, sha256: hash.digest('hex') };
        objectBytes += bytes;
      }
      log(`objects: ${objects.length} (${formatBytes(objectBytes)})`);

      for (const entry of TABLES) {
        const shape = await tableShape(tx, entry.table);
        const cols = shape.columns.map((c) => `t.${quoteIdent(c)}`).join(', ');
        const order = shape.primaryKey.map((c) => `t.${quoteIdent(c)}`).join(', ') || '1';
        const where = entry.scope.kind === 'objects' ? objectsWhere : scopeCondition(entry.scope, id);
        const query = `select ${cols} from ${quoteTable(entry.table)} t where ${where} order by ${order}`;
        if (entry.role === 'secret') {
          if (options.secretsPassphrase === undefined) continue;
          // Secrets are few: collected, then sealed in one frame (GCM's tag covers the whole of them).
          const collected = new PassThrough();
          const parts: Buffer[] = [];
          collected.on('data', (b: Buffer) => parts.push(b));
          const inner = new FrameWriter(collected);
          manifest.tables[entry.table] = await copyOut(tx, inner, query);
          collected.end();
          const copyText = Buffer.concat(parts.map((frame) => frame.subarray(5)));
          const box = seal(copyText, options.secretsPassphrase);
          await frames.json('S', { table: entry.table, columns: shape.columns, box });
          log(`${entry.table}: ${manifest.tables[entry.table]!.rows} rows (encrypted)`);
          continue;
        }
        await table({ table: entry.table, columns: shape.columns }, query);
        if (entry.table === 'public.datasets') await exportDatasetTables(tx, id, table);
      }
      await frames.json('M', manifest);
    });
    gzip.end();
    await done;
  } catch (error) {
    gzip.destroy(error as Error);
    await done.catch(() => {});
    throw error;
  }
  return { auction: header!.auction, manifest };
}

async function exportDatasetTables(
  tx: postgres.TransactionSql,
  auctionId: string,
  table: (start: TableStart, query: string) => Promise<void>,
) {
  const datasets = await tx<{ id: string; table_name: string }[]>`
    select d.id, d.table_name from public.datasets d
    where d.auction_id = ${auctionId} and d.table_name is not null
      and to_regclass(${DATASET_SCHEMA} || '.' || quote_ident(d.table_name)) is not null
    order by d.id`;
  for (const d of datasets) {
    const name = `${DATASET_SCHEMA}.${d.table_name}`;
    const cols = await tx<{ name: string; type: string }[]>`
      select attname as name, format_type(atttypid, atttypmod) as type from pg_attribute
      where attrelid = ${quoteTable(name)}::regclass and attnum > 0 and not attisdropped order by attnum`;
    await table(
      { table: name, columns: cols.map((c) => c.name), types: cols.map((c) => c.type), dataset_id: d.id },
      `select ${cols.map((c) => quoteIdent(c.name)).join(', ')} from ${quoteTable(name)}`,
    );
  }
}
