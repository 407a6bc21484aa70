// The restore drill on a real cluster migrated with the auth and storage schemas, archiving to a directory target,
// with a base backup made by the code and changes after it: a drill that passes, one that fails on a damaged
// archived segment and names it, one skipped under the disk floor, and one refused while another holds the lock.
import { randomUUID } from 'node:crypto';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authMigrations } from '@auction-ops/auth-core';
import { ensureRoles, migrate, startDiskFloor } from '@auction-ops/database';
import { createFsBackend, storageMigrations } from '@auction-ops/storage';
import {
  archivingBackend,
  createBackup,
  readDrillRecord,
  runRestoreDrill,
  type BackupManifest,
  type DrillOptions,
} from '../src/index.js';
import { startArchivingServer, type ArchivingServer } from './support.js';

let server: ArchivingServer;
let backup: BackupManifest;
let options: DrillOptions;

/** Writes an object's bytes through the filesystem backend, archived as the server archives them. */
async function storeObject(bucket: string, bytes: string): Promise<string> {
  const version = randomUUID();
  const spool = join(server.root, `spool-${version}`);
  writeFileSync(spool, bytes);
  const backend = archivingBackend(createFsBackend(join(server.dataDir, 'storage')), server.target, () => {});
  await backend.put(`${bucket}/${version}`, spool, { size: bytes.length, contentType: 'text/plain' });
  rmSync(spool, { force: true }); // the filesystem backend moves it into place
  await server.sql`insert into storage.objects (bucket_id, name, version) values (${bucket}, ${version}, ${version})`;
  return version;
}

beforeAll(async () => {
  server = await startArchivingServer();
  await ensureRoles(server.cluster.url, randomUUID());
  await migrate(server.cluster.url, [authMigrations, storageMigrations]);
  await server.sql`insert into storage.buckets (id, name) values ('photos', 'photos')`;
  await storeObject('photos', 'before the backup');
  backup = await createBackup({ ownerUrl: server.cluster.url, dataDir: server.dataDir, target: server.target });
  // Changes only the archived WAL holds: the drill must replay them.
  await server.sql`create table public.notes (id serial primary key, body text not null)`;
  await server.sql`insert into public.notes (body) select 'note ' || n from generate_series(1, 500) n`;
  await storeObject('photos', 'after the backup');
  const backend = createFsBackend(join(server.dataDir, 'storage'));
  options = {
    target: server.target,
    ownerUrl: server.cluster.url,
    dataDir: server.dataDir,
    scratchParent: server.root,
    sourceObject: (key) => backend.get(key),
  };
}, 120_000);

afterAll(async () => {
  await server?.stop();
  if (server) rmSync(server.root, { recursive: true, force: true });
});

const scratchDirs = () => readdirSync(server.root).filter((name) => name.startsWith('.auction-ops-drill-'));

// Each drill restores and starts a whole cluster (about 10 s on a quiet machine): far more than the default 30 s
// is allowed for a busy one.
describe('restore drill', { timeout: 180_000 }, () => {
  it('passes: the ledger, every table, the objects and a sign-in match the source; nothing is left behind', async () => {
    const result = await runRestoreDrill(options);
    expect(result).toMatchObject({ outcome: 'passed', backup_id: backup.id, failures_total: 0 });
    if (result.outcome === 'busy') throw new Error('unexpected');
    expect(result.checked).toMatchObject({
      objects: 2,
      sign_in: 'password sign-in of a probe account, token accepted by the source',
    });
    expect(result.checked!.tables).toBeGreaterThan(10);
    expect(result.checked!.rows).toBeGreaterThanOrEqual(500);
    expect(result.checked!.migrations).toBeGreaterThan(10);
    expect(result.last_success_at).toBe(result.finished_at);
    expect(result.duration_seconds).toBeGreaterThan(0);
    expect(await readDrillRecord(server.target)).toEqual(result);
    expect(scratchDirs()).toEqual([]);
    const [probes] = await server.sql`select count(*)::int as n from auth.users where email like 'restore-drill-%'`;
    expect(probes.n).toBe(0);
  });

  it('fails on a damaged archived WAL segment, naming it, and counts the failure', async () => {
    const walDir = join(server.target.dir!, 'wal');
    const segment = readdirSync(walDir)
      .filter((name) => /^[0-9A-F]{24}$/.test(name) && name >= backup.start_wal)
      .at(-1)!;
    const file = join(walDir, segment);
    copyFileSync(file, `${file}.saved`);
    const bytes = readFileSync(file);
    bytes[bytes.length - 1] ^= 0xff;
    writeFileSync(file, bytes);
    try {
      const result = await runRestoreDrill(options);
      expect(result).toMatchObject({ outcome: 'failed', failures_total: 1 });
      expect(result.reason).toContain(`archived WAL ${segment} does not match its checksum`);
      const record = await readDrillRecord(server.target);
      expect(record?.last_success_at).not.toBeNull();
      expect(record?.last_success_at).not.toBe(record?.finished_at);
      expect(scratchDirs()).toEqual([]);
    } finally {
      copyFileSync(`${file}.saved`, file);
      rmSync(`${file}.saved`);
    }
  });

  it('is skipped, saying why, when the scratch copy would take DATA_DIR under its free-space floor', async () => {
    mkdirSync(server.root, { recursive: true });
    // A floor far above any disk's size: nothing is admitted.
    const floor = await startDiskFloor({ path: server.dataDir, floorMb: 1024 ** 3 });
    try {
      const result = await runRestoreDrill({ ...options, floor });
      expect(result.outcome).toBe('skipped');
      expect(result.reason).toMatch(/^the scratch copy \(about [\d.]+ MB\) .* under the floor of/);
      expect(floor.counts().refusals.drill).toBe(1);
      expect(await readDrillRecord(server.target)).toMatchObject({ outcome: 'skipped', failures_total: 1 });
    } finally {
      floor.stop();
    }
  });

  it('runs one at a time: a second drill while one holds the lock is refused as busy and records nothing', async () => {
    const before = await readDrillRecord(server.target);
    const holder = await server.sql.reserve();
    try {
      await holder`select pg_advisory_lock(${0x64_72_69_6c_6c})`;
      expect(await runRestoreDrill(options)).toEqual({
        outcome: 'busy',
        reason: 'another restore drill is running on this database',
      });
      await holder`select pg_advisory_unlock(${0x64_72_69_6c_6c})`;
    } finally {
      holder.release();
    }
    expect(await readDrillRecord(server.target)).toEqual(before);
  });
});
