// The admin console (@auction-ops/console) over this server: who may read the status (a super admin, as the
// database judges under the token's claims) and what the status holds. Replica addresses stay out: they may carry
// passwords.
import { createBackup, listBackups, resolveTarget, summaryOf } from '@auction-ops/backups';
import { AuctionDataError, exportAuction, resolveAuction } from '@auction-ops/auction-data';
import type { AuctionExports, Backups, Check, ConsoleAccess, ServerStatus } from '@auction-ops/console';
import { consoleRoutes, databaseCheck, worstState } from '@auction-ops/console';
import { inRequestTransaction } from '@auction-ops/database';
import type { RealtimeStats } from '@auction-ops/realtime';
import type { StorageService } from '@auction-ops/storage';
import type { Hono } from 'hono';
import { PassThrough, Readable } from 'node:stream';
import type { ServerContext } from '../context.js';
import { version } from '../version.js';
import { backupsStatusOf, diskStatusOf, replicasStatusOf, webhooksStatusOf } from './console-checks.js';

async function accessOf(ctx: ServerContext, token: string): Promise<ConsoleAccess> {
  let claims: Awaited<ReturnType<ServerContext['verifier']['verify']>>;
  try {
    claims = ctx.verifier.cached(token) ?? (await ctx.verifier.verify(token));
  } catch {
    return 'unauthenticated';
  }
  if (claims.role !== 'authenticated') return 'forbidden';
  const [row] = await inRequestTransaction(
    ctx.sql,
    'authenticated',
    claims,
    (tx) => tx`select public.is_super_admin() as ok`,
  );
  return row?.ok === true ? 'allowed' : 'forbidden';
}

function realtimeOf(stats: RealtimeStats) {
  return {
    connections: stats.connections,
    channels: stats.channels,
    frames_sent: stats.framesSent,
    frames_received: stats.framesReceived,
  };
}

async function statusOf(
  ctx: ServerContext,
  realtime: () => RealtimeStats,
  backups: () => Promise<Check & Record<string, unknown>>,
): Promise<ServerStatus> {
  const { config } = ctx;
  const up = await ctx.database.check();
  const [db] = up
    ? await ctx.ownerSql`select current_setting('server_version') as server_version,
        pg_database_size(current_database())::bigint as size_bytes,
        (select count(*)::int from pg_stat_activity where datname = current_database()) as connections,
        current_setting('max_connections')::int as max_connections`
    : [];
  const database = databaseCheck({ up, connections: db?.connections, maxConnections: db?.max_connections });
  const replicas = replicasStatusOf(ctx);
  const unreadable = (error: unknown): Check => ({ state: 'failing', reason: `could not be read: ${String(error)}` });
  const noDatabase: Check = { state: 'failing', reason: 'unknown: the database does not answer' };
  const [backupsNow, webhooks] = await Promise.all([
    up ? backups().catch(unreadable) : noDatabase,
    up ? webhooksStatusOf(ctx).catch(unreadable) : noDatabase,
  ]);
  const disk = diskStatusOf(ctx.diskFloor);
  return {
    // The worst state of the parts below, and each part's state with a one-line reason (docs/console.md).
    state: worstState([database.state, backupsNow.state, webhooks.state, disk.state, replicas.check.state]),
    checks: {
      database,
      backups: backupsNow,
      webhooks,
      disk,
      replicas: replicas.check,
    },
    version,
    node: process.version,
    uptime_seconds: Math.round(process.uptime()),
    processes: config.WEB_CONCURRENCY,
    database: up
      ? {
          status: 'up',
          server_version: db.server_version,
          size_bytes: Number(db.size_bytes),
          connections: db.connections,
          max_connections: db.max_connections,
        }
      : { status: 'down' },
    // This process's own counts: with WEB_CONCURRENCY above 1, each worker counts the sockets it holds.
    realtime: realtimeOf(realtime()),
    replicas: replicas.replicas,
    limits: {
      db_pool_size: config.DB_POOL_SIZE,
      rest_max_rows: config.REST_MAX_ROWS,
      rest_max_body_bytes: config.REST_MAX_BODY_BYTES,
      rate_limits_enabled: config.RATE_LIMITS_ENABLED,
      realtime_max_connections_per_ip: config.REALTIME_MAX_CONNECTIONS_PER_IP,
      import_max_bytes: config.IMPORT_MAX_BYTES,
    },
  };
}

/** The backups of BACKUP_TARGET, newest first, and a new one, as `backup list` and `backup create` take them. */
function backupsOf(ctx: ServerContext, changed: () => void): Backups | undefined {
  const { config } = ctx;
  // As the backup worker: only the embedded cluster is backed up (docs/backups.md).
  if (!config.BACKUP_TARGET || config.DATABASE_URL) return undefined;
  const target = resolveTarget(config.BACKUP_TARGET);
  return {
    // Spread: a plain object type, as the console's JSON answer takes it.
    list: async () => (await listBackups(target)).map((b) => ({ ...summaryOf(b) })).reverse(),
    create: async () => {
      const made = await createBackup({
        ownerUrl: ctx.ownerUrl,
        dataDir: config.DATA_DIR,
        target,
        floor: ctx.diskFloor,
      });
      changed();
      return { ...summaryOf(made) };
    },
  };
}

/** One auction's archive, read as the owner (the console route lets super admins alone ask), without secrets. */
function auctionExportsOf(ctx: ServerContext, storage: StorageService): AuctionExports {
  return {
    find: async (auction) => {
      try {
        return await resolveAuction(ctx.ownerSql, auction);
      } catch (error) {
        if (error instanceof AuctionDataError && error.code === 'unknown_auction') return undefined;
        throw error;
      }
    },
    stream: (auctionId) => {
      const out = new PassThrough();
      exportAuction({ sql: ctx.ownerSql, backend: storage.backend, auction: auctionId, out }).catch((error) => {
        ctx.log.error('console: auction export failed', { auction: auctionId, error: (error as Error).message });
        out.destroy(error as Error);
      });
      return Readable.toWeb(out) as ReadableStream<Uint8Array>;
    },
  };
}

export function consoleFamily(ctx: ServerContext, realtime: () => RealtimeStats, storage: StorageService): Hono {
  const backupsStatus = backupsStatusOf(ctx);
  return consoleRoutes({
    anonKey: ctx.anonKey,
    access: (token) => accessOf(ctx, token),
    status: () => statusOf(ctx, realtime, backupsStatus.read),
    backups: backupsOf(ctx, backupsStatus.changed),
    auctionExports: auctionExportsOf(ctx, storage),
  });
}
