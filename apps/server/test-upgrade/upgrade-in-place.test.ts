// An upgrade in place, as an operator does it: an earlier service (built from its commit in a git worktree) serves a
// DATA_DIR with users, tenant rows, objects, a refresh token, a webhook delivery waiting on a receiver that is down
// and (from 0.1.0 on) a base backup; it is stopped with SIGTERM and this checkout starts on the same DATA_DIR.
// Nothing may be lost, the waiting delivery goes out, the ledger names the release, and WAL archiving carries on: a
// point-in-time restore from the pre-upgrade backup to an instant after the upgrade holds what was written after it.
// From release 0.1.0, and from the pre-release state of 734ca04 (issue 55: its start failed on webhooks/0003).
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findFreePort, loadMigrations, runningClusterUrl } from '@auction-ops/database';
import { migrationSets } from '@auction-ops/server-config/migration-sets';
import { version } from '../src/version.js';
import { checkOutRelease, type OldRelease } from './support/old-release.js';
import { PRE_RELEASE, RELEASES } from './support/origins.js';
import { type ReleaseProcess, runCli, startRelease } from '../test/support/release-process.js';
import { startSignedReceiver, type SignedReceiver } from './support/signed-receiver.js';
import { type Arranged, arrange, client, type Keys, sha256Of, signIn, submit } from './support/upgrade-fixture.js';
import { printTimings, type Timings } from './support/timings.js';

const ORIGINS = [
  { ...RELEASES[0], backups: true },
  // Before the changelog's first entry: no backups yet (its DATA_DIR has no archive to carry on).
  { ...PRE_RELEASE, backups: false },
];
const START = fileURLToPath(new URL('../bin/start.mjs', import.meta.url));
const CLI = fileURLToPath(new URL('../../cli/bin/auction-ops.js', import.meta.url));
const WEBHOOK_SECRET = 'upgrade-webhook-secret-0123456789';

/** Polls until `check` holds; fails naming `what` at the deadline. */
async function until(check: () => Promise<boolean> | boolean, what: string, timeoutMs = 60_000) {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe.each(ORIGINS)('upgrade in place from $name', (origin) => {
  let root: string;
  let dataDir: string;
  let target: string;
  let old: OldRelease | undefined;
  let oldServer: ReleaseProcess | undefined;
  let server: ReleaseProcess | undefined;
  let restored: ReleaseProcess | undefined;
  let receiver: SignedReceiver;
  let keys: Keys;
  let arranged: Arranged;
  let backupId: string;
  let ledgerBefore: Set<string>;
  let deliveryId: string;
  let anonBefore: Record<string, string>;
  const timings: Timings = {};

  /** Settings both releases run with: the same in the old one, so the queued delivery's retry delay is configured. */
  async function environment(): Promise<Record<string, string>> {
    return {
      DATA_DIR: dataDir,
      PORT: String(await findFreePort()),
      ...(origin.backups ? { BACKUP_TARGET: target, BACKUP_ARCHIVE_TIMEOUT_SECONDS: '1' } : {}),
      RATE_LIMITS_ENABLED: 'false',
      AUTH_RATE_LIMIT_SIGN_IN: '100000',
      AUTH_RATE_LIMIT_SIGN_UP: '100000',
      AUTH_RATE_LIMIT_REFRESH: '100000',
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_ALLOWED_CIDRS: '127.0.0.0/8',
      // Six attempts 5 s apart: the delivery outlives the old server's stop and is due soon after the new start.
      WEBHOOK_RETRY_SCHEDULE: '0,5,5,5,5,5',
      WEBHOOK_JITTER: '0',
      WEBHOOK_POLL_INTERVAL_MS: '200',
      PENDING_CHECK_ENABLED: 'false',
      PUSH_PROVIDER: 'outbox',
    };
  }

  async function withOwner<T>(run: (sql: postgres.Sql) => Promise<T>): Promise<T> {
    const url = runningClusterUrl(join(dataDir, 'postgres'));
    if (!url) throw new Error('no running cluster in DATA_DIR');
    const sql = postgres(url, { max: 1, onnotice: () => {} });
    try {
      return await run(sql);
    } finally {
      await sql.end();
    }
  }

  /** What the anon key reads of each tenant table: a row count, or the error code. */
  async function anonReads(url: string): Promise<Record<string, string>> {
    const reads: Record<string, string> = {};
    for (const table of ['auctions', 'auction_members', 'locations', 'lot_submissions', 'webhook_endpoints']) {
      const read = await client(url, keys.anon).from(table).select('*');
      reads[table] = read.error ? String(read.error.code) : `rows: ${read.data.length}`;
    }
    return reads;
  }

  const deliveryOf = async (endpointId: string) =>
    (
      await client(server?.url ?? oldServer!.url, keys.anon, keys.service)
        .from('webhook_deliveries')
        .select('id, status, attempt_count, last_status_code')
        .eq('endpoint_id', endpointId)
    ).data ?? [];

  let began: number;
  beforeAll(async () => {
    began = performance.now();
    root = mkdtempSync(join(tmpdir(), 'auction-ops-upgrade-'));
    // As root, PostgreSQL runs as the postgres user, which must pass through here to DATA_DIR; before 0.1.0 the
    // service opened only DATA_DIR itself to it, not the directories above.
    chmodSync(root, 0o711);
    dataDir = join(root, 'data');
    target = join(root, 'backups');
    receiver = await startSignedReceiver(WEBHOOK_SECRET);

    old = await checkOutRelease(origin.commit);
    timings['old release checkout and install'] = old.buildMs;
    expect(old.version).toBe(origin.version);
    const oldEnv = { ...(await environment()), WEB_CONCURRENCY: '1' };
    oldServer = await startRelease(old.launch, oldEnv);
    timings['old server first start'] = oldServer.startMs;
    keys = { anon: oldServer.anonKey, service: oldServer.serviceRoleKey };
    arranged = await arrange(oldServer.url, keys, receiver.url, WEBHOOK_SECRET);

    // The receiver is down: the delivery has been tried, refused with 503, and waits for its next attempt.
    await until(async () => {
      const [d] = await deliveryOf(arranged.endpointId);
      return d?.status === 'queued' && d.attempt_count >= 1 && d.last_status_code === 503;
    }, 'a delivery queued for retry');
    deliveryId = (await deliveryOf(arranged.endpointId))[0].id;

    if (origin.backups) {
      const backup = await runCli(old.cliBin, oldEnv, 'backup', 'create', '--json');
      expect(backup.code, backup.stderr).toBe(0);
      backupId = JSON.parse(backup.stdout).id;
    }
    ledgerBefore = new Set(
      await withOwner(async (sql) =>
        (await sql<{ key: string }[]>`select package || '/' || name as key from auction_ops.migrations`).map(
          (r) => r.key,
        ),
      ),
    );
    anonBefore = await anonReads(oldServer.url);
    expect(await oldServer.stop()).toBe(0);
    oldServer = undefined;
    // The new command reads the old database without changing it: no release recorded yet, nothing refused.
    const before = await runCli(CLI, oldEnv, 'status');
    expect(before.code, before.stderr).toBe(0);
    expect(before.stdout).toContain('last started on this database: none recorded');

    receiver.up();
    server = await startRelease(START, { ...(await environment()), WEB_CONCURRENCY: '2' });
    timings['upgrade: new server start on the old DATA_DIR'] = server.startMs;
  }, 900_000);

  afterAll(async () => {
    for (const proc of [oldServer, server, restored]) await proc?.stop().catch(() => {});
    await receiver?.close();
    await old?.remove();
    if (root) rmSync(root, { recursive: true, force: true });
    timings['in all, checkout to clean-up'] = performance.now() - began;
    printTimings(timings, `upgrade in place from ${origin.name}`);
  });

  it('reports the new version', async () => {
    const health = await (await fetch(`${server!.url}/health`)).json();
    expect(health).toMatchObject({ status: 'ok', version });
    expect(version).not.toBe(origin.version);
    expect(keys).toEqual({ anon: server!.anonKey, service: server!.serviceRoleKey });
  });

  it('keeps passwords and the refresh token issued before', async () => {
    for (const member of [arranged.alice, arranged.bob]) await signIn(server!.url, keys.anon, member.email);
    const refreshed = await client(server!.url, keys.anon).auth.refreshSession({
      refresh_token: arranged.refreshToken,
    });
    expect(refreshed.error).toBeNull();
    const own = client(server!.url, keys.anon, refreshed.data.session!.access_token);
    expect((await own.from('auctions').select('id')).data).toEqual([{ id: arranged.alice.auctionId }]);
  });

  it('keeps the objects byte for byte', async () => {
    for (const [name, sha] of arranged.objects) expect(await sha256Of(server!.url, keys, name), name).toBe(sha);
  });

  it('keeps row-level security: each admin sees their auction alone, anon sees nothing', async () => {
    for (const [me, other] of [
      [arranged.alice, arranged.bob],
      [arranged.bob, arranged.alice],
    ]) {
      const own = client(server!.url, keys.anon, (await signIn(server!.url, keys.anon, me.email)).access_token);
      const locations = await own.from('locations').select('id, auction_id');
      expect(locations.data).toEqual([{ id: me.locationId, auction_id: me.auctionId }]);
      const submissions = await own.from('lot_submissions').select('id');
      expect(submissions.data?.map((s) => s.id).sort()).toEqual([...me.submissionIds].sort());
      const foreign = await own.from('lot_submissions').select('id').eq('auction_id', other.auctionId);
      expect(foreign.data).toEqual([]);
    }
    // Anon gets no row, by policy (empty) or by grant (42501), exactly as from the old release.
    const after = await anonReads(server!.url);
    expect(after).toEqual(anonBefore);
    for (const [table, read] of Object.entries(after)) expect(read, table).toMatch(/^(rows: 0|42501)$/);
  });

  it('delivers the delivery queued before the upgrade, signed', async () => {
    await until(() => receiver.delivered.some((d) => d.id === deliveryId), 'the queued delivery', 90_000);
    expect(receiver.rejected).toBe(0);
    expect(receiver.refused).toBeGreaterThanOrEqual(1);
    const delivered = receiver.delivered.find((d) => d.id === deliveryId)!;
    expect(delivered.event).toBe('submission.created');
    await until(async () => (await deliveryOf(arranged.endpointId))[0]?.status === 'delivered', 'delivered status');
  });

  it('records the release in the ledger', async () => {
    const { rows, releases } = await withOwner(async (sql) => ({
      rows: await sql<{ key: string; release: string | null }[]>`
        select package || '/' || name as key, release from auction_ops.migrations`,
      releases: await sql<{ version: string }[]>`select version from auction_ops.releases`,
    }));
    const current = loadMigrations(migrationSets).map((m) => `${m.set}/${m.name}`);
    expect(rows.map((r) => r.key).sort()).toEqual([...current].sort());
    for (const row of rows) expect(row.release, row.key).toBe(ledgerBefore.has(row.key) ? null : version);
    expect(releases.map((r) => r.version)).toEqual([version]);
    const status = await runCli(CLI, { DATA_DIR: dataDir, BACKUP_TARGET: target }, 'status');
    expect(status.stdout).toContain(`last started on this database: ${version}`);
  });

  // Registered only where the old release made a backup.
  if (origin.backups)
    it('keeps archiving: a restore from the pre-upgrade backup reaches a write made after the upgrade', async () => {
      const after = await submit(server!.url, keys.anon, arranged.alice, 'written after the upgrade');
      await new Promise((r) => setTimeout(r, 50)); // the instant must lie strictly between the two commits
      const instant = new Date().toISOString();
      await new Promise((r) => setTimeout(r, 50));
      const later = await submit(server!.url, keys.anon, arranged.alice, 'written after the restore point');
      // Close the segment holding both commits and wait until the archiver has copied it.
      await withOwner(async (sql) => {
        const [{ segment }] = await sql<{ segment: string }[]>`select pg_walfile_name(pg_switch_wal()) as segment`;
        await until(async () => {
          const [s] = await sql<{ last: string | null }[]>`select last_archived_wal as last from pg_stat_archiver`;
          return s.last !== null && s.last >= segment;
        }, `segment ${segment} archived`);
      });
      const restoredDir = join(root, 'restored');
      const started = performance.now();
      const restore = await runCli(
        CLI,
        { BACKUP_TARGET: target },
        'backup',
        'restore',
        backupId,
        '--data-dir',
        restoredDir,
        '--to-time',
        instant,
      );
      expect(restore.code, restore.stderr + restore.stdout).toBe(0);
      timings['point-in-time restore across the upgrade'] = performance.now() - started;
      // The restored copy is only read: no archiving into the live target, no deliveries sent twice.
      const { BACKUP_TARGET: _target, ...env } = await environment();
      restored = await startRelease(START, { ...env, DATA_DIR: restoredDir, WEBHOOK_DISPATCHER_ENABLED: 'false' });
      const own = client(
        restored.url,
        keys.anon,
        (await signIn(restored.url, keys.anon, arranged.alice.email)).access_token,
      );
      const ids = ((await own.from('lot_submissions').select('id')).data ?? []).map((s) => s.id);
      expect(ids).toContain(after);
      expect(ids).not.toContain(later);
      expect(await sha256Of(restored.url, keys, 'photos/large.bin')).toBe(arranged.objects.get('photos/large.bin'));
    });
});
