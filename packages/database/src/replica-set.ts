// Read replicas of the primary: one pool per replica, handed out round robin while healthy. A periodic check (the
// replica answers, and its replay lag is within bounds) and the connection failures callers report decide health;
// with no replica healthy, reads go to the primary.
import postgres from 'postgres';

export interface ReplicaSetOptions {
  /** Replica URLs, carrying the credentials to log in with (the request role's: a physical copy has the roles). */
  urls: readonly string[];
  /** Where reads go when no replica is healthy (or none is configured). */
  primary: postgres.Sql;
  /** postgres.js options of every replica pool (size, preparing, application name). */
  poolOptions?: postgres.Options<Record<string, postgres.PostgresType>>;
  /** Time between two health checks of a replica (default 1000 ms). */
  checkIntervalMs?: number;
  /** A check not answered within this time counts as failed (default 2000 ms). */
  checkTimeoutMs?: number;
  /** A replica whose replay is further behind than this leaves rotation until it catches up (default 5000 ms). */
  maxLagMs?: number;
  /** Rotation changes: `warn` when a replica leaves, `info` when it joins (also at start). */
  log?: (level: 'info' | 'warn', message: string, fields: Record<string, unknown>) => void;
}

export interface ReplicaStatus {
  /** host:port/database, without credentials (for logs and health output). */
  name: string;
  healthy: boolean;
  /** Replay lag at the last check that got an answer, in milliseconds; null before any answer. */
  lagMs: number | null;
}

export interface ReplicaSet {
  /** Number of configured replicas, healthy or not. */
  readonly size: number;
  /** The next healthy replica's pool, round robin; the primary when none is healthy. */
  reader(): postgres.Sql;
  /** Whether `sql` is one of the replica pools (not the primary). */
  isReplica(sql: postgres.Sql): boolean;
  /** A request could not use this replica: out of rotation until a health check succeeds again. */
  markDown(sql: postgres.Sql, reason: string): void;
  /** Runs one health check of every replica now (also done periodically). */
  check(): Promise<void>;
  status(): ReplicaStatus[];
  close(): Promise<void>;
}

interface Replica {
  name: string;
  sql: postgres.Sql;
  healthy: boolean;
  checking: boolean;
  lagMs: number | null;
}

/**
 * Replay lag as a standby sees it: none when everything received is replayed (an idle primary sends nothing, so an
 * old last-replayed commit is no lag), else the age of the last replayed commit. The latter overstates the lag of a
 * replica that falls behind just after a quiet spell, so it leaves rotation early rather than late. A server not in
 * recovery has no lag.
 */
const LAG_QUERY = `select case
    when not pg_is_in_recovery() or pg_last_wal_receive_lsn() = pg_last_wal_replay_lsn() then 0
    else coalesce(extract(epoch from clock_timestamp() - pg_last_xact_replay_timestamp()) * 1000, 0)
  end::float8 as lag_ms`;

/** host:port/database of a URL: the credentials never reach a log line. */
export function describeUrl(url: string): string {
  const u = new URL(url);
  return `${u.hostname}:${u.port || '5432'}${u.pathname}`;
}

/** Creates the pools and runs a first health check before returning, so the first request sees the real state. */
export async function createReplicaSet(options: ReplicaSetOptions): Promise<ReplicaSet> {
  const log = options.log ?? (() => {});
  const interval = options.checkIntervalMs ?? 1000;
  const timeout = options.checkTimeoutMs ?? 2000;
  const maxLag = options.maxLagMs ?? 5000;
  const replicas: Replica[] = options.urls.map((url) => ({
    name: describeUrl(url),
    // A short connect timeout: a replica that does not answer must not hold a request for postgres.js's default 30 s.
    sql: postgres(url, { onnotice: () => {}, connect_timeout: 5, ...options.poolOptions }),
    healthy: false,
    checking: false,
    lagMs: null,
  }));
  const byPool = new Map(replicas.map((r) => [r.sql, r]));
  let next = 0;

  const setHealth = (r: Replica, healthy: boolean, reason?: string) => {
    if (r.healthy === healthy) return;
    r.healthy = healthy;
    if (healthy) log('info', 'read replica in rotation', { replica: r.name });
    else log('warn', 'read replica out of rotation', { replica: r.name, reason });
  };

  const checkOne = async (r: Replica) => {
    if (r.checking) return;
    r.checking = true;
    let timer: NodeJS.Timeout | undefined;
    try {
      const deadline = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${timeout} ms`)), timeout);
      });
      const [{ lag_ms }] = await Promise.race([r.sql.unsafe<{ lag_ms: number }[]>(LAG_QUERY), deadline]);
      r.lagMs = Math.round(lag_ms);
      if (r.lagMs > maxLag) setHealth(r, false, `replay lag ${r.lagMs} ms over ${maxLag} ms`);
      else setHealth(r, true);
    } catch (error) {
      setHealth(r, false, (error as Error).message);
    } finally {
      clearTimeout(timer);
      r.checking = false;
    }
  };
  const check = async () => {
    await Promise.all(replicas.map(checkOne));
  };

  await check();
  const timer = replicas.length > 0 ? setInterval(() => void check(), interval).unref() : undefined;

  return {
    size: replicas.length,
    reader() {
      for (let i = 0; i < replicas.length; i++) {
        const r = replicas[next];
        next = (next + 1) % replicas.length;
        if (r.healthy) return r.sql;
      }
      return options.primary;
    },
    isReplica: (sql) => byPool.has(sql),
    markDown(sql, reason) {
      const r = byPool.get(sql);
      if (r) setHealth(r, false, reason);
    },
    check,
    status: () => replicas.map((r) => ({ name: r.name, healthy: r.healthy, lagMs: r.lagMs })),
    async close() {
      clearInterval(timer);
      // Requests in flight on a healthy replica may finish; an unhealthy one has only stuck connection attempts.
      await Promise.all(replicas.map((r) => r.sql.end({ timeout: r.healthy ? 5 : 0 })));
    },
  };
}
