// Object links at the SQL level (domain/0032-auction-object-links.sql): which columns take URLs (the catalog, so a
// new `*_url` column is not missed), how a URL is read, the upgrade's backfill rule, the links an import derives,
// the objects an auction owns for the purge (read-only, shared ones kept) and for the export (shared ones carried).
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportAuction } from '../src/index.js';
import { closeInstance, createInstance, type Instance, putObject } from './support.js';

let i: Instance;
let a: string;
let b: string;
let member: string;
let outsider: string;
let location: string;

const links = async (auctionId: string) =>
  (
    await i.db.sql<{ object: string }[]>`
      select bucket_id || '/' || name as object from domain.auction_object_links where auction_id = ${auctionId}
`
  )
    .map((r) => r.object)
    .sort();

beforeAll(async () => {
  i = await createInstance();
  const sql = i.db.sql;
  const users = await sql<{ id: string }[]>`insert into auth.users (email) values ('m@links.test'), ('o@links.test')
    returning id`;
  [member, outsider] = users.map((u) => u.id);
  const auctions = await sql<{ id: string }[]>`insert into public.auctions (name, slug) values ('A', 'links-a'),
    ('B', 'links-b') returning id`;
  [a, b] = auctions.map((r) => r.id);
  await sql`insert into public.auction_members (auction_id, user_id, role) values (${a}, ${member}, 'admin')`;
  [{ id: location }] = await sql`insert into public.locations (auction_id, name) values (${a}, 'Lot') returning id`;
});
afterAll(async () => {
  await closeInstance(i);
});

describe('the URL columns', () => {
  it("are the catalog's text *_url columns of public tables with auction_id, plus image messages", async () => {
    const columns = await i.db.sql<{ c: string }[]>`
      select k.table_name || '.' || k.column_name as c from information_schema.columns k
        join information_schema.tables t using (table_schema, table_name)
       where k.table_schema = 'public' and t.table_type = 'BASE TABLE' and k.column_name like '%\\_url'
         and k.data_type = 'text'
         and exists (select 1 from information_schema.columns x where x.table_schema = 'public'
                       and x.table_name = k.table_name and x.column_name = 'auction_id')
       order by 1`;
    // Each has its link triggers (domain/0032); a new one needs them too.
    expect(columns.map((r) => r.c)).toEqual([
      'auction_branding.logo_url',
      'lot_submission_entries.image_url',
      'lot_submissions.image_url',
    ]);
    const triggers = await i.db.sql<{ t: string }[]>`
      select tgrelid::regclass::text || ':' || tgname as t from pg_trigger
       where tgfoid = 'domain.object_links_check()'::regprocedure order by 1`;
    expect(triggers.map((r) => r.t)).toEqual([
      'auction_branding:auction_branding_object_links_insert',
      'auction_branding:auction_branding_object_links_update',
      'lot_submission_entries:lot_submission_entries_object_links_insert',
      'lot_submission_entries:lot_submission_entries_object_links_update',
      'lot_submissions:lot_submissions_object_links_insert',
      'lot_submissions:lot_submissions_object_links_update',
      'messages:messages_object_links_insert',
      'messages:messages_object_links_update',
    ]);
  });

  it('name a stored object by any storage URL form, any host, the query ignored, the name decoded', async () => {
    const cases: [string, string | null][] = [
      ['http://h/storage/v1/object/public/lot-images/u/a.png', 'lot-images|u/a.png'],
      ['/storage/v1/object/authenticated/docs/u/b%20c.pdf?download', 'docs|u/b c.pdf'],
      ['https://x.example/storage/v1/object/sign/docs/u/c.png?token=t#f', 'docs|u/c.png'],
      ['https://x.example/storage/v1/render/image/public/lot-images/u/d.png?width=5', 'lot-images|u/d.png'],
      ['https://x.example/storage/v1/object/docs/u/%C3%A9.png', 'docs|u/é.png'],
      ['https://x.example/storage/v1/object/docs/u/%FF.png', 'docs|u/%FF.png'],
      ['https://cdn.example.com/logo.png', null],
    ];
    for (const [url, want] of cases) {
      const [row] = await i.db.sql`select bucket_id, name from domain.storage_url_object(${url})`;
      expect(row!.bucket_id === null ? null : `${row!.bucket_id}|${row!.name}`, url).toBe(want);
    }
  });
});

describe('the upgrade', () => {
  it('links a URL under the auction’s folder or a member’s, and leaves a borrowed one unlinked', async () => {
    const memberUrl = await putObject(i, `${member}/lot.png`, Buffer.from('m'), member);
    const folderUrl = await putObject(i, `${a}/logo.png`, Buffer.from('a'));
    const borrowedUrl = await putObject(i, `${outsider}/secret.png`, Buffer.from('s'), outsider);
    // Rows as a release before 0032 wrote them: no trigger, no link.
    await i.db.sql.begin(async (tx) => {
      await tx.unsafe('set local session_replication_role = replica');
      await tx`insert into public.auction_branding (auction_id, logo_url) values (${a}, ${folderUrl})`;
      await tx`insert into public.lot_submissions (auction_id, location_id, user_id, image_url) values
        (${a}, ${location}, ${member}, ${memberUrl}), (${a}, ${location}, ${member}, ${borrowedUrl}),
        (${a}, ${location}, ${member}, 'https://cdn.example.com/x.png')`;
    });
    expect(await links(a)).toEqual([]);
    const [{ n }] = await i.db.sql`select domain.backfill_object_links() as n`;
    expect(Number(n)).toBe(2);
    expect(await links(a)).toEqual([`lot-images/${a}/logo.png`, `lot-images/${member}/lot.png`].sort());
    // Again: nothing new.
    expect(Number((await i.db.sql`select domain.backfill_object_links() as n`)[0]!.n)).toBe(0);
  });
});

describe('the objects of an auction', () => {
  it('for the purge: its folder and its links, without one another auction links; readable in a read-only snapshot', async () => {
    await i.db.sql`insert into domain.auction_object_links (auction_id, bucket_id, name)
      values (${b}, 'lot-images', ${`${member}/lot.png`})`;
    const refs = await i.db.sql.begin(
      'isolation level repeatable read read only',
      (tx) => tx<{ name: string }[]>`select name from domain.auction_object_refs(${a}) order by name`,
    );
    expect(refs.map((r) => r.name)).toEqual([`${a}/logo.png`]);
  });

  it('for the export: its folder and every link, shared ones included; never the borrowed one', async () => {
    const sink = new Writable({ write: (_c, _e, done) => done() });
    const { manifest } = await exportAuction({ sql: i.db.sql, backend: i.backend, auction: a, out: sink });
    expect(Object.keys(manifest.objects).sort()).toEqual(
      [`lot-images/${a}/logo.png`, `lot-images/${member}/lot.png`].sort(),
    );
  });

  it('from a snapshot before 0032 (no links; a point-in-time restore): by the backfill rule, never the borrowed one', async () => {
    const sink = new Writable({ write: (_c, _e, done) => done() });
    await i.db.sql`alter table domain.auction_object_links rename to auction_object_links_hidden`;
    try {
      const { manifest } = await exportAuction({ sql: i.db.sql, backend: i.backend, auction: a, out: sink });
      expect(Object.keys(manifest.objects).sort()).toEqual(
        [`lot-images/${a}/logo.png`, `lot-images/${member}/lot.png`].sort(),
      );
    } finally {
      await i.db.sql`alter table domain.auction_object_links_hidden rename to auction_object_links`;
    }
  });

  it('after an import: links only what the archive carried or the auction’s folder holds', async () => {
    await i.db.sql`delete from domain.auction_object_links where auction_id = ${a}`;
    const [{ n }] = await i.db.sql`select domain.link_imported_objects(${a}::uuid, ${['lot-images']}::text[],
      ${[`${member}/lot.png`]}::text[]) as n`;
    expect(Number(n)).toBe(2);
    expect(await links(a)).toEqual([`lot-images/${a}/logo.png`, `lot-images/${member}/lot.png`].sort());
  });
});
