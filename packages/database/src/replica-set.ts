// Read replicas of the primary: one pool per replica, handed out round robin while healthy. A periodic `select 1`
// and the connection failures callers report decide health; with no replica healthy, reads go to the primary.
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
  /** Rotation changes: `warn` when a replica leaves, `info` when it joins (also at start). */
  log?: (level: 'info' | 'warn', message: string, fields: Record<string, unknown>) => void;
}

export interface ReplicaStatus {
  /** host:port/database, without credentials (for logs and health output). */
  name: string;
  healthy: boolean;
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
}

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
  const replicas: Replica[] = options.urls.map((url) => ({
    name: describeUrl(url),
    // A short connect timeout: a replica that does not answer must not hold a request for postgres.js's default 30 s.
    sql: postgres(url, { onnotice: () => {}, connect_timeout: 5, ...options.poolOptions }),
    healthy: false,
    checking: false,
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
      await Promise.race([r.sql`select 1`, deadline]);
      setHealth(r, true);
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
    status: () => replicas.map((r) => ({ name: r.name, healthy: r.healthy })),
    async close() {
      clearInterval(timer);
      // Requests in flight on a healthy replica may finish; an unhealthy one has only stuck connection attempts.
      await Promise.all(replicas.map((r) => r.sql.end({ timeout: r.healthy ? 5 : 0 })));
    },
  };
}
