// The archive is untrusted input (issue 52): hostile archives built from a real export are refused, each with one
// AuctionDataError, before any SQL runs on their content, and leave no row, object or spool file behind; another
// tenant's rows stay byte-identical. The last test throws generated damage and hostile content at the import.
import { randomUUID } from 'node:crypto';
import { createWriteStream, existsSync, readdirSync, writeFileSync } from 'node:fs';
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

  it('refuses an object whose version is stored here (another tenant’s bytes under the archive’s name)', async () => {
    const [{ version }] = await target.db.sql<{ version: string }[]>`
      select version from storage.objects where name like 'other/%'`;
    const at = plain.findIndex((f) => f.type === 'O');
    const hostile = withRows(
      withJson<object>(plain, at, (o) => ({ ...o, version })),
      'storage.objects',
      (rows, columns) => rows.map((row) => setField(row, columns, 'version', version!)),
    );
    const error = await refused(await writeArchive(file(), hostile));
    expect(error.code).toBe('conflicting_ids');
    expect(error.message).toContain('versions exist here');
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
    writeFileSync(path, gzipSync(bytes));
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

describe('generated damage and hostile content', () => {
  const AUCTION_TABLES = ['public.auction_members', 'public.locations', 'public.lot_submissions', 'public.channels'];

  /** Positions of frame heads and of D, B and M bodies: a change there cannot leave a valid archive. */
  function fragile(frames: RawFrame[]): number[] {
    const at: number[] = [];
    let offset = 0;
    for (const f of frames) {
      for (let i = 0; i < 5; i++) at.push(offset + i);
      if ('DBM'.includes(f.type)) for (let i = 0; i < f.body.length; i += 7) at.push(offset + 5 + i);
      offset += 5 + f.body.length;
    }
    return at;
  }

  const tables = (frames: RawFrame[]) => frames.flatMap((f, i) => (f.type === 'T' ? [i] : []));

  type Case = { what: string; write: (path: string) => Promise<unknown>; passphrase?: string };
  const hostile = (what: string, frames: RawFrame[], remanifest = true): Case => ({
    what,
    write: (path) => writeArchive(path, frames, remanifest),
  });

  const damage = (): fc.Arbitrary<Case> => {
    const positions = fragile(plain);
    return fc.oneof(
      fc.nat().map((k) => ({
        what: `archive truncated at ${k}`,
        write: async (path: string) => {
          const raw = await frameBytes(plain);
          writeFileSync(path, gzipSync(raw.subarray(0, k % raw.length)));
        },
      })),
      fc.nat().map((k) => ({
        what: `gzip truncated at ${k}`,
        write: async (path: string) => {
          const gz = gzipSync(await frameBytes(plain));
          writeFileSync(path, gz.subarray(0, k % gz.length));
        },
      })),
      fc.tuple(fc.constantFrom(...positions), fc.integer({ min: 1, max: 255 })).map(([at, x]) => ({
        what: `byte ${at} xor ${x}`,
        write: async (path: string) => {
          const raw = Buffer.from(await frameBytes(plain));
          raw[at]! ^= x;
          writeFileSync(path, gzipSync(raw));
        },
      })),
      fc
        .tuple(
          fc.integer({ min: 0, max: plain.length }),
          fc.constantFrom(...'HTDEOBSMXZ\0'),
          fc.uint8Array({ minLength: 1, maxLength: 64 }),
        )
        .map(([at, type, body]) => ({
          what: `a ${JSON.stringify(type)} frame of ${body.length} bytes at ${at}`,
          write: (path: string) =>
            writeArchive(path, [...plain.slice(0, at), { type, body: Buffer.from(body) }, ...plain.slice(at)], false),
        })),
    );
  };

  const hostileJson = (): fc.Arbitrary<Case> => {
    const hostileType = fc.oneof(
      fc.string(),
      fc.constantFrom('uuid); drop table public.auctions; --', 'text default pg_sleep(10)', 'TEXT', 'int8', 'json'),
    );
    const t = fc.oneof(
      fc.tuple(fc.constantFrom(...tables(plain)), fc.jsonValue()).map(([at, v]) =>
        hostile(
          `T ${at} = ${JSON.stringify(v)}`,
          withJson(plain, at, () => v),
        ),
      ),
      fc.tuple(fc.constantFrom(...tables(plain)), fc.string()).map(([at, table]) =>
        hostile(
          `T ${at} table ${table}`,
          withJson<object>(plain, at, (s) => ({ ...s, table })),
        ),
      ),
      // Columns the table does not have (a dataset table's may be renamed at will: it is made from the archive).
      fc
        .tuple(
          fc.constantFrom(...tables(plain).filter((at) => at !== datasetTable(plain))),
          fc.array(fc.string(), { minLength: 1, maxLength: 4 }),
        )
        .filter(([at, columns]) => columns.some((c) => !bodyOf<{ columns: string[] }>(plain[at]!).columns.includes(c)))
        .map(([at, columns]) =>
          hostile(
            `T ${at} columns ${JSON.stringify(columns)}`,
            withJson<object>(plain, at, (s) => ({ ...s, columns })),
          ),
        ),
      fc.tuple(hostileType, fc.nat(1)).map(([type, i]) =>
        hostile(
          `dataset type ${i} ${JSON.stringify(type)}`,
          withJson<{ types: string[] }>(plain, datasetTable(plain), (s) => ({
            ...s,
            types: s.types.map((old, k) => (k === i ? type : old)),
          })),
        ),
      ),
    );
    const h = fc
      .oneof(
        fc.record({ magic: fc.string() }),
        fc.record({
          version: fc.oneof(
            fc.integer().filter((v) => v !== 1),
            fc.string(),
          ),
        }),
        fc.record({ auction: fc.oneof(fc.jsonValue(), fc.constant({ id: '', slug: 'x', name: 'x' })) }),
        fc.constant({ auction: 'victim' }),
        fc.record({ secrets: fc.jsonValue().filter((v) => typeof v !== 'boolean') }),
      )
      .map((edit: Record<string, unknown>) =>
        hostile(
          `H ${JSON.stringify(edit)}`,
          withJson<{ auction: object }>(plain, 0, (header) =>
            edit.auction === 'victim'
              ? { ...header, auction: { ...header.auction, id: victim } }
              : { ...header, ...edit },
          ),
        ),
      );
    const m = fc
      .jsonValue()
      .map((v) => hostile(`M ${JSON.stringify(v)}`, [...plain.slice(0, -1), json('M', v)], false));
    const s = fc
      .tuple(fc.constantFrom('kdf', 'N', 'r', 'p', 'salt', 'iv', 'tag', 'data'), fc.jsonValue())
      .map(([key, value]): Case => {
        const at = sealed.findIndex((f) => f.type === 'S');
        const frames = withJson<{ box: Record<string, unknown> }>(sealed, at, (x) => ({
          ...x,
          box: { ...x.box, [key]: JSON.stringify(value) === JSON.stringify(x.box[key]) ? `${String(value)}x` : value },
        }));
        return { ...hostile(`box.${key} ${JSON.stringify(value)}`, frames), passphrase: PASSPHRASE };
      });
    return fc.oneof(t, h, m, s);
  };

  const foreignRows = (): fc.Arbitrary<Case> =>
    fc
      .tuple(
        fc.constantFrom(...AUCTION_TABLES),
        fc.nat(),
        fc.oneof(
          fc.constant(() => victim),
          fc.constant(() => randomUUID()),
          fc.constant(() => attacker.toUpperCase()),
        ),
      )
      .map(([table, k, id]) => ({
        what: `${table} row ${k}`,
        write: (path: string) =>
          writeArchive(
            path,
            withRows(plain, table, (rows, columns) =>
              rows.map((row, i) => (i === k % rows.length ? setField(row, columns, 'auction_id', id()) : row)),
            ),
          ),
      }));

  it('refuses damaged and hostile archives with an AuctionDataError, writing nothing', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(damage(), hostileJson(), foreignRows()), async (c) => {
        const path = file();
        await c.write(path);
        await refused(path, { passphrase: c.passphrase });
      }),
      { numRuns: Number(process.env.ARCHIVE_FUZZ_RUNS) || 60, timeout: 8000 },
    );
    expect(await manifestOf(target, victim, 'x')).toEqual(victimManifest);
  }, 60_000);
});

// Last: it imports the attacker's auction into the target, which every refusal above expects not to be there.
describe('shared rows', () => {
  it('refuses a "default" category whose id is another auction’s own category', async () => {
    const id = randomUUID();
    await target.db.sql`insert into public.defect_categories (id, auction_id, name) values (${id}, ${victim}, 'Ours')`;
    const hostile = withRows(plain, 'shared.default_categories', (rows) => [...rows, `${id}\tOurs`]);
    const error = await refused(await writeArchive(file(), hostile));
    expect([error.code, error.message]).toEqual(['foreign_rows', expect.stringContaining(id)]);
    const [row] = await target.db.sql`select auction_id, name from public.defect_categories where id = ${id}`;
    expect(row).toEqual({ auction_id: victim, name: 'Ours' });
  });

  it('a default category this instance lacks comes in as the auction’s own, not as every tenant’s', async () => {
    const id = randomUUID();
    const withCategory = withRows(plain, 'shared.default_categories', (rows) => [...rows, `${id}\tArchive-only`]);
    await attempt(await writeArchive(file(), withCategory));
    const rows = await target.db.sql`select auction_id from public.defect_categories where name = 'Archive-only'`;
    expect(rows).toEqual([{ auction_id: attacker }]);
  });
});
