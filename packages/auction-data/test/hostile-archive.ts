// Test support: an archive as a list of frames to edit (rows, table starts, headers) and write back with FrameWriter
// and gzip, its manifest recomputed to match, so that hostile content passes the digests and reaches the deeper
// checks. Also a snapshot of a whole database (rows per table) and its stored objects, to show nothing was written.
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { PassThrough } from 'node:stream';
import { gunzipSync, gzipSync } from 'node:zlib';
import { CHUNK, FrameWriter } from '../src/archive-frames.js';
import type { Manifest } from '../src/index.js';
import type { Instance } from './support.js';

export interface RawFrame {
  type: string;
  body: Buffer;
}

/** The frames of an archive file (small test archives: read whole). */
export function readArchive(file: string): RawFrame[] {
  const raw = gunzipSync(readFileSync(file));
  const frames: RawFrame[] = [];
  for (let at = 0; at < raw.length; ) {
    const length = raw.readUInt32BE(at + 1);
    frames.push({ type: raw.toString('latin1', at, at + 1), body: raw.subarray(at + 5, at + 5 + length) });
    at += 5 + length;
  }
  return frames;
}

/** The bytes of frames, framed as FrameWriter does (any type letter, lengths as they are). */
export async function frameBytes(frames: RawFrame[]): Promise<Buffer> {
  const sink = new PassThrough();
  const parts: Buffer[] = [];
  sink.on('data', (b: Buffer) => parts.push(b));
  const writer = new FrameWriter(sink);
  for (const f of frames) await writer.write(f.type as 'D', f.body);
  sink.end();
  return Buffer.concat(parts);
}

export const json = (type: string, value: unknown): RawFrame => ({ type, body: Buffer.from(JSON.stringify(value)) });
export const bodyOf = <T>(frame: RawFrame): T => JSON.parse(frame.body.toString('utf8')) as T;

/** A start frame's fields; a hostile one may hold any bytes or JSON (null, a number), keyed then by what it holds. */
function startOf(f: RawFrame): { table?: string; bucket_id?: string; name?: string } {
  try {
    const value: unknown = bodyOf(f);
    return typeof value === 'object' && value !== null ? value : {};
  } catch {
    return {};
  }
}

/** The manifest that matches the frames' tables and objects (sealed tables keep their entry of `previous`). */
export function manifestFor(frames: RawFrame[], previous: Manifest): Manifest {
  const manifest: Manifest = { tables: {}, objects: {} };
  let current: { key: string; object: boolean; hash: ReturnType<typeof createHash>; n: number } | undefined;
  for (const f of frames) {
    if (f.type === 'T' || f.type === 'O') {
      const start = startOf(f);
      const object = f.type === 'O';
      current = {
        key: object ? `${start.bucket_id}/${start.name}` : String(start.table),
        object,
        hash: createHash('sha256'),
        n: 0,
      };
    } else if ((f.type === 'D' || f.type === 'B') && current) {
      current.hash.update(f.body);
      current.n += current.object ? f.body.length : f.body.filter((b) => b === 10).length;
    } else if (f.type === 'E' && current) {
      const sha256 = current.hash.digest('hex');
      if (current.object) manifest.objects[current.key] = { bytes: current.n, sha256 };
      else manifest.tables[current.key] = { rows: current.n, sha256 };
      current = undefined;
    } else if (f.type === 'S') {
      const table = String(startOf(f).table);
      if (previous.tables[table]) manifest.tables[table] = previous.tables[table]!;
    }
  }
  return manifest;
}

/** Writes the frames as an archive; with `remanifest`, its last M frame replaced by one that matches. */
export async function writeArchive(file: string, frames: RawFrame[], remanifest = true): Promise<string> {
  let out = frames;
  if (remanifest) {
    const at = frames.findLastIndex((f) => f.type === 'M');
    const previous = at >= 0 ? bodyOf<Manifest>(frames[at]!) : { tables: {}, objects: {} };
    out = [...frames.filter((f) => f.type !== 'M'), json('M', manifestFor(frames, previous))];
  }
  writeFileSync(file, gzipSync(await frameBytes(out)));
  return file;
}

/** Index of the T frame of `table`. */
export function tableAt(frames: RawFrame[], table: string): number {
  const at = frames.findIndex((f) => f.type === 'T' && bodyOf<{ table: string }>(f).table === table);
  if (at < 0) throw new Error(`no table ${table} in the archive`);
  return at;
}

/** A table's columns and COPY rows (lines without their newline). */
export function rowsOf(frames: RawFrame[], table: string): { columns: string[]; rows: string[] } {
  const at = tableAt(frames, table);
  const columns = bodyOf<{ columns: string[] }>(frames[at]!).columns;
  let text = '';
  for (let i = at + 1; frames[i]!.type === 'D'; i++) text += frames[i]!.body.toString('utf8');
  return { columns, rows: text.split('\n').slice(0, -1) };
}

/** The frames with the table's rows replaced (D frames of at most CHUNK bytes). */
export function withRows(frames: RawFrame[], table: string, edit: (rows: string[], columns: string[]) => string[]) {
  const at = tableAt(frames, table);
  const { columns, rows } = rowsOf(frames, table);
  let end = at + 1;
  while (frames[end]!.type === 'D') end++;
  const text = Buffer.from(
    edit(rows, columns)
      .map((r) => `${r}\n`)
      .join(''),
  );
  const data: RawFrame[] = [];
  for (let i = 0; i < text.length; i += CHUNK) data.push({ type: 'D', body: text.subarray(i, i + CHUNK) });
  return [...frames.slice(0, at + 1), ...data, ...frames.slice(end)];
}

/** A row's field, by column name, replaced. */
export function setField(row: string, columns: string[], column: string, value: string): string {
  const fields = row.split('\t');
  fields[columns.indexOf(column)] = value;
  return fields.join('\t');
}

export const field = (row: string, columns: string[], column: string) => row.split('\t')[columns.indexOf(column)]!;

/** The frames with one frame's JSON body edited. */
export function withJson<T>(frames: RawFrame[], at: number, edit: (value: T) => unknown): RawFrame[] {
  const copy = [...frames];
  copy[at] = json(frames[at]!.type, edit(bodyOf<T>(frames[at]!)));
  return copy;
}

/** Rows per table of every table of the database, and the object keys of its backend. */
export async function snapshot(i: Instance): Promise<{ rows: Record<string, number>; keys: string[] }> {
  const counts = await i.db.sql<{ name: string; n: number }[]>`
    select format('%I.%I', table_schema, table_name) as name,
      (xpath('/row/n/text()', query_to_xml(format('select count(*) as n from %I.%I', table_schema, table_name),
        false, true, '')))[1]::text::int as n
    from information_schema.tables
    where table_type = 'BASE TABLE' and table_schema not in ('pg_catalog', 'information_schema')
    order by 1`;
  return {
    rows: Object.fromEntries(counts.map((c) => [c.name, c.n])),
    keys: (await i.backend.keys()).sort(),
  };
}
