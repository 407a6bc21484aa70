// Reads an archive into the importing transaction: each table's rows are COPYed into a temporary staging table
// (counted and hashed on the way), each object's bytes into a spool file placed in the storage backend. Nothing
// reaches the real tables here; auction-apply.ts moves the staged rows once every count and checksum matched.
import { createHash, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createWriteStream, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import type postgres from 'postgres';
import type { StorageBackend } from '@auction-ops/storage';
import { FORMAT_VERSION, type Frame, MAGIC, parseJson, readFrames } from './archive-frames.js';
import { AuctionDataError, errors } from './auction-data-errors.js';
import type { ArchiveHeader, Manifest, ObjectStart, TableStart } from './auction-export.js';
import { quoteIdent, quoteTable } from './scope-catalog.js';
import { open, type SealedBox } from './secret-box.js';

export interface StagedTable {
  table: string;
  columns: string[];
  types?: string[];
  dataset_id?: string;
  /** The temporary table holding the rows (pg_temp.stage_N). */
  stage: string;
  rows: number;
  sha256: string;
}

interface StagedObject extends ObjectStart {
  /** The key written to the backend, or null when the same version was already stored. */
  writtenKey: string | null;
  bytes: number;
  sha256: string;
}

export interface Staged {
  header: ArchiveHeader;
  tables: Map<string, StagedTable>;
  objects: StagedObject[];
}

interface StagingOptions {
  input: Readable;
  passphrase?: string;
  backend: Pick<StorageBackend, 'put'>;
  /** A directory on the backend's filesystem (fs backend: DATA_DIR/storage/tmp) for spool files. */
  spoolDir: string;
  /** Whether an object version is already stored (then its bytes are not written again). */
  hasVersion: (bucket: string, version: string) => Promise<boolean>;
  progress?: (message: string) => void;
}

const SHARED_TYPES: Record<string, Record<string, string>> = {
  'shared.users': { id: 'uuid', email: 'text', full_name: 'text' },
  'shared.default_categories': { id: 'uuid', name: 'text' },
};

async function createStage(tx: postgres.TransactionSql, start: TableStart, stage: string): Promise<void> {
  const shared = SHARED_TYPES[start.table];
  if (shared || start.types) {
    const types = start.types ?? start.columns.map((c) => shared![c] ?? 'text');
    const cols = start.columns.map((c, i) => `${quoteIdent(c)} ${types[i]}`).join(', ');
    await tx.unsafe(`create temp table ${stage} (${cols}) on commit drop`);
    return;
  }
  const cols = start.columns.map((c) => `t.${quoteIdent(c)}`).join(', ');
  // Only the columns (no constraints): the rows are checked when they reach the real table.
  await tx.unsafe(
    `create temp table ${stage} on commit drop as select ${cols} from ${quoteTable(start.table)} t with no data`,
  );
}

async function writeAll(out: Writable, bytes: Buffer): Promise<void> {
  if (!out.write(bytes)) await once(out, 'drain');
}

async function endWritable(out: Writable): Promise<void> {
  const finished = once(out, 'finish');
  out.end();
  await finished;
}

/**
 * Stages the archive. Objects written to the backend are pushed to `written` as they are placed, so that the
 * caller can remove them when anything later fails.
 */
export async function stageArchive(
  tx: postgres.TransactionSql,
  options: StagingOptions,
  written: string[],
): Promise<Staged> {
  const log = options.progress ?? (() => {});
  const frames = readFrames(options.input.pipe(createGunzip()));
  let header: ArchiveHeader | undefined;
  let manifest: Manifest | undefined;
  const tables = new Map<string, StagedTable>();
  const objects: StagedObject[] = [];
  mkdirSync(options.spoolDir, { recursive: true });

  const stageRows = async (start: TableStart, rows: AsyncIterable<Buffer> | Buffer[]) => {
    const stage = `pg_temp.stage_${tables.size}`;
    await createStage(tx, start, stage);
    const cols = start.columns.map(quoteIdent).join(', ');
    const writable = (await tx.unsafe(`copy ${stage} (${cols}) from stdin`).writable()) as Writable;
    const hash = createHash('sha256');
    let count = 0;
    for await (const bytes of rows) {
      hash.update(bytes);
      for (let i = bytes.indexOf(10); i !== -1; i = bytes.indexOf(10, i + 1)) count++;
      await writeAll(writable, bytes);
    }
    await endWritable(writable);
    const staged = { ...start, stage, rows: count, sha256: hash.digest('hex') };
    tables.set(start.table, staged);
    log(`${start.table}: ${count} rows read`);
  };

  /** The D frames up to the table's E frame. */
  async function* dataFrames(): AsyncGenerator<Buffer> {
    for (;;) {
      const next = await frames.next();
      if (next.done) throw errors.notAnArchive('it ends inside a table');
      if (next.value.type === 'E') return;
      if (next.value.type !== 'D') throw errors.notAnArchive(`unexpected ${next.value.type} frame in a table`);
      yield next.value.body;
    }
  }

  const stageObject = async (start: ObjectStart) => {
    const exists = await options.hasVersion(start.bucket_id, start.version);
    const spool = join(options.spoolDir, `import-${randomUUID()}`);
    const file = exists ? undefined : createWriteStream(spool);
    const hash = createHash('sha256');
    let bytes = 0;
    try {
      for (;;) {
        const next = await frames.next();
        if (next.done) throw errors.notAnArchive('it ends inside an object');
        if (next.value.type === 'E') break;
        if (next.value.type !== 'B') throw errors.notAnArchive(`unexpected ${next.value.type} frame in an object`);
        hash.update(next.value.body);
        bytes += next.value.body.length;
        if (file) await writeAll(file, next.value.body);
      }
      let writtenKey: string | null = null;
      if (file) {
        await endWritable(file);
        writtenKey = `${start.bucket_id}/${start.version}`;
        await options.backend.put(writtenKey, spool, { size: bytes, contentType: start.content_type });
        written.push(writtenKey);
      }
      objects.push({ ...start, writtenKey, bytes, sha256: hash.digest('hex') });
    } finally {
      file?.destroy();
      rmSync(spool, { force: true });
    }
  };

  for (;;) {
    const next = await frames.next();
    if (next.done) break;
    const frame: Frame = next.value;
    if (!header) {
      if (frame.type !== 'H') throw errors.notAnArchive('no header');
      header = parseJson<ArchiveHeader>(frame);
      if (header.magic !== MAGIC) throw errors.notAnArchive('wrong magic');
      if (header.version > FORMAT_VERSION) throw errors.newerFormat(header.version);
      continue;
    }
    if (manifest) throw errors.notAnArchive('frames after the manifest');
    if (frame.type === 'T') await stageRows(parseJson<TableStart>(frame), dataFrames());
    else if (frame.type === 'O') await stageObject(parseJson<ObjectStart>(frame));
    else if (frame.type === 'S') {
      const sealed = parseJson<{ table: string; columns: string[]; box: SealedBox }>(frame);
      if (options.passphrase === undefined) throw errors.passphraseNeeded();
      await stageRows({ table: sealed.table, columns: sealed.columns }, [open(sealed.box, options.passphrase)]);
    } else if (frame.type === 'M') manifest = parseJson<Manifest>(frame);
    else throw errors.notAnArchive(`unexpected ${frame.type} frame`);
  }
  if (!header) throw errors.notAnArchive('it is empty');
  if (!manifest) throw errors.notAnArchive('no manifest (truncated?)');
  verify(manifest, tables, objects);
  log(`checked: ${tables.size} tables and ${objects.length} objects match the manifest`);
  return { header, tables, objects };
}

function verify(manifest: Manifest, tables: Map<string, StagedTable>, objects: StagedObject[]): void {
  const problems: string[] = [];
  for (const [table, want] of Object.entries(manifest.tables)) {
    const got = tables.get(table);
    if (!got) problems.push(`${table}: missing`);
    else if (got.rows !== want.rows || got.sha256 !== want.sha256)
      problems.push(
        `${table}: ${got.rows} rows, sha256 ${got.sha256.slice(0, 12)}…; manifest: ${want.rows}, ${want.sha256.slice(0, 12)}…`,
      );
  }
  for (const table of tables.keys()) if (!manifest.tables[table]) problems.push(`${table}: not in the manifest`);
  const seen = new Set<string>();
  for (const o of objects) {
    const key = `${o.bucket_id}/${o.name}`;
    seen.add(key);
    const want = manifest.objects[key];
    if (!want || want.bytes !== o.bytes || want.sha256 !== o.sha256) problems.push(`object ${key}: bytes differ`);
  }
  for (const key of Object.keys(manifest.objects)) if (!seen.has(key)) problems.push(`object ${key}: missing`);
  if (problems.length) throw errors.checksum(problems);
}

/** The archive's header alone (is a passphrase needed?), reading no further than its first frame. */
export async function readArchiveHeader(input: Readable): Promise<ArchiveHeader> {
  const frames = readFrames(input.pipe(createGunzip()));
  try {
    const first = await frames.next();
    if (first.done || first.value.type !== 'H') throw errors.notAnArchive('no header');
    const header = parseJson<ArchiveHeader>(first.value);
    if (header.magic !== MAGIC) throw errors.notAnArchive('wrong magic');
    return header;
  } catch (error) {
    if (error instanceof Error && !(error instanceof AuctionDataError)) throw errors.notAnArchive(error.message);
    throw error;
  } finally {
    await frames.return(undefined);
    input.destroy();
  }
}
