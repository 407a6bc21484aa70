// The first pass over an archive, without a database: every frame read (capped), the header, the frame order, the
// manifest's counts and digests, every table known (the map, the shared tables, dataset tables of the archive's
// datasets), dataset column names and types, and every row inside the header's auction. Its result is all that the
// second pass (archive-staging.ts) takes names and types from; nothing of the archive reaches SQL before this ends.
import { createHash, type Hash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { checkBucketId, checkObjectName } from '@auction-ops/storage';
import { ArchiveReader, FORMAT_VERSION, type Frame, MAGIC, parseJson } from './archive-frames.js';
import { AuctionDataError, errors, shown } from './auction-data-errors.js';
import { type ArchiveHeader, type ObjectStart, SHARED_CATEGORIES, SHARED_USERS } from './auction-export.js';
import { CopyTextRows } from './copy-text.js';
import { open, type SealedBox } from './secret-box.js';
import { DATASET_SCHEMA, OBJECT_URL_COLUMNS, storageUrlObject, TABLES, type TableEntry } from './table-map.js';

/** The decompressed size an archive may have unless the caller says otherwise (AUCTION_ARCHIVE_MAX_BYTES). */
export const DEFAULT_MAX_BYTES = 16 * 1024 ** 3;

/** The shared tables' columns and their types: fixed by the format. */
export const SHARED_COLUMNS: Readonly<Record<string, readonly [string, string][]>> = {
  [SHARED_USERS]: [
    ['id', 'uuid'],
    ['email', 'text'],
    ['full_name', 'text'],
  ],
  [SHARED_CATEGORIES]: [
    ['id', 'uuid'],
    ['name', 'text'],
  ],
};

/**
 * The types a dataset column may have, as the exporter writes them (format_type) and as import-csv creates them
 * (packages/functions, dataset-import.ts): the archive's string is looked up here, and only the value is used.
 */
const DATASET_TYPES: Readonly<Record<string, string>> = {
  text: 'text',
  bigint: 'bigint',
  integer: 'integer',
  numeric: 'numeric',
  boolean: 'boolean',
  date: 'date',
  'timestamp with time zone': 'timestamptz',
  timestamptz: 'timestamptz',
  'double precision': 'double precision',
};

/** Dataset table and column names: what import-csv makes (COLUMN_NAME there). */
const IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;
/** Map tables' column names as the catalog has them; whether the table has each is checked against the catalog. */
const COLUMN = /^[a-z_][a-z0-9_]{0,62}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const SHA256 = /^[0-9a-f]{64}$/;

export interface CheckedTable {
  /** The map's name, a shared table's, or `reporting_data.<checked name>`. */
  table: string;
  kind: 'map' | 'shared' | 'dataset';
  /** The archive's column names (checked as identifiers; map tables' against the catalog before staging). */
  columns: string[];
  /** Dataset tables: each column's type, from DATASET_TYPES. */
  types?: string[];
  dataset_id?: string;
  rows: number;
  /** A sealed table's opened COPY text (secrets are few). */
  opened?: Buffer;
}

export interface CheckedArchive {
  header: ArchiveHeader;
  tables: CheckedTable[];
  objects: ObjectStart[];
  /** The sha256 of the whole decompressed archive: the second pass must read the same. */
  sha256: string;
}

interface CheckOptions {
  passphrase?: string;
  maxBytes?: number;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isString = (v: unknown): v is string => typeof v === 'string';
const isCount = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0;

function checkHeader(value: unknown): ArchiveHeader {
  if (!isObject(value) || value.magic !== MAGIC) throw errors.notAnArchive('wrong magic');
  if (!Number.isSafeInteger(value.version) || (value.version as number) < 1)
    throw errors.notAnArchive(`format version ${shown(value.version)}`);
  if ((value.version as number) > FORMAT_VERSION) throw errors.newerFormat(value.version as number);
  const a = value.auction;
  if (!isObject(a) || !isString(a.id) || !UUID.test(a.id) || !isString(a.slug) || !isString(a.name))
    throw errors.notAnArchive('the header names no auction (id, slug, name)');
  if (!isString(value.exported_at) || typeof value.secrets !== 'boolean')
    throw errors.notAnArchive('the header has no exported_at or secrets');
  return {
    magic: MAGIC,
    version: value.version as number,
    auction: { id: a.id, slug: a.slug, name: a.name },
    exported_at: value.exported_at,
    secrets: value.secrets,
  };
}

/** Reads the header (the first frame) of an archive. */
export async function readHeader(frames: AsyncIterator<Frame>): Promise<ArchiveHeader> {
  const first = await frames.next();
  if (first.done) throw errors.notAnArchive('it is empty');
  if (first.value.type !== 'H') throw errors.notAnArchive('no header');
  return checkHeader(parseJson(first.value));
}

function checkColumns(table: string, columns: unknown, pattern: RegExp): string[] {
  if (!Array.isArray(columns) || columns.length === 0 || !columns.every(isString))
    throw errors.notAnArchive(`${table} has no list of columns`);
  for (const c of columns) if (!pattern.test(c)) throw errors.notAnArchive(`${table} has a column named ${shown(c)}`);
  if (new Set(columns).size !== columns.length) throw errors.notAnArchive(`${table} names a column twice`);
  return columns;
}

function checkObjectStart(value: unknown): ObjectStart {
  if (!isObject(value)) throw errors.notAnArchive('an O frame is not an object start');
  const { bucket_id, name, version, size, content_type } = value;
  try {
    if (!isString(bucket_id) || !isString(name)) throw new Error();
    checkBucketId(bucket_id);
    checkObjectName(name);
  } catch {
    throw errors.notAnArchive(`an object named ${shown(`${String(bucket_id)}/${String(name)}`)}`);
  }
  if (!isString(version) || !UUID.test(version)) throw errors.notAnArchive(`object version ${shown(version)}`);
  if (!isCount(size) || !isString(content_type) || !/^[ -~]{1,255}$/.test(content_type))
    throw errors.notAnArchive(`object ${shown(name)} has no size or content type`);
  return { bucket_id, name, version, size, content_type };
}

interface Digest {
  rows: number;
  sha256: string;
}

function checkManifest(value: unknown, tables: Map<string, Digest>, objects: Map<string, Digest>): void {
  if (!isObject(value) || !isObject(value.tables) || !isObject(value.objects))
    throw errors.notAnArchive('the manifest lists no tables and objects');
  const problems: string[] = [];
  const compare = (what: string, got: Map<string, Digest>, listed: Record<string, unknown>, unit: string) => {
    for (const [key, want] of Object.entries(listed)) {
      const have = got.get(key);
      if (!isObject(want) || !isCount(want[unit]) || !isString(want.sha256) || !SHA256.test(want.sha256))
        problems.push(`${what}${shown(key)}: not a manifest entry`);
      else if (!have) problems.push(`${what}${shown(key)}: missing`);
      else if (have.rows !== want[unit] || have.sha256 !== want.sha256)
        problems.push(
          `${what}${key}: ${have.rows} ${unit}, sha256 ${have.sha256.slice(0, 12)}…; manifest: ${want[unit]}, ${want.sha256.slice(0, 12)}…`,
        );
    }
    for (const key of got.keys()) if (!Object.hasOwn(listed, key)) problems.push(`${what}${key}: not in the manifest`);
  };
  compare('', tables, value.tables, 'rows');
  compare('object ', objects, value.objects, 'bytes');
  if (problems.length) throw errors.checksum(problems.slice(0, 20));
}

/** What a table's rows are checked for, and which of their fields are kept for it. */
interface RowRule {
  wanted: number[];
  check: (fields: readonly (string | null | undefined)[]) => void;
}

/** The checks of one archive; run by checkArchive over its frames. */
class ArchiveCheck {
  readonly tables: CheckedTable[] = [];
  readonly objects: ObjectStart[] = [];
  private readonly digests = new Map<string, Digest>();
  private readonly objectDigests = new Map<string, Digest>();
  /** Per parent table of a parent-scoped one, the keys of the archive's rows. */
  private readonly parentKeys = new Map<string, Set<string>>();
  /** The archive's datasets: id -> table_name. */
  private readonly datasets = new Map<string, string | null>();
  /** `bucket/name` of every object the archive's rows name by URL. */
  private readonly named = new Set<string>();
  /** `bucket/name` -> version of the storage.objects rows. */
  private readonly objectRows = new Map<string, string>();
  private readonly seen = new Set<string>();
  /** The position in TABLES of the last map table read: map tables come in the map's order. */
  private mapAt = -1;
  private auctionRows = 0;

  constructor(
    readonly header: ArchiveHeader,
    private readonly passphrase: string | undefined,
  ) {
    for (const entry of TABLES) if (entry.scope.kind === 'parent') this.parentKeys.set(entry.scope.parent, new Set());
  }

  /** A T or S frame: which table, checked; returns the table and the rule its rows follow. */
  startTable(value: unknown, sealed: boolean): { table: CheckedTable; rule: RowRule } {
    if (!isObject(value) || !isString(value.table)) throw errors.notAnArchive('a table start names no table');
    const name = value.table;
    if (this.seen.has(name)) throw errors.notAnArchive(`${name} comes twice`);
    this.seen.add(name);
    if (Object.hasOwn(SHARED_COLUMNS, name) && !sealed) {
      if (this.mapAt >= 0) throw errors.notAnArchive(`${name} after the auction's tables`);
      const columns = checkColumns(name, value.columns, COLUMN);
      if (columns.join() !== SHARED_COLUMNS[name]!.map(([c]) => c).join())
        throw errors.notAnArchive(`${name} has the columns ${shown(columns)}`);
      return { table: { table: name, kind: 'shared', columns, rows: 0 }, rule: { wanted: [], check: () => {} } };
    }
    const at = TABLES.findIndex((e) => e.table === name);
    if (at >= 0) {
      const entry = TABLES[at]!;
      if (at <= this.mapAt) throw errors.notAnArchive(`${name} out of the map's order`);
      if ((entry.role === 'secret') !== sealed)
        throw errors.notAnArchive(sealed ? `${name} cannot come sealed` : `${name} must come sealed`);
      if (sealed && !this.header.secrets) throw errors.notAnArchive(`sealed ${name} in an archive without secrets`);
      this.mapAt = at;
      const columns = checkColumns(name, value.columns, COLUMN);
      return { table: { table: entry.table, kind: 'map', columns, rows: 0 }, rule: this.rowRule(entry, columns) };
    }
    if (name.startsWith(`${DATASET_SCHEMA}.`) && !sealed && Object.hasOwn(value, 'dataset_id'))
      return {
        table: this.datasetTable(name.slice(DATASET_SCHEMA.length + 1), value),
        rule: { wanted: [], check: () => {} },
      };
    throw errors.unknownTable(name);
  }

  private datasetTable(name: string, value: Record<string, unknown>): CheckedTable {
    const full = `${DATASET_SCHEMA}.${name}`;
    // Right after public.datasets, as the exporter writes them: its rows say which tables may follow.
    if (TABLES[this.mapAt]?.table !== 'public.datasets')
      throw errors.notAnArchive(`${shown(full)} not after public.datasets`);
    const id = value.dataset_id;
    if (!isString(id) || !UUID.test(id) || !this.datasets.has(id))
      throw errors.notAnArchive(`${shown(full)} belongs to no dataset of the archive`);
    if (!IDENTIFIER.test(name) || this.datasets.get(id) !== name)
      throw errors.notAnArchive(`${shown(full)} is not the table of dataset ${id}`);
    const columns = checkColumns(full, value.columns, IDENTIFIER);
    const types = value.types;
    if (!Array.isArray(types) || types.length !== columns.length)
      throw errors.notAnArchive(`${full} has not one type per column`);
    return {
      table: full,
      kind: 'dataset',
      columns,
      types: types.map((t, i) => {
        if (!isString(t) || !Object.hasOwn(DATASET_TYPES, t)) throw errors.unsupportedType(full, columns[i]!, t);
        return DATASET_TYPES[t]!;
      }),
      dataset_id: id,
      rows: 0,
    };
  }

  /** The rule of a map table's rows: inside the header's auction, and what they say about parents and objects. */
  private rowRule(entry: TableEntry, columns: string[]): RowRule {
    const auctionId = this.header.auction.id;
    const index = (column: string, required: boolean) => {
      const i = columns.indexOf(column);
      if (i < 0 && required) throw errors.notAnArchive(`${entry.table} has no column ${column}`);
      return i;
    };
    const checks: ((get: (i: number) => string | null | undefined) => void)[] = [];
    const wanted: number[] = [];
    const want = (column: string, required = true) => {
      const i = index(column, required);
      if (i >= 0 && !wanted.includes(i)) wanted.push(i);
      return i;
    };
    const scope = entry.scope;
    if (scope.kind === 'self') {
      const id = want('id');
      checks.push((get) => {
        this.auctionRows++;
        if (get(id) !== auctionId) throw errors.foreignRows(entry.table, `an auction ${shown(get(id))}`);
      });
    } else if (scope.kind === 'auction') {
      const a = want('auction_id');
      checks.push((get) => {
        if (get(a) !== auctionId) throw errors.foreignRows(entry.table, `auction_id ${shown(get(a))}`);
      });
    } else if (scope.kind === 'parent') {
      const c = want(scope.column);
      const keys = this.parentKeys.get(scope.parent)!;
      checks.push((get) => {
        const v = get(c);
        if (v == null || !keys.has(v))
          throw errors.foreignRows(entry.table, `${scope.column} ${shown(v)} is no row of ${scope.parent} in it`);
      });
    }
    for (const child of TABLES)
      if (child.scope.kind === 'parent' && child.scope.parent === entry.table) {
        const k = want(child.scope.parentColumn);
        const keys = this.parentKeys.get(entry.table)!;
        checks.push((get) => {
          const v = get(k);
          if (v != null) keys.add(v);
        });
      }
    for (const url of OBJECT_URL_COLUMNS)
      if (url.table === entry.table) {
        const u = want(url.column, false);
        // An image message's content is the image's URL.
        const type = url.imagesOnly ? want('message_type', false) : -1;
        if (u >= 0 && (!url.imagesOnly || type >= 0))
          checks.push((get) => (!url.imagesOnly || get(type) === 'image') && this.name(get(u)));
      }
    if (entry.table === 'public.datasets') {
      const [id, table] = [want('id'), want('table_name')];
      checks.push((get) => {
        const v = get(id);
        if (v != null) this.datasets.set(v, get(table) ?? null);
      });
    }
    if (entry.table === 'storage.objects') {
      const [bucket, name, version] = [want('bucket_id'), want('name'), want('version')];
      checks.push((get) => {
        const key = `${get(bucket)}/${get(name)}`;
        this.allowObject(key, get(name));
        this.objectRows.set(key, String(get(version)));
      });
    }
    return {
      wanted,
      check: (fields) => {
        const get = (i: number) => fields[wanted.indexOf(i)];
        for (const check of checks) check(get);
      },
    };
  }

  private name(url: string | null | undefined): void {
    const key = url ? storageUrlObject(url) : undefined;
    if (key) this.named.add(key);
  }

  /** An object travels only when a row of the auction names it, or it lies in the auction's own folder. */
  private allowObject(key: string, name: string | null | undefined): void {
    if (!this.named.has(key) && !name?.startsWith(`${this.header.auction.id}/`)) throw errors.unnamedObject(key);
  }

  endTable(table: CheckedTable, rows: CopyTextRows, hash: Hash): void {
    try {
      rows.end();
    } catch (error) {
      throw errors.badRows(table.table, (error as Error).message);
    }
    table.rows = rows.rows;
    this.digests.set(table.table, { rows: rows.rows, sha256: hash.digest('hex') });
    this.tables.push(table);
  }

  startObject(value: unknown): ObjectStart {
    if (this.mapAt >= 0) throw errors.notAnArchive("an object after the auction's tables");
    const start = checkObjectStart(value);
    if (this.objectDigests.has(`${start.bucket_id}/${start.name}`))
      throw errors.notAnArchive(`object ${shown(start.name)} comes twice`);
    return start;
  }

  endObject(start: ObjectStart, bytes: number, hash: Hash): void {
    this.objectDigests.set(`${start.bucket_id}/${start.name}`, { rows: bytes, sha256: hash.digest('hex') });
    this.objects.push(start);
  }

  openSealed(value: unknown): Buffer {
    if (!isObject(value) || !isObject(value.box)) throw errors.notAnArchive('an S frame holds no sealed box');
    if (this.passphrase === undefined) throw errors.passphraseNeeded();
    return open(value.box as unknown as SealedBox, this.passphrase);
  }

  finish(manifest: unknown): void {
    checkManifest(manifest, this.digests, this.objectDigests);
    // An exporter given a passphrase always seals the secret tables (even with no rows).
    for (const entry of TABLES)
      if (entry.role === 'secret' && this.header.secrets && !this.seen.has(entry.table))
        throw errors.notAnArchive(`the header says secrets, but ${entry.table} is not in it`);
    if (this.auctionRows !== 1)
      throw errors.foreignRows('public.auctions', `${this.auctionRows} rows, not the header's auction alone`);
    // Every carried object has its row and every row its bytes, and each is one the auction's rows name.
    for (const o of this.objects) {
      const key = `${o.bucket_id}/${o.name}`;
      this.allowObject(key, o.name);
      if (this.objectRows.get(key) !== o.version) throw errors.notAnArchive(`object ${shown(key)} has no row`);
    }
    for (const key of this.objectRows.keys())
      if (!this.objectDigests.has(key)) throw errors.notAnArchive(`the row of object ${shown(key)} has no bytes`);
  }
}

/** The first pass: reads the whole archive and checks it (see the header comment); throws an AuctionDataError. */
export async function checkArchive(input: Readable, options: CheckOptions): Promise<CheckedArchive> {
  const reader = new ArchiveReader(input, options.maxBytes ?? DEFAULT_MAX_BYTES);
  const frames = reader.frames();
  try {
    const check = new ArchiveCheck(await readHeader(frames), options.passphrase);
    let manifest: unknown;
    for (;;) {
      const next = await frames.next();
      if (next.done) break;
      const frame = next.value;
      if (manifest !== undefined) throw errors.notAnArchive('frames after the manifest');
      if (frame.type === 'T' || frame.type === 'S') {
        const value = parseJson(frame);
        const { table, rule } = check.startTable(value, frame.type === 'S');
        const rows = new CopyTextRows(table.columns.length, rule.wanted, rule.check);
        const hash = createHash('sha256');
        const feed = (bytes: Buffer) => {
          hash.update(bytes);
          try {
            rows.push(bytes);
          } catch (error) {
            if (error instanceof AuctionDataError) throw error;
            throw errors.badRows(table.table, (error as Error).message);
          }
        };
        if (frame.type === 'S') {
          table.opened = check.openSealed(value);
          feed(table.opened);
        } else
          for (;;) {
            const data = await frames.next();
            if (data.done) throw errors.notAnArchive(`it ends inside ${table.table}`);
            if (data.value.type === 'E') break;
            if (data.value.type !== 'D') throw errors.notAnArchive(`a ${data.value.type} frame inside ${table.table}`);
            feed(data.value.body);
          }
        check.endTable(table, rows, hash);
      } else if (frame.type === 'O') {
        const start = check.startObject(parseJson(frame));
        const hash = createHash('sha256');
        let bytes = 0;
        for (;;) {
          const data = await frames.next();
          if (data.done) throw errors.notAnArchive(`it ends inside object ${shown(start.name)}`);
          if (data.value.type === 'E') break;
          if (data.value.type !== 'B') throw errors.notAnArchive(`a ${data.value.type} frame inside an object`);
          hash.update(data.value.body);
          bytes += data.value.body.length;
        }
        check.endObject(start, bytes, hash);
      } else if (frame.type === 'M') manifest = parseJson(frame);
      else throw errors.notAnArchive(`an unexpected ${frame.type} frame`);
    }
    if (manifest === undefined) throw errors.notAnArchive('no manifest (truncated?)');
    check.finish(manifest);
    return { header: check.header, tables: check.tables, objects: check.objects, sha256: reader.sha256() };
  } finally {
    await frames.return(undefined);
  }
}
