// Export and import of one auction between two databases: the map covers every table the catalog holds auction
// rows in; a round trip keeps every row and object byte; damaged archives, taken ids and wrong passphrases are
// refused with nothing imported; an export of one auction carries nothing of another.
import { createWriteStream, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AuctionDataError,
  exportAuction,
  importAuction,
  TABLES,
  uncoveredTables,
  type ImportResult,
} from '../src/index.js';
import { closeInstance, createInstance, manifestOf, seedSource, type Instance, type Seeded } from './support.js';

let source: Instance;
let target: Instance;
let seeded: Seeded;
let archive: string;
let imported: ImportResult;
const PASSPHRASE = 'correct horse battery staple';

const runImport = (file: string, passphrase: string | null = PASSPHRASE) =>
  importAuction({
    url: target.db.ownerUrl,
    backend: target.backend,
    spoolDir: target.spoolDir,
    file,
    passphrase: passphrase ?? undefined,
  });

const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error('expected a refusal');
    },
    (error: unknown) => {
      if (!(error instanceof AuctionDataError)) throw error;
      return error;
    },
  );

beforeAll(async () => {
  [source, target] = await Promise.all([createInstance(), createInstance()]);
  seeded = await seedSource(source);
  archive = join(source.root, 'a.archive');
  await exportAuction({
    sql: source.db.sql,
    backend: source.backend,
    auction: seeded.auctions[0]!.slug,
    out: createWriteStream(archive),
    secretsPassphrase: PASSPHRASE,
  });
}, 120_000);

afterAll(async () => {
  await closeInstance(source);
  await closeInstance(target);
});

describe('the map of an auction’s tables', () => {
  it('covers every table the catalog holds per-auction rows in', async () => {
    expect(await uncoveredTables(source.db.sql)).toEqual([]);
  });

  it('fails for a new table with auction_id, and for one that reaches auctions through a foreign key', async () => {
    const sql = source.db.sql;
    await sql`create table public.new_area (id uuid primary key, auction_id uuid)`;
    await sql`create table public.new_area_child (id uuid primary key, location_id uuid references public.locations)`;
    try {
      expect(await uncoveredTables(sql)).toEqual(['public.new_area', 'public.new_area_child']);
    } finally {
      await sql`drop table public.new_area, public.new_area_child`;
    }
  });
});

describe('import into a fresh database', () => {
  it('refuses a damaged archive (a changed row) with nothing imported', async () => {
    const raw = gunzipSync(readFileSync(archive));
    // The first row chunk after the header: change one byte of it.
    const at = raw.indexOf('riverside', raw.indexOf('public.auctions'));
    expect(at).toBeGreaterThan(0);
    raw[at] = 'R'.charCodeAt(0);
    const damaged = join(source.root, 'damaged.archive');
    writeFileSync(damaged, gzipSync(raw));
    const error = await refusal(runImport(damaged));
    expect(error.code).toBe('checksum_mismatch');
    expect(error.message).toContain('public.auctions');
    expect((await target.db.sql`select count(*)::int as n from public.auctions`)[0]!.n).toBe(0);
    expect(await target.backend.keys()).toEqual([]);
  });

  it('refuses a wrong passphrase, and an archive with secrets without one', async () => {
    expect((await refusal(runImport(archive, 'wrong'))).code).toBe('wrong_passphrase');
    expect((await refusal(runImport(archive, null))).code).toBe('passphrase_needed');
    expect(await target.backend.keys()).toEqual([]);
  });

  it('imports every row and object of the auction, equal to the source’s', async () => {
    const lines: string[] = [];
    imported = await importAuction({
      url: target.db.ownerUrl,
      backend: target.backend,
      spoolDir: target.spoolDir,
      file: archive,
      passphrase: PASSPHRASE,
      progress: (m) => lines.push(m),
    });
    expect(imported.auction.slug).toBe(seeded.auctions[0]!.slug);
    expect(imported.users.created.length).toBeGreaterThan(0);
    const [before, after] = await Promise.all([
      manifestOf(source, imported.auction.id, 'x'),
      manifestOf(target, imported.auction.id, 'x'),
    ]);
    expect(after).toEqual(before);
    for (const entry of TABLES)
      if (entry.table !== 'webhooks.endpoint_secrets') expect(before.tables[entry.table]).toBeDefined();
    expect(before.tables['public.lot_submissions']!.rows).toBeGreaterThan(10);
    expect(Object.keys(before.tables).some((t) => t.startsWith('reporting_data.'))).toBe(true);
    expect(before.tables['webhooks.endpoint_secrets']!.rows).toBe(1);
    // Objects byte for byte, through the target's own backend.
    const [object] = await target.db.sql<
      { name: string; version: string }[]
    >`select name, version from storage.objects`;
    const chunks: Buffer[] = [];
    for await (const c of await target.backend.get(`lot-images/${object!.version}`)) chunks.push(c as Buffer);
    expect(Buffer.concat(chunks)).toEqual(seeded.objectBytes.get(object!.name));
    // Users were created unconfirmed, without a password.
    const [user] = await target.db.sql`select email_confirmed_at, encrypted_password from auth.users limit 1`;
    expect(user).toEqual({ email_confirmed_at: null, encrypted_password: null });
    // The rollups were rebuilt from the imported rows.
    expect(await target.db.sql`select * from analytics.differences(${imported.auction.id})`).toEqual([]);
  });

  it('carries nothing of another auction', async () => {
    const other = seeded.auctions[1]!.id;
    const sql = target.db.sql;
    for (const entry of TABLES)
      if (entry.scope.kind === 'auction') {
        const [row] = await sql.unsafe(`select count(*)::int as n from ${entry.table} where auction_id <> $1`, [
          imported.auction.id,
        ]);
        expect(row!.n, entry.table).toBe(0);
      }
    expect(await sql`select name from storage.objects where name like 'other/%'`).toEqual([]);
    expect((await sql`select count(*)::int as n from public.auctions where id = ${other}`)[0]!.n).toBe(0);
  });

  it('refuses the same archive again, listing the ids that exist, and writes nothing', async () => {
    const keys = await target.backend.keys();
    const error = await refusal(runImport(archive));
    expect(error.code).toBe('conflicting_ids');
    expect(error.message).toContain(`auction ${imported.auction.id} exists here`);
    expect(error.message).toMatch(/public\.lot_submissions: \d+ rows, e\.g\. /);
    expect(await target.backend.keys()).toEqual(keys);
  });

  it('imports an archive without secrets with its webhook endpoints inactive, saying why', async () => {
    const third = await createInstance();
    try {
      const plain = join(source.root, 'plain.archive');
      await exportAuction({
        sql: source.db.sql,
        backend: source.backend,
        auction: seeded.auctions[0]!.id,
        out: createWriteStream(plain),
      });
      await importAuction({
        url: third.db.ownerUrl,
        backend: third.backend,
        spoolDir: third.spoolDir,
        file: plain,
      });
      const endpoints = await third.db.sql`select is_active, disabled_reason from public.webhook_endpoints`;
      expect(endpoints).toEqual([
        { is_active: false, disabled_reason: expect.stringContaining('imported without its signing secret') },
      ]);
      expect(await third.db.sql`select * from webhooks.endpoint_secrets`).toEqual([]);
    } finally {
      await closeInstance(third);
    }
  });
});
