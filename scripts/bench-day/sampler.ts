// Samples taken every two seconds through the run: the resident set and CPU time of every process (server primary and workers,
// the PostgreSQL processes summed by PSS, each generator, subscriber and receiver process), the sockets open to the
// server (keep-alive HTTP and WebSocket), the database's connections and what the busy ones were doing (waiting on a
// lock, on the client, or running), and the webhook delivery backlog (queued deliveries already due, and all queued).
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { OwnerSql } from './world.js';

export interface Sample {
  t: number;
  rss: Record<string, number>;
  /** CPU seconds (user and system) each group's live processes have used so far. */
  cpu: Record<string, number>;
  /** TCP connections established to the server's port (HTTP keep-alive and WebSocket), counted at the server's end. */
  sockets: number;
  connections?: number;
  /** Statements running for over half a second when sampled (autovacuum and the server's own jobs included). */
  longRunning?: Array<{ backend: string; seconds: number; query: string }>;
  /** The server's database connections that were not idle, by pool, state and wait event ("cpu" when none), and
   * autovacuum and a checkpoint at work. */
  activity?: Record<string, number>;
  backlogDue?: number;
  queued?: number;
  /** GET /health on a new connection (so either worker may take it), started at this sample: what a request that
   * needs no pooled connection waits (the worker's event loop, the availability check's own connection). */
  healthMs?: number;
}

/** Milliseconds until GET /health answered on a connection of its own; undefined after 10 s or on an error. */
function probeHealth(url: string): Promise<number | undefined> {
  const started = performance.now();
  return new Promise((resolve) => {
    const req = http.get(`${url}/health`, { agent: false, timeout: 10_000 }, (res) => {
      res.resume();
      res.on('end', () => resolve(performance.now() - started));
      res.on('error', () => resolve(undefined));
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(undefined));
  });
}

/** Proportional set size: shared pages split between their sharers, so PostgreSQL's processes can be summed. */
export function pssOf(pid: number): number {
  try {
    return Number(/^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'))?.[1] ?? 0) * 1024;
  } catch {
    return 0;
  }
}

const CLOCK_TICKS = 100; // USER_HZ: /proc's CPU times are in hundredths of a second on Linux

/** CPU seconds a process has used (utime + stime of /proc/PID/stat), 0 once it is gone. */
export function cpuOf(pid: number): number {
  try {
    // The command name (field 2) may hold spaces: the fields after it start after its closing parenthesis.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  } catch {
    return 0;
  }
}

export function rssOf(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    return Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1] ?? 0) * 1024;
  } catch {
    return 0;
  }
}

/**
 * Established TCP connections whose local port is `port`: the server's ends of its clients' connections. Read from the
 * kernel's tables (every process here shares the network namespace), so the server needs no instrument for it.
 */
export function socketsTo(port: number): number {
  let n = 0;
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    try {
      n += establishedTo(readFileSync(table, 'utf8'), port);
    } catch {
      // no such table (IPv6 off)
    }
  }
  return n;
}

/**
 * The lines of a /proc/net/tcp table ("  sl: local_address remote_address st ...", addresses as HEX:PORT) in state
 * 01 (established) whose local port is `port`. At K = 20 the tables hold 24,000 lines every 2 s: scanned in place
 * (2 ms), not split into arrays (30 ms), as this process's CPU is the load's.
 */
export function establishedTo(text: string, port: number): number {
  const local = `:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  let n = 0;
  for (let at = text.indexOf('\n') + 1; at > 0 && at < text.length; ) {
    const lineEnd = text.indexOf('\n', at);
    const stop = lineEnd < 0 ? text.length : lineEnd;
    const slot = text.indexOf(': ', at);
    const localEnd = slot < 0 ? -1 : text.indexOf(' ', slot + 2);
    const remoteEnd = localEnd < 0 ? -1 : text.indexOf(' ', localEnd + 1);
    // A line without all three fields is skipped, never read into the next one.
    if (slot >= 0 && remoteEnd >= 0 && remoteEnd + 3 <= stop) {
      if (text.startsWith('01', remoteEnd + 1) && text.startsWith(local, localEnd - local.length)) n++;
    }
    at = stop + 1;
  }
  return n;
}

export function startSampler(options: {
  sql: OwnerSql;
  /** The server's URL, for the /health probe. */
  url: string;
  /** The server's port, for the sockets open to it. */
  port: number;
  processes: () => Record<string, number[]>;
  /** Groups whose figure is the PSS sum rather than the RSS sum (PostgreSQL's shared buffers). */
  proportional?: string[];
  everyMs?: number;
}) {
  const samples: Sample[] = [];
  let busy = false;
  const take = async () => {
    if (busy) return;
    busy = true;
    const rss: Record<string, number> = {};
    const cpu: Record<string, number> = {};
    for (const [name, pids] of Object.entries(options.processes())) {
      rss[name] = pids.reduce((sum, pid) => sum + (options.proportional?.includes(name) ? pssOf(pid) : rssOf(pid)), 0);
      cpu[name] = pids.reduce((sum, pid) => sum + cpuOf(pid), 0);
    }
    const sample: Sample = { t: Date.now(), rss, cpu, sockets: socketsTo(options.port) };
    void probeHealth(options.url).then((ms) => {
      sample.healthMs = ms;
    });
    try {
      const [row] = await Promise.race([
        options.sql<Array<{ connections: number; due: number; queued: number }>>`
          select (select count(*)::int from pg_stat_activity where backend_type = 'client backend') as connections,
            (select count(*)::int from public.webhook_deliveries
              where status = 'queued' and next_attempt_at <= now()) as due,
            (select count(*)::int from public.webhook_deliveries where status = 'queued') as queued`,
        new Promise<never>((_, reject) => setTimeout(() => reject(new Error('timeout')), 1_500)),
      ]);
      Object.assign(sample, { connections: row!.connections, backlogDue: row!.due, queued: row!.queued });
      sample.longRunning = await options.sql<Array<{ backend: string; seconds: number; query: string }>>`
        select backend_type as backend, extract(epoch from now() - query_start)::float8 as seconds,
          left(regexp_replace(query, '\s+', ' ', 'g'), 160) as query
        from pg_stat_activity
        where state = 'active' and pid <> pg_backend_pid() and query_start < now() - interval '500 milliseconds'
          and backend_type in ('client backend', 'autovacuum worker', 'parallel worker')`;
      const activity = await options.sql<Array<{ key: string; n: number }>>`
        select case when backend_type = 'client backend'
                 then regexp_replace(application_name, ' w[0-9]+ pid [0-9]+$', '') || ' ' || state
                 else backend_type end
            || ' ' || coalesce(wait_event_type || ':' || wait_event, 'cpu') as key, count(*)::int as n
        from pg_stat_activity
        where pid <> pg_backend_pid() and (
          (application_name like 'auction-ops%' and state <> 'idle')
          or backend_type = 'autovacuum worker'
          or (backend_type = 'checkpointer' and wait_event is distinct from 'CheckpointerMain'))
        group by 1`;
      sample.activity = Object.fromEntries(activity.map((a) => [a.key, a.n]));
    } catch {
      // the database is down (a fault): RSS only
    }
    samples.push(sample);
    busy = false;
  };
  void take();
  const timer = setInterval(() => void take(), options.everyMs ?? 2_000);
  return {
    samples,
    stop() {
      clearInterval(timer);
    },
  };
}
