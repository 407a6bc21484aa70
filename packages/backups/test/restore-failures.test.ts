// Restores that cannot succeed say why and where to look: a directory the restored PostgreSQL could not reach is
// named before anything is copied, and the log of a replay that failed is kept where the error says it is.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemUser } from '@auction-ops/database';
import { createBackup, restoreBackup, type BackupManifest } from '../src/index.js';
import { startArchivingServer, type ArchivingServer } from './support.js';

let server: ArchivingServer;
let backup: BackupManifest;

beforeAll(async () => {
  server = await startArchivingServer();
  // A backup of a cluster whose settings do not fit this machine: PostgreSQL cannot map 2 TB of shared memory, so
  // the restored cluster stops at its start. The source never restarts with it (ALTER SYSTEM takes effect then).
  await server.sql`alter system set shared_buffers = '2TB'`;
  backup = await createBackup({ ownerUrl: server.cluster.url, dataDir: server.dataDir, target: server.target });
  await server.sql`alter system reset shared_buffers`;
  await server.stop();
}, 300_000);

afterAll(() => {
  if (server) rmSync(server.root, { recursive: true, force: true });
});

describe('restore failures', () => {
  it('keeps the log of a failed replay where its message says, and removes the directory', async () => {
    const dir = join(server.root, 'restored');
    const failure = await restoreBackup({ target: server.target, id: backup.id, dataDir: dir }).catch((e) => e);
    expect(failure).toBeInstanceOf(Error);
    const [, reasons, log] = /^recovery failed: (.*) \(see (.+)\)$/s.exec((failure as Error).message) ?? [];
    expect(reasons).toMatch(/shared memory/);
    expect(log).toBe(`${dir}.restore-failed.log`);
    expect(readFileSync(log, 'utf8')).toMatch(/FATAL/);
    expect(existsSync(dir)).toBe(false);
  });

  it.runIf(systemUser() !== undefined)(
    'as root, names a parent directory PostgreSQL cannot pass through, before copying anything',
    async () => {
      const closed = mkdtempSync(join(tmpdir(), 'auction-ops-closed-')); // mode 700, owned by root
      try {
        const dir = join(closed, 'restored');
        await expect(restoreBackup({ target: server.target, id: backup.id, dataDir: dir })).rejects.toThrow(
          `cannot pass through ${closed} (mode 700) to reach ${closed}`,
        );
        expect(existsSync(dir)).toBe(false);
        mkdirSync(dir);
        await expect(restoreBackup({ target: server.target, id: backup.id, dataDir: dir })).rejects.toThrow(
          `chmod o+x ${closed}`,
        );
      } finally {
        rmSync(closed, { recursive: true, force: true });
      }
    },
  );
});
