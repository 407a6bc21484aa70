// An S3-compatible target (the fake S3 server the storage tests use, on loopback): PostgreSQL archives its WAL
// there through archive_command with the S3_* settings it inherits, a base backup goes there, objects are
// archived there as written, and a restore comes back from there alone.
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createFsBackend } from '@auction-ops/storage';
import { startFakeS3, type FakeS3 } from '@auction-ops/storage/testing';
import { archivingBackend, createBackup, listBackups, restoreBackup, resolveTarget } from '../src/index.js';
import { queryRestored, startArchivingServer, type ArchivingServer } from './support.js';

let s3: FakeS3;
let server: ArchivingServer;
const version = '0a1b2c3d-0000-4000-8000-000000000001';
const savedEnv: Record<string, string | undefined> = {};

beforeAll(async () => {
  s3 = await startFakeS3('backups-test');
  // As an operator sets them for the storage backend; PostgreSQL's archive_command inherits them. Restored after:
  // the files after this one in the worker's process (and the commands they start) must not see them.
  const settings = {
    S3_ENDPOINT: s3.endpoint,
    S3_ACCESS_KEY_ID: s3.accessKeyId,
    S3_SECRET_ACCESS_KEY: s3.secretAccessKey,
    S3_FORCE_PATH_STYLE: 'true',
  };
  for (const name of Object.keys(settings)) savedEnv[name] = process.env[name];
  Object.assign(process.env, settings);
  server = await startArchivingServer(`s3://${s3.bucket}/site-a`);
}, 300_000);

afterAll(async () => {
  for (const [name, value] of Object.entries(savedEnv))
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  await server?.stop().catch(() => {});
  if (server) rmSync(server.root, { recursive: true, force: true });
  await s3?.close();
});

it('backs up to S3, archives WAL and objects there, and restores from it alone', async () => {
  const { sql } = server;
  await sql`create table lots (id serial primary key, title text not null)`;
  await sql`insert into lots (title) values ('in the backup')`;
  const backup = await createBackup({ ownerUrl: server.cluster.url, dataDir: server.dataDir, target: server.target });
  await sql`insert into lots (title) values ('only in the archive')`;
  const objects = archivingBackend(createFsBackend(join(server.dataDir, 'storage')), server.target, (message) => {
    throw new Error(message);
  });
  const spool = join(server.root, 'upload');
  writeFileSync(spool, 'photo bytes');
  await objects.put(`photos/${version}`, spool, { size: 11, contentType: 'image/jpeg' });
  await server.archiveNow();
  await server.stop();

  const target = resolveTarget(`s3://${s3.bucket}/site-a`);
  expect((await listBackups(target)).map((b) => b.id)).toEqual([backup.id]);
  expect(await target.store.list('wal')).toContain(`${backup.stop_wal}.sha256`);
  // The target alone: the source DATA_DIR is gone.
  rmSync(server.dataDir, { recursive: true, force: true });
  const dir = join(server.root, 'restored');
  await restoreBackup({ target, id: 'latest', dataDir: dir });
  const titles = await queryRestored(dir, (q) =>
    q`select title from lots order by id`.then((r) => r.map((x) => x.title)),
  );
  expect(titles).toEqual(['in the backup', 'only in the archive']);
  const restored = createFsBackend(join(dir, 'storage'));
  const chunks: Buffer[] = [];
  for await (const chunk of (await restored.get(`photos/${version}`)) as Readable) chunks.push(chunk as Buffer);
  expect(Buffer.concat(chunks).toString()).toBe('photo bytes');
  target.store.close();
}, 300_000);
