// BACKUP_KEEP pruning (backups, the WAL and the objects only they needed) and BACKUP_SCHEDULE runs, on a real
// cluster archiving to a directory target.
import { existsSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createFsBackend } from '@auction-ops/storage';
import {
  archivingBackend,
  createBackup,
  listBackups,
  pruneBackups,
  restoreBackup,
  scheduleBackups,
  type BackupManifest,
} from '../src/index.js';
import { queryRestored, startArchivingServer, type ArchivingServer } from './support.js';

let server: ArchivingServer;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const backupOf = () => createBackup({ ownerUrl: server.cluster.url, dataDir: server.dataDir, target: server.target });
const archivedObjects = () =>
  readdirSync(join(server.target.dir!, 'objects', 'photos')).filter((n) => !n.endsWith('.sha256'));
const walSegments = () => readdirSync(join(server.target.dir!, 'wal')).filter((n) => /^[0-9A-F]{24}$/.test(n));

async function storeObject(version: string) {
  const objects = archivingBackend(createFsBackend(join(server.dataDir, 'storage')), server.target, (message) => {
    throw new Error(message);
  });
  const spool = join(server.root, `upload-${version}`);
  writeFileSync(spool, version);
  await objects.put(`photos/${version}`, spool, { size: version.length, contentType: 'text/plain' });
}

beforeAll(async () => {
  server = await startArchivingServer();
  await server.sql`create table bids (id serial primary key, amount int not null)`;
}, 300_000);
afterAll(async () => {
  await server?.stop();
  if (server) rmSync(server.root, { recursive: true, force: true });
});

it('keeps the newest N backups and prunes the WAL and objects only older ones needed', async () => {
  const old = '00000000-0000-4000-8000-000000000001';
  const fresh = '00000000-0000-4000-8000-000000000002';
  const first = await backupOf();
  await storeObject(old);
  await server.sql`insert into bids (amount) values (1)`;
  await server.archiveNow();
  await sleep(20);
  const second = await backupOf();
  await sleep(20);
  await storeObject(fresh);
  await server.sql`insert into bids (amount) values (2)`;
  await server.archiveNow();
  const firstSegment = walSegments()[0];
  expect(firstSegment <= first.start_wal).toBe(true);

  const pruned = await pruneBackups(server.target, 1);
  expect(pruned.backups).toEqual([first.id]);
  expect((await listBackups(server.target)).map((b) => b.id)).toEqual([second.id]);
  expect(walSegments().every((name) => name.slice(8) >= second.start_wal.slice(8))).toBe(true);
  expect(pruned.walSegments).toBeGreaterThan(0);
  expect(archivedObjects()).toEqual([fresh]); // the old one is in the second backup's own files
  expect(existsSync(join(server.target.dir!, 'backups', first.id))).toBe(false);

  const dir = join(server.root, 'after-prune');
  await restoreBackup({ target: server.target, id: 'latest', dataDir: dir });
  expect(
    await queryRestored(dir, (sql) => sql`select amount from bids order by id`.then((r) => r.map((x) => x.amount))),
  ).toEqual([1, 2]);
  expect(existsSync(join(dir, 'storage/objects/photos/00', old))).toBe(true);
  expect(existsSync(join(dir, 'storage/objects/photos/00', fresh))).toBe(true);
}, 300_000);

it('takes backups on the schedule and prunes to BACKUP_KEEP after each', async () => {
  const taken: BackupManifest[] = [];
  const errors: Error[] = [];
  const schedule = scheduleBackups({
    pattern: '*/2 * * * * *', // every two seconds
    keep: 1,
    target: server.target,
    backup: backupOf,
    onDone: (manifest) => taken.push(manifest),
    onError: (error) => errors.push(error),
  });
  const deadline = Date.now() + 60_000;
  while (taken.length < 2 && Date.now() < deadline) await sleep(100);
  await schedule.stop();
  expect(errors).toEqual([]);
  expect(taken.length).toBeGreaterThanOrEqual(2);
  expect((await listBackups(server.target)).map((b) => b.id)).toEqual([taken.at(-1)!.id]);
}, 90_000);
