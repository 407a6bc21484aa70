// Test support: databases with every migration set of the server, a demo-seeded source with the parts the seed
// leaves out (objects named by rows, a dataset table, a webhook endpoint with its secret, a conversation), and a
// comparison of an auction's rows in two databases through the export itself (per-table sha256 of COPY text).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import postgres from 'postgres';
import { authMigrations } from '@auction-ops/auth-core';
import { createTestDatabase, type TestDatabase } from '@auction-ops/database/testing';
import { domainMigrations, domainRealtimeMigrations, domainStorageMigrations, seedDemo } from '@auction-ops/domain';
import { notificationMigrations, reportingMigrations } from '@auction-ops/functions';
import { realtimeMigrations } from '@auction-ops/realtime';
import { createFsBackend, storageMigrations, type StorageBackend } from '@auction-ops/storage';
import { webhookMigrations } from '@auction-ops/webhooks';
import { auctionDataMigrations, exportAuction, type Manifest } from '../src/index.js';

export const ALL_MIGRATIONS = [
  authMigrations,
  storageMigrations,
  domainMigrations,
  domainStorageMigrations,
  realtimeMigrations,
  domainRealtimeMigrations,
  webhookMigrations,
  notificationMigrations,
  reportingMigrations,
  auctionDataMigrations,
];

export interface Instance {
  db: TestDatabase;
  root: string;
  backend: StorageBackend;
  spoolDir: string;
}

export async function createInstance(): Promise<Instance> {
  const db = await createTestDatabase(ALL_MIGRATIONS);
  const root = mkdtempSync(join(tmpdir(), 'auction-data-'));
  return { db, root, backend: createFsBackend(join(root, 'storage')), spoolDir: join(root, 'storage', 'tmp') };
}

export const PUBLIC_URL = 'http://127.0.0.1:54321';

/** Stores bytes as the storage service would: a row and a version key. Returns the object's public URL. */
export async function putObject(
  i: Instance,
  name: string,
  bytes: Buffer,
  ownerId: string | null = null,
): Promise<string> {
  const [{ version }] = await i.db.sql<{ version: string }[]>`select gen_random_uuid()::text as version`;
  const spool = join(i.root, `spool-${version}`);
  writeFileSync(spool, bytes);
  await i.backend.put(`lot-images/${version}`, spool, { size: bytes.length, contentType: 'image/png' });
  await i.db.sql`insert into storage.objects (bucket_id, name, owner_id, version, metadata)
    values ('lot-images', ${name}, ${ownerId}, ${version},
      ${i.db.sql.json({ size: bytes.length, mimetype: 'image/png' })})`;
  return `${PUBLIC_URL}/storage/v1/object/public/lot-images/${name}`;
}

export interface Seeded {
  auctions: { id: string; slug: string }[];
  objectBytes: Map<string, Buffer>;
}

/** Two demo auctions plus objects, a dataset table, an endpoint with a secret and a conversation in the first. */
export async function seedSource(i: Instance): Promise<Seeded> {
  const sql = i.db.sql;
  const seeded = await seedDemo(sql, { scale: 1, days: 2, hashPassword: async () => 'not-a-hash' });
  const [a] = seeded.auctions;
  const objectBytes = new Map<string, Buffer>();
  const [sub] = await sql<{ id: string; user_id: string }[]>`
    select id, user_id from public.lot_submissions where auction_id = ${a!.id} order by id limit 1`;
  const bytes = Buffer.from(`\x89PNG fake image of ${sub!.id}`);
  const url = await putObject(i, `${sub!.user_id}/1700000000_a.png`, bytes, sub!.user_id);
  objectBytes.set(`${sub!.user_id}/1700000000_a.png`, bytes);
  await sql`update public.lot_submissions set image_url = ${url} where id = ${sub!.id}`;
  // An object of the other auction's rows: it must not travel with the first.
  const [other] = await sql<{ id: string }[]>`
    select id from public.lot_submissions where auction_id = ${seeded.auctions[1]!.id} order by id limit 1`;
  const otherUrl = await putObject(i, 'other/1700000000_b.png', Buffer.from('other auction image'));
  await sql`update public.lot_submissions set image_url = ${otherUrl} where id = ${other!.id}`;

  const [dataset] = await sql<{ id: string }[]>`
    insert into public.datasets (auction_id, name, columns, row_count, status, table_name)
    values (${a!.id}, 'Sales', ${sql.json([
      { name: 'lot', type: 'text' },
      { name: 'price', type: 'integer' },
    ])}, 2,
      'ready', 'ds_sales_' || substr(md5(random()::text), 1, 8))
    returning id, table_name`;
  const [{ table_name }] = await sql<
    { table_name: string }[]
  >`select table_name from public.datasets where id = ${dataset!.id}`;
  await sql.unsafe(`create table reporting_data.${table_name} (lot text, price bigint)`);
  await sql.unsafe(`insert into reporting_data.${table_name} values ('A-1', 1200), ('A-2', null)`);
  const [conv] = await sql<{ id: string }[]>`
    insert into public.query_conversations (auction_id, dataset_id, user_id)
    values (${a!.id}, ${dataset!.id}, ${sub!.user_id}) returning id`;
  await sql`insert into public.query_conversation_messages (conversation_id, role, content)
    values (${conv!.id}, 'user', 'total sales?'), (${conv!.id}, 'assistant', 'select sum(price) from sales')`;
  await sql`insert into public.webhook_endpoints (auction_id, url, events, secret)
    values (${a!.id}, 'https://hooks.example.com/x', ${['submission.created']}, 'whsec_source_secret')`;
  return { auctions: seeded.auctions, objectBytes };
}

/** The manifest of the auction's export (counts and sha256 of every table), without writing the archive. */
export async function manifestOf(i: Instance, auction: string, passphrase?: string): Promise<Manifest> {
  const sink = new Writable({ write: (_chunk, _enc, done) => done() });
  const { manifest } = await exportAuction({
    sql: i.db.sql,
    backend: i.backend,
    auction,
    out: sink,
    secretsPassphrase: passphrase,
  });
  return manifest;
}

export async function closeInstance(i: Instance | undefined): Promise<void> {
  if (!i) return;
  await i.backend.close();
  await i.db.drop();
}

export { postgres };
