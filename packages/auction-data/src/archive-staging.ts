// The second pass over a checked archive (archive-check.ts), inside the importing transaction: each table's rows
// are COPYed into a temporary staging table, each object's bytes into a spool file placed in the storage backend.
// Table, column and type names come from the map, the catalog or the first pass's fixed lists, never from the
// frames read here; and the bytes read must be the bytes checked (the whole stream's sha256), else nothing moves.
// Nothing reaches the real tables here; auction-apply.ts moves the staged rows.
import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type postgres from 'postgres';
import type { StorageBackend } from '@auction-ops/storage';
import { ArchiveReader, type Frame } from './archive-frames.js';
import {
  type CheckedArchive,
  type CheckedTable,
  DEFAULT_MAX_BYTES,
  readHeader,
  SHARED_COLUMNS,
} from './archive-check.js';
import { AuctionDataError, errors } from './auction-data-errors.js';
import type { ArchiveHeader, ObjectStart } from './auction-export.js';
import { quoteIdent, quoteTable, tableShape } from './scope-catalog.js';
import { TABLES } from './table-map.js';

export interface StagedTable {
  table: string;
  /** Column names as the catalog (map tables) or the first pass's checks (shared and dataset tables) have them. */
  columns: string[];
  types?: string[];
  dataset_id?: string;
  /** The temporary table holding the rows (pg_temp.stage_N). */
  stage: string;
  rows: number;
}

interface StagedObject extends ObjectStart {
  /** The key written to the backend, or null when the same version was already stored. */
  writtenKey: string | null;
}

export interface Staged {
  header: ArchiveHeader;
  tables: Map<string, StagedTable>;
  objects: StagedObject[];
}

interface StagingOptions {
  /** The archive file checkArchive read: read again here. */
  file: string;
  /** The most bytes the archive may decompress to. */
  maxBytes?: number;
  backend: Pick<StorageBackend, 'put'>;
  /** A directory on the backend's filesystem (fs backend: DATA_DIR/storage/tmp) for spool files. */
  spoolDir: string;
  /** Whether an object version is already stored (then its bytes are not written again). */
  hasVersion: (bucket: string, version: string) => Promise<boolean>;
  progress?: (message: string) => void;
}

/** The staging table's columns, each name taken from the catalog (a name it does not have is refused). */
async function catalogColumns(tx: postgres.TransactionSql, t: CheckedTable): Promise<string[]> {
  const entry = TABLES.find((e) => e.table === t.table)!;
  const known = (await tableShape(tx, entry.table)).columns;
  return t.columns.map((c) => {
    const at = known.indexOf(c);
    if (at < 0) throw errors.unknownColumn(entry.table, c);
    return known[at]!;
  });
}

/** The first pass's next table or object: a frame it did not see means another file is being read now. */
function nth<T>(list: T[], i: number): T {
  if (i >= list.length) throw errors.changedWhileRead();
  return list[i]!;
}

async function createStage(tx: postgres.TransactionSql, t: CheckedTable, columns: string[], stage: string) {
  if (t.kind === 'map') {
    const entry = TABLES.find((e) => e.table === t.table)!;
    // Only the columns (no constraints): the rows are checked when they reach the real table.
    const cols = columns.map((c) => `t.${quoteIdent(c)}`).join(', ');
    await tx.unsafe(
      `create temp table ${stage} on commit drop as select ${cols} from ${quoteTable(entry.table)} t with no data`,
    );
    return;
  }
  const types = t.kind === 'shared' ? SHARED_COLUMNS[t.table]!.map(([, type]) => type) : t.types!;
  const cols = columns.map((c, i) => `${quoteIdent(c)} ${types[i]}`).join(', ');
  await tx.unsafe(`create temp table ${stage} (${cols}) on commit drop`);
}

/**
 * Stages the checked archive. Objects written to the backend are pushed to `written` as they are placed, so that
 * the caller can remove them when anything later fails.
 */
export async function stageArchive(
  tx: postgres.TransactionSql,
  checked: CheckedArchive,
  options: StagingOptions,
  written: string[],
): Promise<Staged> {
  const log = options.progress ?? (() => {});
  const columns = new Map<CheckedTable, string[]>();
  for (const t of checked.tables) columns.set(t, t.kind === 'map' ? await catalogColumns(tx, t) : t.columns);

  const reader = new ArchiveReader(createReadStream(options.file), options.maxBytes ?? DEFAULT_MAX_BYTES);
  const frames = reader.frames();
  const tables = new Map<string, StagedTable>();
  const objects: StagedObject[] = [];
  mkdirSync(options.spoolDir, { recursive: true });

  /** The body of each frame up to the next E frame (the first pass checked their types and order). */
  async function* untilEnd(): AsyncGenerator<Buffer> {
    for (;;) {
      const next = await frames.next();
      if (next.done || next.value.type === 'E') return;
      yield next.value.body;
    }
  }

  const stageRows = async (t: CheckedTable, rows: AsyncIterable<Buffer> | Buffer[]) => {
    const stage = `pg_temp.stage_${tables.size}`;
    const cols = columns.get(t)!;
    await createStage(tx, t, cols, stage);
    const copy = (await tx
      .unsafe(`copy ${stage} (${cols.map(quoteIdent).join(', ')}) from stdin`)
      .writable()) as Writable;
    try {
      await pipeline(Readable.from(rows), copy);
    } catch (error) {
      if (error instanceof AuctionDataError) throw error;
      throw errors.rowsRefused(`${t.table}: ${(error as Error).message}`);
    }
    tables.set(t.table, {
      table: t.table,
      columns: cols,
      types: t.types,
      dataset_id: t.dataset_id,
      stage,
      rows: t.rows,
    });
    log(`${t.table}: ${t.rows} rows read`);
  };

  const stageObject = async (start: ObjectStart) => {
    const exists = await options.hasVersion(start.bucket_id, start.version);
    const spool = join(options.spoolDir, `import-${randomUUID()}`);
    let size = 0;
    async function* counted() {
      for await (const bytes of untilEnd()) {
        size += bytes.length;
        yield bytes;
      }
    }
    try {
      let writtenKey: string | null = null;
      // An object whose version is stored here already is read past, its bytes not written again.
      if (exists) await pipeline(counted(), new Writable({ write: (_chunk, _encoding, done) => done() }));
      else {
        await pipeline(counted(), createWriteStream(spool));
        writtenKey = `${start.bucket_id}/${start.version}`;
        await options.backend.put(writtenKey, spool, { size, contentType: start.content_type });
        written.push(writtenKey);
      }
      objects.push({ ...start, writtenKey });
    } finally {
      rmSync(spool, { force: true });
    }
  };

  try {
    await readHeader(frames);
    let table = 0;
    let object = 0;
    for (;;) {
      const next = await frames.next();
      if (next.done) break;
      const frame: Frame = next.value;
      if (frame.type === 'T') await stageRows(nth(checked.tables, table++), untilEnd());
      else if (frame.type === 'S') {
        const t = nth(checked.tables, table++);
        // Opened by the first pass (one scrypt); a frame swapped since shows in the digest below.
        await stageRows(t, t.opened ? [t.opened] : []);
      } else if (frame.type === 'O') await stageObject(nth(checked.objects, object++));
    }
  } finally {
    await frames.return(undefined);
  }
  if (reader.sha256() !== checked.sha256) throw errors.changedWhileRead();
  return { header: checked.header, tables, objects };
}

/** The archive's header alone (is a passphrase needed?), reading no further than its first frame. */
export async function readArchiveHeader(input: Readable): Promise<ArchiveHeader> {
  const frames = new ArchiveReader(input, DEFAULT_MAX_BYTES).frames();
  try {
    return await readHeader(frames);
  } finally {
    await frames.return(undefined);
  }
}
