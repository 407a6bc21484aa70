// Base backups taken while writes run, and restores to the end of the archive or to an instant between writes,
// on a real embedded cluster archiving its WAL to a directory target.
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBackup, listBackups, resolveTarget, restoreBackup, type BackupManifest } from '../src/index.js';
import { queryRestored, startArchivingServer, type ArchivingServer } from './support.js';

let server: ArchivingServer;
let backup: BackupManifest;
/** Taken after 'second': `latest` with a time before its end must fall back to the first backup. */
let newer: BackupManifest;
let between: string;
let afterAll_: string;
let restoreCount = 0;
const freshDir = () => join(server.root, `restore-${restoreCount++}`);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const notes = (dataDir: string) =>
  queryRestored(dataDir, (sql) => sql`select body from notes order by id`.then((rows) => rows.map((r) => r.body)));

beforeAll(async () => {
  server = await startArchivingServer();
  const { sql } = server;
  await sql`create table notes (id serial primary key, body text not null)`;
  await sql`insert into notes (body) values ('before backup')`;
  // Writes keep running while the backup copies the files.
  let writing = true;
  const writer = (async () => {
    let n = 0;
    while (writing) await sql`insert into notes (body) values (${`during ${n++}`})`;
  })();
  backup = await createBackup({ ownerUrl: server.cluster.url, dataDir: server.dataDir, target: server.target });
  writing = false;
  await writer;
  await sql`delete from notes where body like 'during %'`;
  await sleep(1100);
  await sql`insert into notes (body) values ('first')`;
  await sleep(1100);
  between = new Date().toISOString();
  await sleep(1100);
  await sql`insert into notes (body) values ('second')`;
  newer = await createBackup({ ownerUrl: server.cluster.url, dataDir: server.dataDir, target: server.target });
  await server.archiveNow();
  await sleep(1100);
  afterAll_ = new Date().toISOString();
  await server.stop();
}, 300_000);

afterAll(() => {
  if (server) rmSync(server.root, { recursive: true, force: true });
});

describe('backup create and list', () => {
  it('lists the backup with its summary fields, and its files carry checksums', async () => {
    const listed = await listBackups(server.target);
    expect(listed.map((b) => b.id)).toEqual([backup.id, newer.id]);
    expect(backup.bytes).toBeGreaterThan(1_000_000);
    expect(Date.parse(backup.finished_at)).toBeGreaterThanOrEqual(Date.parse(backup.started_at));
    expect(backup.files.find((f) => f.path === 'postgres/data/backup_label')?.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(backup.files.some((f) => f.path.startsWith('postgres/data/pg_wal/'))).toBe(false);
    expect(backup.wal.map((f) => f.path)).toContain(backup.stop_wal);
  });
});

// Each restore copies a backup and starts a PostgreSQL that replays WAL: seconds alone, over 30 s on a loaded machine.
describe('backup restore', { timeout: 120_000 }, () => {
  it('latest replays every archived change, and brings the objects and secrets along', async () => {
    const dir = freshDir();
    await restoreBackup({ target: server.target, id: 'latest', dataDir: dir });
    expect(await notes(dir)).toEqual(['before backup', 'first', 'second']);
    expect(readFileSync(join(dir, 'secrets.json'), 'utf8')).toContain('kept');
    expect(readFileSync(join(dir, 'storage/objects/photos/ab/abcdef'), 'utf8')).toBe('object bytes');
  });

  it('--to-time between two writes shows exactly the rows before it', async () => {
    const dir = freshDir();
    await restoreBackup({ target: server.target, id: backup.id, dataDir: dir, toTime: between });
    expect(await notes(dir)).toEqual(['before backup', 'first']);
  });

  it('latest with a time restores from the newest backup that had ended by then', async () => {
    const dir = freshDir();
    const lines: string[] = [];
    await restoreBackup({
      target: server.target,
      id: 'latest',
      dataDir: dir,
      toTime: between,
      log: (l) => lines.push(l),
    });
    expect(lines[0]).toMatch(new RegExp(`^copying backup ${backup.id}:`));
    expect(await notes(dir)).toEqual(['before backup', 'first']);
  });

  it('latest with a time before the oldest backup ended is refused, naming that backup', async () => {
    const dir = freshDir();
    await expect(
      restoreBackup({ target: server.target, id: 'latest', dataDir: dir, toTime: backup.started_at }),
    ).rejects.toThrow(
      `--to-time ${backup.started_at} is before the end of the oldest backup, ${backup.id} (${backup.finished_at})`,
    );
    expect(existsSync(dir)).toBe(false);
  });

  it('refuses a time before the backup ended, naming the backup', async () => {
    const dir = freshDir();
    await expect(
      restoreBackup({ target: server.target, id: backup.id, dataDir: dir, toTime: backup.started_at }),
    ).rejects.toThrow(`is before the end of backup ${backup.id}`);
    expect(existsSync(dir)).toBe(false);
  });

  it('refuses a time past the newest archived change and leaves nothing behind', async () => {
    const dir = freshDir();
    await expect(
      restoreBackup({ target: server.target, id: backup.id, dataDir: dir, toTime: afterAll_ }),
    ).rejects.toThrow('is past what the archive covers');
    expect(existsSync(dir)).toBe(false);
    await expect(
      restoreBackup({ target: server.target, id: backup.id, dataDir: dir, toTime: '2999-01-01T00:00:00Z' }),
    ).rejects.toThrow('is past what the archive covers (it is in the future)');
  });

  it('refuses an unknown id by name', async () => {
    await expect(restoreBackup({ target: server.target, id: 'no-such-backup', dataDir: freshDir() })).rejects.toThrow(
      'no backup with id "no-such-backup"',
    );
  });

  it('refuses a non-empty data directory and leaves it untouched', async () => {
    const dir = join(server.root, 'data'); // the source DATA_DIR itself
    const before = readdirSync(dir).sort();
    await expect(restoreBackup({ target: server.target, id: 'latest', dataDir: dir })).rejects.toThrow(
      'exists and is not empty',
    );
    expect(readdirSync(dir).sort()).toEqual(before);
  });
});

describe('damage and unwritable targets', () => {
  /** Runs `check` with one byte of `file` (under the target) flipped, then puts the byte back. */
  async function withFlippedByte(file: string, check: () => Promise<void>) {
    const saved = `${file}.saved`;
    copyFileSync(file, saved);
    const bytes = readFileSync(file);
    bytes[bytes.length - 1] ^= 0xff;
    writeFileSync(file, bytes);
    try {
      await check();
    } finally {
      copyFileSync(saved, file);
      rmSync(saved);
    }
  }

  it('refuses a backup with a damaged file by name, and leaves nothing behind', async () => {
    const dir = freshDir();
    const file = join(server.target.dir!, 'backups', backup.id, 'files', 'secrets.json');
    await withFlippedByte(file, () =>
      expect(restoreBackup({ target: server.target, id: backup.id, dataDir: dir })).rejects.toThrow(
        `backup ${backup.id} is damaged: secrets.json does not match its checksum`,
      ),
    );
    expect(existsSync(dir)).toBe(false);
  });

  it('refuses a damaged archived WAL segment before writing anything', async () => {
    const dir = freshDir();
    mkdirSync(dir); // an empty directory is accepted, and must be left empty
    const segment = readdirSync(join(server.target.dir!, 'wal'))
      .filter((name) => /^[0-9A-F]{24}$/.test(name))
      .at(-1)!;
    await withFlippedByte(join(join(server.target.dir!, 'wal'), segment), () =>
      expect(restoreBackup({ target: server.target, id: 'latest', dataDir: dir })).rejects.toThrow(
        `backup ${newer.id} is damaged: archived WAL ${segment} does not match its checksum`,
      ),
    );
    expect(readdirSync(dir)).toEqual([]);
  });

  it('refuses a target that cannot be written, creating nothing', async () => {
    const file = join(server.root, 'a-file');
    writeFileSync(file, '');
    await expect(
      createBackup({
        ownerUrl: 'postgres://unused',
        dataDir: server.dataDir,
        target: resolveTarget(join(file, 'target')),
      }),
    ).rejects.toThrow(`backup target ${join(file, 'target')} cannot be written`);
  });
});
