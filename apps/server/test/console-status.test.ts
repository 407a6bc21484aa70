// The admin console over HTTP without a browser: the page and its hashed assets are served from this origin with
// the caching and security headers they need, and GET /console/api/status is for super admins only. Its states:
// webhook backlog and disabled endpoints, disk and backups here (external database); WAL archiving on, with a base
// backup, and failing, on a server process with its own embedded cluster and BACKUP_TARGET.
import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findFreePort, runningClusterUrl } from '@auction-ops/database';
import { until } from './support/loopback.js';
import {
  type ServerProcess,
  type SignedUpUser,
  serverProcess,
  startTestServer,
  TEST_PASSWORD,
  type TestServer,
  testClient,
} from './support/test-server.js';

const execFileAsync = promisify(execFile);

let server: TestServer;
let root: SignedUpUser;
let mia: SignedUpUser;

beforeAll(async () => {
  server = await startTestServer();
  [root, mia] = await Promise.all([server.signUp('root@status.test'), server.signUp('mia@status.test')]);
  await server.db.sql`insert into public.super_admins (user_id) values (${root.id})`;
});

afterAll(async () => {
  await server?.stop();
});

const status = (token?: string) =>
  fetch(`${server.url}/console/api/status`, token ? { headers: { authorization: `Bearer ${token}` } } : {});

it('serves the page with a same-origin policy and its hashed script and style sheet for good', async () => {
  const page = await fetch(`${server.url}/console`);
  expect(page.status).toBe(200);
  expect(page.headers.get('content-security-policy')).toContain("default-src 'self'");
  expect(page.headers.get('cache-control')).toBe('no-cache');
  const html = await page.text();
  expect(html).toContain(`data-anon-key="${server.anonKey}"`);
  const assets = [...html.matchAll(/\/console\/assets\/(console-[0-9a-f]{16}\.(?:js|css))/g)].map((m) => m[1]);
  expect(assets).toHaveLength(2);
  for (const name of assets) {
    const asset = await fetch(`${server.url}/console/assets/${name}`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect((await asset.arrayBuffer()).byteLength).toBeGreaterThan(0);
  }
  expect((await fetch(`${server.url}/console/assets/console-0000000000000000.js`)).status).toBe(404);
});

it('answers the status to a super admin only: 401 without or with a bad token, 403 to anyone else', async () => {
  expect((await status()).status).toBe(401);
  expect((await status('not-a-token')).status).toBe(401);
  expect((await status(server.anonKey)).status).toBe(403);
  expect((await status(server.serviceRoleKey)).status).toBe(403);
  const refused = await status(mia.token);
  expect(refused.status).toBe(403);
  expect(await refused.json()).toEqual({ message: 'only super admins may read the server status' });
  const allowed = await status(root.token);
  expect(allowed.status).toBe(200);
  expect(allowed.headers.get('cache-control')).toBe('no-store');
  expect(await allowed.json()).toMatchObject({
    processes: 1,
    database: { status: 'up' },
    replicas: [],
    limits: { rest_max_rows: 1000, db_pool_size: 20 },
  });
});

it('backups: super admins only; a server without BACKUP_TARGET (here an external database) says so and refuses POST', async () => {
  const backups = (token: string, method = 'GET') =>
    fetch(`${server.url}/console/api/backups`, { method, headers: { authorization: `Bearer ${token}` } });
  expect((await backups(mia.token)).status).toBe(403);
  expect((await backups(mia.token, 'POST')).status).toBe(403);
  const listed = await backups(root.token);
  expect(listed.status).toBe(200);
  expect(await listed.json()).toEqual({ configured: false, backups: [] });
  const created = await backups(root.token, 'POST');
  expect(created.status).toBe(409);
  expect(await created.json()).toMatchObject({ message: expect.stringMatching(/BACKUP_TARGET/) });
});

/** The JSON answer (any: checked field by field). */
const statusJson = async (token: string, url = server.url): Promise<any> => {
  const answer = await fetch(`${url}/console/api/status`, { headers: { authorization: `Bearer ${token}` } });
  expect(answer.status).toBe(200);
  return answer.json();
};

it('states: backups off without BACKUP_TARGET, the disk of DATA_DIR with its numbers, each part with a reason', async () => {
  const body = await statusJson(root.token);
  expect(['ok', 'warning', 'failing']).toContain(body.state);
  expect(body.checks.database).toMatchObject({
    state: 'ok',
    reason: expect.stringMatching(/^up, \d+ of \d+ connections$/),
  });
  expect(body.checks.backups).toEqual({
    state: 'off',
    reason: 'off: BACKUP_TARGET is not set, so no backups are taken',
  });
  expect(body.checks.replicas).toEqual({ state: 'off', reason: 'none configured' });
  const disk = body.checks.disk;
  expect(['ok', 'warning', 'failing']).toContain(disk.state);
  expect(disk.free_bytes).toBeGreaterThan(0);
  expect(disk.total_bytes).toBeGreaterThanOrEqual(disk.free_bytes);
  expect(disk.reason).toMatch(/ free of .* \(\d+\.\d %\)/);
  expect(typeof disk.path).toBe('string');
  // The free-space floor: its default (the larger of 1 GiB and 5 % of the filesystem), and no refusals yet.
  expect(disk.floor_bytes).toBe(Math.max(1024 ** 3, Math.ceil(disk.total_bytes * 0.05)));
  expect(disk.refusing_writes).toBe(disk.free_bytes < disk.floor_bytes);
  expect(disk.refusals).toEqual({ upload: 0, import: 0, backup: 0, drill: 0 });
});

it('states: the webhook backlog (due, the oldest one’s wait) and a disabled endpoint, named', async () => {
  const [{ id: auction }] = await server.db.sql`
    insert into public.auctions (name, slug) values ('Status Motors', 'status-motors') returning id`;
  const [{ id: live }] = await server.db.sql`
    insert into public.webhook_endpoints (auction_id, url, events, secret)
    values (${auction}, 'https://live.invalid/hook', ${['member.joined']}, 'a-signing-secret-of-some-length')
    returning id`;
  await server.db.sql`
    insert into public.webhook_endpoints (auction_id, url, events, secret, is_active, disabled_reason)
    values (${auction}, 'https://gone.invalid/hook', ${['member.joined']}, 'a-signing-secret-of-some-length', false,
      'receiver gone')`;
  // Due for ten minutes and leased by a dispatcher elsewhere (so this server's dispatcher leaves it alone).
  await server.db.sql`
    insert into public.webhook_deliveries (endpoint_id, auction_id, event_type, payload, next_attempt_at, created_at,
      locked_by, locked_until)
    values (${live}, ${auction}, 'member.joined', ${server.db.sql.json({})}, now() - interval '10 minutes',
      now() - interval '10 minutes', 'another-process', now() + interval '1 hour')`;
  const { webhooks } = (await statusJson(root.token)).checks;
  expect(webhooks).toMatchObject({
    state: 'warning',
    due: 1,
    disabled_endpoints: 1,
    disabled: [{ url: 'https://gone.invalid/hook', auction: 'Status Motors', reason: 'receiver gone' }],
  });
  expect(webhooks.oldest_due_seconds).toBeGreaterThanOrEqual(600);
  expect(webhooks.reason).toMatch(/^1 delivery due, the oldest for 10 min( \d+ s)?; 1 endpoint disabled$/);
});

it('states: backups with BACKUP_TARGET on an external database are not managed here', async () => {
  const target = mkdtempSync(join(tmpdir(), 'auction-ops-console-status-external-'));
  const external = await startTestServer({ BACKUP_TARGET: target });
  try {
    const admin = await external.signUp('root@external-status.test');
    await external.db.sql`insert into public.super_admins (user_id) values (${admin.id})`;
    expect((await statusJson(admin.token, external.url)).checks.backups).toEqual({
      state: 'off',
      reason: 'not managed here: the database is external (DATABASE_URL); back it up where it runs',
    });
  } finally {
    await external.stop();
    rmSync(target, { recursive: true, force: true });
  }
});

describe('on its own embedded cluster with BACKUP_TARGET', () => {
  const CLI = fileURLToPath(new URL('../../cli/bin/auction-ops.js', import.meta.url));
  let dir: string;
  let dataDir: string;
  let target: string;
  let url: string;
  let proc: ServerProcess;
  let owner: postgres.Sql;
  let token: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'auction-ops-console-status-'));
    target = join(dir, 'target');
    dataDir = join(dir, 'data');
    const port = await findFreePort();
    const launcher = serverProcess(
      { DATA_DIR: dataDir, BACKUP_TARGET: target, BACKUP_ARCHIVE_TIMEOUT_SECONDS: '1', RATE_LIMITS_ENABLED: 'false' },
      port,
    );
    proc = launcher.start();
    await until(
      async () => {
        if (proc.child.exitCode !== null) throw new Error(`no server: ${proc.output()}`);
        // The banner (with the anon key) is printed once it listens, possibly just after /health answers.
        return proc.output().includes('anon key:') && (await launcher.healthy());
      },
      'the server to start',
      90_000,
    );
    url = `http://127.0.0.1:${port}`;
    const anonKey = /anon key:\s+(\S+)/.exec(proc.output())?.[1];
    expect(anonKey).toBeDefined();
    const { data, error } = await testClient(url, anonKey!).auth.signUp({
      email: 'rita@status.test',
      password: TEST_PASSWORD,
    });
    if (error) throw error;
    token = data.session!.access_token;
    const granted = spawnSync(process.execPath, [CLI, 'super-admin', 'grant', 'rita@status.test'], {
      env: { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'warn' },
      encoding: 'utf8',
    });
    expect(granted.status, `${granted.stdout}${granted.stderr}`).toBe(0);
    owner = postgres(runningClusterUrl(join(dataDir, 'postgres'))!, { max: 1, onnotice: () => {} });
  }, 120_000);

  afterAll(async () => {
    await owner?.end();
    if (proc?.child.exitCode === null) proc.child.kill('SIGTERM');
    await proc?.exited;
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('archiving on: a warning until the first base backup, ok after it; failing once archive_command fails', async () => {
    await owner`select pg_switch_wal()`;
    await until(
      async () => (await statusJson(token, url)).checks.backups.archiving.last_archived_at !== null,
      'a segment archived',
    );
    const before = (await statusJson(token, url)).checks.backups;
    expect(before.state).toBe('warning');
    // Which warning comes first depends on whether archiving lags at this moment (a busy machine's archiver may
    // have a segment waiting longer than three archive timeouts): both are named, in either order.
    expect(before.reason).toContain('no base backup yet: the WAL archive alone cannot be restored');
    expect(before.reason).toContain('last segment archived');
    expect(before.base_backup).toEqual({ state: 'warning', reason: expect.stringMatching(/^no base backup yet/) });

    const made = await fetch(`${url}/console/api/backups`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(made.status).toBe(201);
    const { id } = (await made.json()) as { id: string };
    // The backup's own WAL (its end segment and history file) is archived after it returns, asynchronously: until
    // then archiving has segments waiting, which is a warning. Wait for that, not for a lucky first read.
    await until(
      async () => (await statusJson(token, url)).checks.backups.state !== 'warning',
      "the base backup's WAL archived",
    );
    const after = (await statusJson(token, url)).checks.backups;
    expect(after).toMatchObject({ state: 'ok', base_backup: { state: 'ok', id } });
    expect(after.archiving).toMatchObject({ state: 'ok', failed_count: 0, timeout_seconds: 1 });

    // The archive's directory becomes a file: archive_command cannot store the next segment. (Moved aside in one
    // step: removing it could race a segment the archiver is writing into it at that moment.)
    renameSync(join(target, 'wal'), join(target, 'wal.aside'));
    writeFileSync(join(target, 'wal'), 'not a directory');
    try {
      await owner`create table if not exists public.status_probe (n int)`;
      await owner`insert into public.status_probe values (1)`;
      await owner`select pg_switch_wal()`;
      await until(
        async () => (await statusJson(token, url)).checks.backups.state === 'failing',
        'archiving to fail',
        60_000,
      );
      const failing = (await statusJson(token, url)).checks.backups;
      // The file that failed is a segment or, when the base backup just ended, its history file (….backup).
      expect(failing.reason).toMatch(
        /^archiving [0-9A-F]{24}(\.[0-9A-F]{8}\.backup)? fails \(\d+ failures\); \d+ segments? waiting in pg_wal/,
      );
      expect(failing.archiving.failed_count).toBeGreaterThan(0);
      expect(failing.archiving.pending_segments).toBeGreaterThan(0);
      expect((await statusJson(token, url)).state).toBe('failing');
    } finally {
      // Archiving catches up again (into the directory as it was, owned by the user PostgreSQL runs as), so the
      // server stops without a backlog.
      rmSync(join(target, 'wal'), { force: true });
      renameSync(join(target, 'wal.aside'), join(target, 'wal'));
    }
  });
  // A drill restores and starts a whole cluster, after a CLI process starts: far over the default 30 s on a busy
  // machine.
  it('shows a restore drill run by `auction-ops backup drill` at once, on the status page and in `status`', async () => {
    const env = { ...process.env, DATA_DIR: dataDir, BACKUP_TARGET: target, LOG_LEVEL: 'warn' };
    // Not spawnSync: a blocked event loop would keep this process from seeing the server close idle connections.
    const drill = await execFileAsync(process.execPath, [CLI, 'backup', 'drill', '--json'], { env });
    const result = JSON.parse(drill.stdout);
    expect(result).toMatchObject({ outcome: 'passed', failures_total: 0, checked: { sign_in: expect.any(String) } });
    const backups = (await statusJson(token, url)).checks.backups;
    expect(backups.drill).toMatchObject({
      state: 'ok',
      outcome: 'passed',
      backup_id: result.backup_id,
      duration_seconds: result.duration_seconds,
    });
    expect(backups.drill.reason).toMatch(/^restore drill passed \d+ s ago$/);
    const cliStatus = await execFileAsync(process.execPath, [CLI, 'status'], { env });
    expect(cliStatus.stdout).toMatch(/^drill: passed at \S+ in [\d.]+ s: \d+ tables/m);
  }, 240_000);
});
