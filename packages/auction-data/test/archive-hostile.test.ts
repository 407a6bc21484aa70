// The archive is untrusted input (issue 52): hostile archives built from a real export are refused, each with one
// AuctionDataError, before any SQL runs on their content, and leave no row, object or spool file behind; another
// tenant's rows stay byte-identical. The last test throws generated damage and hostile content at the import.
import { randomUUID } from 'node:crypto';
import { createWriteStream, existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuctionDataError, exportAuction, importAuction, type Manifest } from '../src/index.js';
import {
  bodyOf,
  field,
  frameBytes,
  json,
  type RawFrame,
  readArchive,
  rowsOf,
  setField,
  snapshot,
  tableAt,
  withJson,
  withRows,
  writeArchive,
} from './hostile-archive.js';
import { closeInstance, createInstance, manifestOf, seedSource, type Instance, type Seeded } from './support.js';

let source: Instance;
let target: Instance;
let seeded: Seeded;
let plain: RawFrame[];
let sealed: RawFrame[];
let victim: string;
let attacker: string;
let victimManifest: Manifest;
const PASSPHRASE = 'correct horse battery staple';
let n = 0;
const file = () => join(source.root, `hostile-${n++}.archive`);

const attempt = (path: string, options: { passphrase?: string; maxBytes?: number } = {}) =>
  importAuction({
    url: target.db.ownerUrl,
    backend: target.backend,
    spoolDir: target.spoolDir,
    file: path,
    ...options,
  });

/** Refused with an AuctionDataError, with nothing written: no row, no object, no spool file, the victim intact. */
async function refused(path: string, options: { passphrase?: string; maxBytes?: number } = {}) {
  const before = await snapshot(target);
  const error = await attempt(path, options).then(
    () => {
      throw new Error('expected a refusal, the archive was imported');
    },
    (e: unknown) => e,
  );
  if (!(error instanceof AuctionDataError)) throw error;
  expect(await snapshot(target)).toEqual(before);
  expect(existsSync(target.spoolDir) ? readdirSync(target.spoolDir) : []).toEqual([]);
  return error;
}

async function exported(auction: string, passphrase?: string): Promise<string> {
  const path = file();
  await exportAuction({
    sql: source.db.sql,
    backend: source.backend,
    auction,
    out: createWriteStream(path),
    secretsPassphrase: passphrase,
  });
  return path;
}

beforeAll(async () => {
  [source, target] = await Promise.all([createInstance(), createInstance()]);
  seeded = await seedSource(source);
  [attacker, victim] = [seeded.auctions[0]!.id, seeded.auctions[1]!.id];
  // The victim tenant lives in the target; the attacker's archive is the other auction's export, edited.
  await importAuction({
    url: target.db.ownerUrl,
    backend: target.backend,
    spoolDir: target.spoolDir,
    file: await exported(victim),
  });
  victimManifest = await manifestOf(target, victim, 'x');
  plain = readArchive(await exported(attacker));
  sealed = readArchive(await exported(attacker, PASSPHRASE));
}, 180_000);

afterAll(async () => {
  await closeInstance(source);
  await closeInstance(target);
});

const datasetTable = (frames: RawFrame[]) =>
  frames.findIndex((f) => f.type === 'T' && bodyOf<{ table: string }>(f).table.startsWith('reporting_data.'));

describe('finding 1: nothing of the archive is spliced into SQL', () => {
  it('refuses a dataset column type that runs a shell command (copy … to program), running nothing', async () => {
    const marker = `/tmp/auction-archive-${randomUUID()}`;
    const type = `text); copy (select 1) to program 'touch ${marker}'; create temp table z (a text`;
    const hostile = withJson<{ types: string[] }>(plain, datasetTable(plain), (t) => ({
      ...t,
      types: [type, 'bigint'],
    }));
    const error = await refused(await writeArchive(file(), hostile));
    expect(error.code).toBe('unsupported_type');
    expect(existsSync(marker)).toBe(false);
  });

  it('refuses a dataset column type with a lo_export default, writing no file', async () => {
    const marker = `/tmp/auction-archive-${randomUUID()}`;
    const type = `text, z integer default lo_export(lo_from_bytea(0, '\\x41'), '${marker}')`;
    const hostile = withJson<{ types: string[] }>(plain, datasetTable(plain), (t) => ({
      ...t,
      types: [type, 'bigint'],
    }));
    const error = await refused(await writeArchive(file(), hostile));
    expect(error.code).toBe('unsupported_type');
    expect(existsSync(marker)).toBe(false);
  });

  it('refuses a column name the table does not have, and a dataset column name that is not an identifier', async () => {
    const at = tableAt(plain, 'public.locations');
    const rename = (to: string) =>
      withJson<{ columns: string[] }>(plain, at, (t) => ({
        ...t,
        columns: t.columns.map((c) => (c === 'name' ? to : c)),
      }));
    expect((await refused(await writeArchive(file(), rename('nickname')))).code).toBe('unknown_column');
    expect((await refused(await writeArchive(file(), rename('name") from pg_authid --')))).code).toBe('not_an_archive');
    const odd = withJson<{ columns: string[] }>(plain, datasetTable(plain), (t) => ({ ...t, columns: ['a b', 'c'] }));
    expect((await refused(await writeArchive(file(), odd))).code).toBe('not_an_archive');
  });
});

describe('finding 2: rows outside the header’s auction', () => {
  it('refuses an auction_members row naming another tenant’s auction (the attacker as its owner)', async () => {
    const hostile = withRows(plain, 'public.auction_members', (rows, columns) => {
      let row = setField(rows[0]!, columns, 'id', randomUUID());
      row = setField(row, columns, 'auction_id', victim);
      return [...rows, setField(row, columns, 'role', 'owner')];
    });
    const error = await refused(await writeArchive(file(), hostile));
    expect(error.code).toBe('foreign_rows');
    expect(error.message).toContain('public.auction_members');
    expect(await manifestOf(target, victim, 'x')).toEqual(victimManifest);
  });

  it('refuses a locations row of another auction', async () => {
    const hostile = withRows(plain, 'public.locations', (rows, columns) => [
      ...rows,
      setField(setField(rows[0]!, columns, 'id', randomUUID()), columns, 'auction_id', victim),
    ]);
    const error = await refused(await writeArchive(file(), hostile));
    expect(error.code).toBe('foreign_rows');
    expect(error.message).toContain('public.locations');
  });

  it('refuses a second public.auctions row', async () => {
    const hostile = withRows(plain, 'public.auctions', (rows, columns) => [
      ...rows,
      setField(setField(rows[0]!, columns, 'id', randomUUID()), columns, 'slug', `second-${n}`),
    ]);
    expect((await refused(await writeArchive(file(), hostile))).code).toBe('foreign_rows');
  });

  it('refuses an auctions row whose id is not the header’s', async () => {
    const hostile = withJson<{ auction: { id: string } }>(plain, 0, (h) => ({
      ...h,
      auction: { ...h.auction, id: randomUUID() },
    }));
    expect((await refused(await writeArchive(file(), hostile))).code).toBe('foreign_rows');
  });

  it('refuses a carried object that no row of the auction names', async () => {
    const at = plain.findIndex((f) => f.type === 'O');
    const hostile = withJson<{ name: string }>(plain, at, (o) => ({ ...o, name: 'someone-else/1700000000_x.png' }));
    expect((await refused(await writeArchive(file(), hostile))).code).toBe('unnamed_object');
  });
});

describe('finding 6: sizes, streams, seals, routes and tables', () => {
  it('refuses a frame announcing a huge length, by the cap', async () => {
    const head = Buffer.alloc(5);
    head.write('T', 0, 'latin1');
    head.writeUInt32BE(40 * 1024 * 1024, 1);
    const path = file();
    const bytes = Buffer.concat([await frameBytes([plain[0]!]), head, Buffer.alloc(40 * 1024, 0x61)]);
    (await import('node:fs')).writeFileSync(path, gzipSync(bytes));
    const error = await refused(path);
    expect(error.message).toMatch(/a T frame of 41943040 bytes is longer than the \d+ bytes allowed/);
  });

  it('refuses a gzip bomb of zero bytes without crashing, and one past the size cap', async () => {
    const at = tableAt(plain, 'public.auctions');
    const zeros = { type: 'D', body: Buffer.alloc(64 * 1024) };
    const bomb = [...plain.slice(0, at + 1), ...Array.from({ length: 1000 }, () => zeros)];
    const error = await refused(await writeArchive(file(), bomb, false));
    expect(error.code).toBe('not_an_archive');
    const text = { type: 'D', body: Buffer.alloc(64 * 1024, 0x61) };
    const big = [...plain.slice(0, at + 1), ...Array.from({ length: 200 }, () => text)];
    const capped = await refused(await writeArchive(file(), big, false), { maxBytes: 4 * 1024 * 1024 });
    expect(capped.message).toContain('the archive decompresses past 4194304 bytes');
  });

  it('refuses scrypt parameters other than the format’s without trying them', async () => {
    const at = sealed.findIndex((f) => f.type === 'S');
    const hostile = withJson<{ box: Record<string, unknown> }>(sealed, at, (s) => ({
      ...s,
      box: { ...s.box, N: 2 ** 31 },
    }));
    const error = await refused(await writeArchive(file(), hostile), { passphrase: PASSPHRASE });
    expect(error.code).toBe('unsupported_seal');
  });

  it('refuses a table that is not in the map, naming it', async () => {
    const at = tableAt(plain, 'public.auctions');
    const users = rowsOf(plain, 'shared.users');
    const extra = [
      json('T', { table: 'public.super_admins', columns: ['user_id'] }),
      { type: 'D', body: Buffer.from(`${field(users.rows[0]!, users.columns, 'id')}\n`) },
      { type: 'E', body: Buffer.alloc(0) },
    ];
    const hostile = [...plain.slice(0, at), ...extra, ...plain.slice(at)];
    const error = await refused(await writeArchive(file(), hostile));
    expect(error.code).toBe('unknown_table');
    expect(error.message).toContain('public.super_admins');
  });
});
