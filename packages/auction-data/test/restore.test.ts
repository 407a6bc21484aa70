// Restore of one auction to a point in time, on a real embedded cluster archiving its WAL and objects: at T1 both
// demo auctions have data; then A loses a location (with its submissions and a photo) and writes a new one, and
// B writes more. Restoring A to T1 lists A's later writes first, brings A's location, submissions and photo back,
// drops A's later location, leaves every row of B as it was, and emits one auction.restored event and no other.
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  archiveSettings,
  archivingBackend,
  createBackup,
  prepareArchiveDir,
  resolveTarget,
  type BackupTarget,
} from '@auction-ops/backups';
import { ensureRoles, migrate, startEmbeddedPostgres, type EmbeddedCluster } from '@auction-ops/database';
import { archiveNow as archiveSegment } from '@auction-ops/database/testing';
import { seedDemo } from '@auction-ops/domain';
import { createFsBackend, type StorageBackend } from '@auction-ops/storage';
import { type LossReport, restoreAuction, TABLES } from '../src/index.js';
import { ALL_MIGRATIONS } from './support.js';

let root: string;
let dataDir: string;
let target: BackupTarget;
let cluster: EmbeddedCluster;
let sql: postgres.Sql;
let backend: StorageBackend;
let a: { id: string; slug: string };
let b: { id: string; slug: string };
let lostLocation: string;
let lostSubmissions: string[];
let laterLocationOfA: string;
let laterLocationOfB: string;
let photo: { name: string; version: string; bytes: Buffer };
let t1: string;
let bBefore: Record<string, string>;

/** md5 of each table's rows of an auction, in key order: equal digests mean byte-identical rows. */
async function digests(auctionId: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const entry of TABLES) {
    if (entry.scope.kind !== 'auction' && entry.scope.kind !== 'self') continue;
    const where = entry.scope.kind === 'self' ? 't.id = $1' : 't.auction_id = $1';
    const [row] = await sql.unsafe(
      `select md5(coalesce(string_agg(t::text, E'\\n' order by t::text), '')) as d from ${entry.table} t where ${where}`,
      [auctionId],
    );
    out[entry.table] = row!.d;
  }
  return out;
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'auction-restore-'));
  chmodSync(root, 0o711);
  dataDir = join(root, 'data');
  target = resolveTarget(join(root, 'target'));
  prepareArchiveDir(target);
  mkdirSync(join(dataDir, 'storage'), { recursive: true });
  cluster = await startEmbeddedPostgres({ dir: join(dataDir, 'postgres'), settings: archiveSettings(target, 1) });
  await ensureRoles(cluster.url, 'restore-test-password');
  await migrate(cluster.url, ALL_MIGRATIONS);
  sql = postgres(cluster.url, { max: 4, onnotice: () => {} });
  // Objects are archived as they are written, as the server's storage does with BACKUP_TARGET set.
  backend = archivingBackend(createFsBackend(join(dataDir, 'storage')), target, () => {});
  const seeded = await seedDemo(sql, { scale: 1, days: 1, hashPassword: async () => 'not-a-hash' });
  a = seeded.auctions[0]!;
  b = seeded.auctions[1]!;

  // A location of A with submissions of its own (the demo's depend on the hour the seed runs at).
  [{ id: lostLocation }] = await sql`select id from public.locations where auction_id = ${a.id} order by id limit 1`;
  await sql`insert into public.lot_submissions (auction_id, location_id)
    select ${a.id}, ${lostLocation} from generate_series(1, 3)`;
  lostSubmissions = (
    await sql`select id from public.lot_submissions where location_id = ${lostLocation} order by id`
  ).map((r) => r.id);
  const [{ version }] = await sql`select gen_random_uuid()::text as version`;
  photo = { name: `photos/${lostSubmissions[0]}.png`, version, bytes: Buffer.from('photo of the lost lot') };
  const spool = join(dataDir, 'storage', 'spool');
  writeFileSync(spool, photo.bytes);
  await backend.put(`lot-images/${version}`, spool, { size: photo.bytes.length, contentType: 'image/png' });
  await sql`insert into storage.objects (bucket_id, name, version, metadata)
    values ('lot-images', ${photo.name}, ${version}, ${sql.json({ size: photo.bytes.length, mimetype: 'image/png' })})`;
  await sql`update public.lot_submissions
    set image_url = ${`http://127.0.0.1:54321/storage/v1/object/public/lot-images/${photo.name}`}
    where id = ${lostSubmissions[0]!}`;

  await createBackup({ ownerUrl: cluster.url, dataDir, target });
  // T1: after the backup and every write above (commit times of later writes are after it).
  [{ t: t1 }] = await sql`select to_char(clock_timestamp() at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as t`;

  // After T1: A loses a location (its submissions go with it) and its photo, and writes a new location; B writes.
  await sql`delete from public.locations where id = ${lostLocation}`;
  await sql`delete from storage.objects where name = ${photo.name}`;
  await backend.remove([`lot-images/${photo.version}`]);
  [{ id: laterLocationOfA }] = await sql`
    insert into public.locations (auction_id, name) values (${a.id}, 'Written after T1') returning id`;
  [{ id: laterLocationOfB }] = await sql`
    insert into public.locations (auction_id, name) values (${b.id}, 'B after T1') returning id`;
  await sql`insert into public.lot_submissions (auction_id, location_id) values (${b.id}, ${laterLocationOfB})`;
  await archiveSegment(sql);
  bBefore = await digests(b.id);
}, 300_000);

afterAll(async () => {
  await sql?.end({ timeout: 1 });
  await backend?.close();
  await cluster?.stop();
  if (root) rmSync(root, { recursive: true, force: true });
});

it('lists what will be lost, then puts A back as at T1 and leaves B byte-identical', async () => {
  const outboxBefore = await sql`select id from public.event_outbox`;
  let shown: LossReport | undefined;
  const result = await restoreAuction({
    url: cluster.url,
    backend,
    spoolDir: join(dataDir, 'storage', 'tmp'),
    target,
    auction: a.slug,
    toTime: t1,
    scratchRoot: root,
    confirm: async (report) => {
      shown = report;
      return true;
    },
  });
  expect(result.quietRealtime).toBe(true);
  // Listed first: the location written after T1 (removed), the lost one and its submissions (back).
  expect(shown!.tables['public.locations']).toMatchObject({ removed: 1, back: 1 });
  expect(shown!.tables['public.locations']!.ids).toContain(laterLocationOfA);
  expect(shown!.tables['public.lot_submissions']).toMatchObject({ removed: 0, back: lostSubmissions.length });

  // A: the location and its submissions are back, the later location is gone, the photo row and bytes are back.
  expect(await sql`select id from public.locations where id = ${lostLocation}`).toHaveLength(1);
  const back = await sql`select id from public.lot_submissions where location_id = ${lostLocation} order by id`;
  expect(back.map((r) => r.id)).toEqual(lostSubmissions);
  expect(await sql`select id from public.locations where id = ${laterLocationOfA}`).toHaveLength(0);
  const [object] = await sql`select version from storage.objects where name = ${photo.name}`;
  const chunks: Buffer[] = [];
  for await (const c of await backend.get(`lot-images/${object!.version}`)) chunks.push(c as Buffer);
  expect(Buffer.concat(chunks)).toEqual(photo.bytes);
  expect(await sql`select * from analytics.differences(${a.id})`).toEqual([]);

  // B: every row as it was before the restore, its later writes included.
  expect(await digests(b.id)).toEqual(bBefore);
  expect(await sql`select id from public.locations where id = ${laterLocationOfB}`).toHaveLength(1);

  // One event, auction.restored, and no per-row events.
  const known = new Set(outboxBefore.map((r) => r.id));
  const added = (await sql`select id, auction_id, event_type, data from public.event_outbox`).filter(
    (r) => !known.has(r.id),
  );
  expect(added.map((r) => [r.auction_id, r.event_type])).toEqual([[a.id, 'auction.restored']]);
  expect(added[0]!.data).toMatchObject({ id: a.id, restored_to: new Date(t1).toISOString() });
  // In the shape its catalogue entry declares (public.event_types.fields), both ways.
  const [{ mismatches }] = await sql`
    select domain.event_data_mismatches(${sql.json(added[0]!.data)}, fields) as mismatches
      from public.event_types where name = 'auction.restored'`;
  expect(mismatches).toEqual([]);
  // And one broadcast on the auction's private realtime topic.
  const sent = await sql`select event, private from realtime.messages where topic = ${`auction:${a.id}`}`;
  expect(sent).toEqual([{ event: 'auction.restored', private: true }]);
}, 120_000); // restores a backup into a scratch cluster and replays WAL: over 30 s on a loaded machine
