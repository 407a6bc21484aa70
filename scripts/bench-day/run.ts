// One day run at K: the server, the receivers, the world, the subscribers, the generators playing the compressed
// hour (with the faults of a fault run at their shares of it), the samples, then the audit and the figures.
import { cpus } from 'node:os';
import { audit, type Audit } from './audit.js';
import { type Child, startChild } from './child.js';
import { DISK_FAULT_FLOOR_MB, diskFaultTmpfsMb, type FaultWindow, injectFault, until } from './faults.js';
import type { RequestRecord } from './messages.js';
import { clockBetween, readClock, type ServerClock } from './server-clock.js';
import { makePlan, type Plan, playing } from './plan.js';
import { faults as faultSchedule, type FaultName, profile } from './profile.js';
import { rssOf, type Sample, socketsTo, startSampler } from './sampler.js';
import { type HostSpeed, measureHostSpeed } from './host-speed.js';
import { startDayServer } from './server.js';
import {
  type Level,
  percentile,
  recoveredAt,
  serviceLevelsHeld,
  type Warmup,
  warmupFigures,
  warmupLine,
} from './stats.js';
import type { Subscription } from './subscribers.js';
import { buildWorld, ownerConnection } from './world.js';

export interface DayOptions {
  k: number;
  /** Faults to inject (by name), or none. */
  faults?: readonly FaultName[];
  compression?: number;
  /** Play only the first this many minutes of the compressed hour (`--minutes`), at the hour's rates. */
  minutes?: number;
  /** After the audit, deletes one acknowledged message row and audits again (`auditAfterDrop`): the proof that
   * the audit can fail. */
  dropOne?: boolean;
  /** Counts Postgres's time per statement and per function while playing (`--statements`: pg_stat_statements,
   * preloaded, and `track_functions`). */
  statements?: boolean;
  /** Plays the hour on the server just started, without the generators' warm-up (`--cold`). */
  cold?: boolean;
  log?: (line: string) => void;
}

/** A function's own time while playing (pg_stat_user_functions: without the functions it called). */
export interface FunctionCost {
  name: string;
  calls: number;
  selfMs: number;
  totalMs: number;
}

/** A statement's share of Postgres's execution time while playing (pg_stat_statements). */
export interface StatementCost {
  calls: number;
  totalMs: number;
  query: string;
}

export interface FaultOutcome extends FaultWindow {
  /** Ms from the fault's start until service levels held again; undefined if they did not. */
  recoveryMs?: number;
  /** Ms from the fault's start until requests stopped failing (a window without errors), whatever their latency. */
  errorsEndMs?: number;
  /** Requests sent while the fault lasted (start to recovery) and what they met. */
  during: {
    total: number;
    ok: number;
    contract: number;
    hangs: number;
    resets: number;
    inFlightAtKill: number;
    other: number;
  };
  /** Requests that met neither success nor a contract error (the first few). */
  violations: RequestRecord[];
}

export interface DayResult {
  plan: Omit<Plan, 'jobs'> & { jobs: number };
  /** Unless `cold`: the warm-up's reads (not among `requests`). */
  warmup?: Warmup;
  requests: RequestRecord[];
  levels: Level[];
  held: boolean;
  realtime: { received: number; expected: number; p50: number; p99: number };
  /** The hour's requests by the server's own histogram (server-clock.ts); not in fault runs. */
  serverClock?: ServerClock;
  webhooks: { arrivals: number; firstAttempts: number; maxBacklogDue: number; maxQueued: number; finalQueued: number };
  imports: Array<{ rows: number; seconds: number }>;
  samples: Sample[];
  /** Before any subscriber connected (the world built, its users signed in): for the memory each connection adds. */
  idle: { serverBytes: number; sockets: number };
  /** Realtime subscribers joined: one WebSocket each. */
  websockets: number;
  /** The machine's cores, for the CPU shares. */
  cores: number;
  /** The Node version the server ran on (the bench's own: `process.execPath`); absent in runs saved before it. */
  node?: string;
  /** The host's speed on one core before the run's processes started and after they stopped (host-speed.ts);
   * absent in runs saved before it. */
  host?: { before: HostSpeed; after: HostSpeed };
  faults: FaultOutcome[];
  audit: Audit;
  droppedId?: string;
  auditAfterDrop?: Audit;
  /** The server's log lines at error level and its process events (a worker or the database restarted). */
  serverLog: string[];
  durationMs: number;
  /** With `statements`: the costliest statements while playing, and the time of all of them. */
  statements?: { top: StatementCost[]; totalMs: number; functions?: FunctionCost[] };
}

/**
 * Realtime subscribers one load process holds. Each is a WebSocket and a heartbeat every 25 s; a few processes
 * rather than one per 250 (as with a supabase-js client each) keep the load's fixed cost per process down.
 */
const SUBSCRIBERS_PER_PROCESS = 1_000;

/** The bench's token for GET /metrics (the server's own clock). */
const METRICS_TOKEN = 'day-bench-metrics-token';

/** Retry schedule of the contract (0, 1 min, 5 min, 30 min, 2 h, 12 h) compressed like the hour. */
const retrySchedule = (compression: number) =>
  [0, 60, 300, 1800, 7200, 43200].map((s) => Math.max(s === 0 ? 0 : 1, Math.round(s / compression))).join(',');

function share<T>(items: T[], parts: number, part: number): T[] {
  return items.filter((_, i) => i % parts === part);
}

export async function runDay(options: DayOptions): Promise<DayResult> {
  const before = measureHostSpeed();
  const result = await playDay(options);
  return { ...result, host: { before, after: measureHostSpeed() } };
}

async function playDay(options: DayOptions): Promise<DayResult> {
  const log = options.log ?? ((line: string) => console.log(line));
  const faulted = (options.faults?.length ?? 0) > 0;
  const compression = options.compression ?? (faulted ? profile.faultsCompression : profile.compression);
  const plan = makePlan(options.k, compression, options.minutes);
  const began = Date.now();
  const children: Child[] = [];
  const endpoints = plan.auctions * profile.webhookEndpointsPerAuction;
  const receivers = startChild('receivers', './receivers.ts', log);
  children.push(receivers);
  let server: Awaited<ReturnType<typeof startDayServer>> | undefined;
  let sql: Awaited<ReturnType<typeof ownerConnection>> | undefined;
  try {
    await receivers.ready;
    receivers.send({
      type: 'start',
      servers: Math.max(2, Math.min(8, Math.ceil(endpoints / 10))),
      slowShare: profile.receiverSlowShare,
      slowSeconds: profile.receiverSlowCompressed
        ? profile.receiverSlowSeconds / compression
        : profile.receiverSlowSeconds,
      failShare: profile.receiverFailShare,
    });
    const { urls } = await receivers.started;
    const schedule = retrySchedule(compression);
    server = await startDayServer(
      {
        JWT_SECRET: 'day-bench-secret-'.padEnd(48, 'd'),
        METRICS_TOKEN,
        WEB_CONCURRENCY: process.env.WEB_CONCURRENCY ?? '2',
        RATE_LIMITS_ENABLED: 'false',
        AUTH_RATE_LIMIT_SIGN_IN: '1000000',
        AUTH_RATE_LIMIT_REFRESH: '1000000',
        // Each subscriber's setSession reads GET /auth/v1/user, counted as "other" (3,600 an hour per address): all
        // of K = 20's 11,000 subscribers come from 127.0.0.1.
        AUTH_RATE_LIMIT_OTHER: '1000000',
        WEBHOOK_ALLOWED_CIDRS: '127.0.0.0/8',
        WEBHOOK_ALLOW_HTTP: 'true',
        WEBHOOK_RETRY_SCHEDULE: schedule,
        // The audit checks delivery, not the disabling policy: a receiver down for a while must not be disabled.
        WEBHOOK_DISABLE_AFTER_FAILURES: '1000000',
        PUSH_PROVIDER: 'outbox',
        // Every subscriber connects from 127.0.0.1 here; in the field they come from as many addresses as phones.
        REALTIME_MAX_CONNECTIONS_PER_IP: '1000000',
        DISK_FREE_FLOOR_MB: String(DISK_FAULT_FLOOR_MB),
        ...(options.statements
          ? { DB_EMBEDDED_SETTINGS: 'shared_preload_libraries=pg_stat_statements;track_functions=all' }
          : {}),
      },
      {
        tmpfsMb: options.faults?.includes('disk-full') ? diskFaultTmpfsMb(options.k) : undefined,
        relay: options.faults?.includes('network-cut') ?? false,
      },
    );
    log(
      `server at ${server.url} (workers ${server.workerPids().join(', ')}), started in ${((Date.now() - began) / 1000).toFixed(1)} s`,
    );
    sql = await ownerConnection(server.ownerUrl);
    const owner = sql;
    if (options.statements) await owner`create extension if not exists pg_stat_statements`;
    await until(
      async () =>
        (await owner<Array<{ allow_http: boolean }>>`select allow_http from webhooks.settings`)[0]?.allow_http === true,
      30_000,
    );
    const world = await buildWorld(owner, plan, server, urls!, log);
    const categoryIds = (
      await owner<Array<{ id: string }>>`
      select id::text from public.defect_categories where auction_id is null order by display_order`
    ).map((c) => c.id);

    // Subscribers: every staff member on their channel's messages, and the submission watchers on their auction.
    const subscriptions: Subscription[] = [];
    const perChannel = new Map<string, number>();
    for (const a of world.auctions)
      a.staff.forEach((u, i) => {
        const channel = a.channels[i % a.channels.length]!;
        perChannel.set(channel, (perChannel.get(channel) ?? 0) + 1);
        subscriptions.push({
          token: u.token,
          table: 'messages',
          filter: `channel_id=eq.${channel}`,
        });
      });
    const watchers = new Map<string, number>();
    for (let i = 0; i < plan.submissionSubscribers; i++) {
      const a = world.auctions[i % world.auctions.length]!;
      const u = a.admins[Math.floor(i / world.auctions.length) % a.admins.length]!;
      watchers.set(a.id, (watchers.get(a.id) ?? 0) + 1);
      subscriptions.push({
        token: u.token,
        table: 'lot_submissions',
        filter: `auction_id=eq.${a.id}`,
      });
    }
    const port = Number(new URL(server.url).port);
    const idle = {
      serverBytes: [server.primaryPid, ...server.workerPids()].reduce((sum, pid) => sum + rssOf(pid), 0),
      sockets: socketsTo(port),
    };
    const subscriberProcs = Math.max(1, Math.ceil(subscriptions.length / SUBSCRIBERS_PER_PROCESS));
    const subscribers = Array.from({ length: subscriberProcs }, (_, i) =>
      startChild(`subscribers-${i}`, './subscribers.ts', log),
    );
    children.push(...subscribers);
    const subscribeStart = Date.now();
    await Promise.all(subscribers.map((s) => s.ready));
    for (const [i, s] of subscribers.entries())
      s.send({
        type: 'start',
        url: server!.url,
        anonKey: server!.anonKey,
        subscriptions: share(subscriptions, subscriberProcs, i),
      });
    const joined = await Promise.all(subscribers.map((s) => s.started));
    const subscribed = joined.reduce((n, j) => n + (j.subscribed ?? 0), 0);
    log(
      `${subscribed} of ${subscriptions.length} realtime subscribers joined in ${((Date.now() - subscribeStart) / 1000).toFixed(1)} s`,
    );

    // Generators: the jobs dealt by auction, so one auction's actions keep their order in one process.
    const generatorProcs = Math.max(1, Math.min(Math.ceil(plan.auctions / 5), cpus().length * 2, 6));
    const generators = Array.from({ length: generatorProcs }, (_, i) =>
      startChild(`generator-${i}`, './generator.ts', log),
    );
    children.push(...generators);
    await Promise.all(generators.map((g) => g.ready));
    const sampler = startSampler({
      sql: owner,
      url: server!.url,
      port,
      processes: () => ({
        'server primary': [server!.primaryPid],
        'server workers': server!.workerPids(),
        'postgres (PSS sum)': server!.postgresPids(),
        ...(server!.relay ? { 'pg relay': [server!.relay.pid] } : {}),
        // This process gathers every record of the load processes: its CPU is the load's too.
        orchestrator: [process.pid],
        ...Object.fromEntries(children.map((c) => [c.name, [c.pid]])),
      }),
      proportional: ['postgres (PSS sum)'],
    });
    for (const [i, g] of generators.entries())
      g.send({
        type: 'start',
        url: server!.url,
        anonKey: server!.anonKey,
        world,
        jobs: plan.jobs.filter((j) => j.auction % generatorProcs === i),
        timeoutMs: profile.clientTimeoutMs,
        categoryIds,
        photoBytes: profile.photoBytes,
        csvBytes: profile.csvImportBytes,
        warmup: !options.cold,
      });
    // Every generator has built its photo and CSV before the first job: building them takes the CPU of a core or
    // more for seconds, which otherwise fell on the hour's first seconds, when the server had the least to spare.
    const prepared = await Promise.all(generators.map((g) => g.started));
    const warmupMs = prepared.flatMap((m) => m.warmupMs ?? []);
    const warmup =
      warmupMs.length > 0 ? warmupFigures(warmupMs, Math.max(...prepared.map((m) => m.warmupTookMs ?? 0))) : undefined;
    if (warmup) log(warmupLine(warmup));
    // What the world's making, the subscribers' joins and the warm-up cost is not the day's. Only the functions'
    // counters: pg_stat_reset() would also zero the tables' counts that autovacuum goes by.
    if (options.statements)
      await owner`select pg_stat_statements_reset(),
        (select count(pg_stat_reset_single_function_counters(funcid)) from pg_stat_user_functions)`;
    // A fault run replaces workers, whose counts go with them: the server's clock is read in runs without faults.
    const clockAtStart = options.faults?.length ? undefined : await readClock(server.url, METRICS_TOKEN);
    const startAt = Date.now() + 500;
    for (const g of generators) g.send({ type: 'play', startAt });
    log(
      `K=${plan.k}: playing ${playing(plan)} (compression ${compression}): ${plan.jobs.length} jobs, ${generatorProcs} generators, ${subscriberProcs} subscriber processes`,
    );

    const windows: FaultWindow[] = [];
    const faultsDone = (async () => {
      for (const f of faultSchedule) {
        if (!options.faults?.includes(f.name)) continue;
        const at = startAt + f.at * plan.durationMs;
        if (at > Date.now()) await new Promise((r) => setTimeout(r, at - Date.now()));
        windows.push(
          await injectFault(f.name, 'seconds' in f ? f.seconds : undefined, { server: server!, receivers, log }),
        );
      }
    })();
    await Promise.all([...generators.map((g) => g.done), faultsDone]);
    const serverClock = clockAtStart && clockBetween(clockAtStart, await readClock(server.url, METRICS_TOKEN));
    const requests = generators.flatMap((g) => g.requests);
    const acks = generators.flatMap((g) => g.acks);
    const refusals = generators.flatMap((g) => g.refusals);
    log(`traffic done: ${requests.length} requests, ${acks.length} acknowledged writes`);

    // Let the last changes and first attempts arrive, then stop listening.
    const realtimeCount = () => subscribers.reduce((n, s) => n + s.realtime.length, 0);
    let last = -1;
    await until(() => {
      const now = realtimeCount();
      const settled = now === last;
      last = now;
      return settled;
    }, 15_000);
    await until(
      async () =>
        (
          await owner<Array<{ n: number }>>`
      select count(*)::int as n from public.webhook_deliveries where status = 'queued' and attempt_count = 0`
        )[0]!.n === 0,
      60_000,
    );
    sampler.stop();
    // Read before the audit, whose queries are not the day's.
    const statements = options.statements ? await costliestStatements(owner) : undefined;
    for (const s of subscribers) s.send({ type: 'stop' });
    receivers.send({ type: 'stop' });
    await Promise.all([...subscribers, receivers].map((c) => c.done.catch(() => {})));
    const realtime = subscribers.flatMap((s) => s.realtime);
    const arrivals = receivers.arrivals;

    const auditOf = () =>
      audit({ sql: owner, url: server!.url, world, acks, refusals, arrivals, attempts: schedule.split(',').length });
    const audited = await auditOf();
    let droppedId: string | undefined;
    let auditAfterDrop: Audit | undefined;
    if (options.dropOne) {
      const victim = acks.find((a) => a.type === 'message');
      if (victim && 'id' in victim) {
        droppedId = victim.id;
        await owner`delete from public.messages where id = ${victim.id}`;
        log(`dropped acknowledged message ${victim.id} in the database; auditing again (--drop-one)`);
        auditAfterDrop = await auditOf();
      }
    }

    // Service levels: in a fault run, over the traffic outside the faults (start to recovery).
    const outcomes = windows.map((w) => faultOutcome(w, requests, startAt + plan.durationMs + profile.clientTimeoutMs));
    const outside = (t: number) =>
      !outcomes.some((o) => !o.skipped && t >= o.start && t < o.start + (o.recoveryMs ?? Number.POSITIVE_INFINITY));
    const levels = serviceLevelsHeld({
      requests: requests.filter((r) => outside(r.t)),
      realtime: realtime.filter((r) => outside(r.t)),
      arrivals: arrivals.filter((a) => outside(a.occurred)),
      samples: sampler.samples,
      flatProcesses: faulted ? [] : ['server workers'],
      allowContract503: faulted,
    });
    const expected = acks.reduce(
      (n, a) =>
        n +
        (a.type === 'message' ? (perChannel.get(a.channel ?? '') ?? 0) : 0) +
        (a.type === 'submission' ? (watchers.get(a.auction) ?? 0) : 0),
      0,
    );
    const received = realtime.length;
    const rt = realtime.map((r) => r.ms);
    const samples = sampler.samples;
    return {
      plan: { ...plan, jobs: plan.jobs.length },
      warmup,
      requests,
      levels,
      held:
        levels.every((l) => l.held) &&
        audited.clean &&
        outcomes.every((o) => o.skipped || (o.recoveryMs !== undefined && o.violations.length === 0)),
      realtime: { received, expected, p50: percentile(rt, 50), p99: percentile(rt, 99) },
      serverClock,
      webhooks: {
        arrivals: arrivals.length,
        firstAttempts: new Set(arrivals.map((a) => a.webhookId)).size,
        maxBacklogDue: Math.max(0, ...samples.map((s) => s.backlogDue ?? 0)),
        maxQueued: Math.max(0, ...samples.map((s) => s.queued ?? 0)),
        finalQueued: samples.at(-1)?.queued ?? 0,
      },
      imports: acks.flatMap((a) => (a.type === 'dataset' ? [{ rows: a.rows, seconds: a.seconds }] : [])),
      samples,
      idle,
      websockets: subscribed,
      cores: cpus().length,
      node: process.version,
      faults: outcomes,
      audit: audited,
      droppedId,
      auditAfterDrop,
      serverLog: server
        .output()
        .split('\n')
        .filter((l) => /"level":"(error|fatal)"|worker|restart/i.test(l))
        .slice(-30),
      durationMs: Date.now() - began,
      statements,
    };
  } finally {
    await Promise.all(children.map((c) => c.stop()));
    await sql?.end({ timeout: 2 }).catch(() => {});
    await server?.stop();
  }
}

/** The 15 statements that took Postgres the most time since the reset, the time of all statements, and the 15
 * functions with the most time of their own. */
async function costliestStatements(
  owner: Awaited<ReturnType<typeof ownerConnection>>,
): Promise<{ top: StatementCost[]; totalMs: number; functions: FunctionCost[] }> {
  const top = await owner<StatementCost[]>`
    select calls::int as calls, total_exec_time::float8 as "totalMs", query
      from pg_stat_statements order by total_exec_time desc limit 15`;
  const [all] = await owner<{ totalMs: number }[]>`
    select coalesce(sum(total_exec_time), 0)::float8 as "totalMs" from pg_stat_statements`;
  // A backend reports its function counts after a transaction at most once a second, and when idle within 10 s: the
  // last seconds' calls may be missing here.
  const functions = await owner<FunctionCost[]>`
    select schemaname || '.' || funcname as name, calls::int as calls, self_time::float8 as "selfMs",
           total_time::float8 as "totalMs"
      from pg_stat_user_functions order by self_time desc limit 15`;
  return { top: [...top], totalMs: all!.totalMs, functions: [...functions] };
}

/** The contract's answers to a fault: 503/504 while the database is away; 507 too while the disk is full. */
export const contractStatuses = (fault: FaultName): number[] => (fault === 'disk-full' ? [503, 504, 507] : [503, 504]);

function faultOutcome(w: FaultWindow, requests: RequestRecord[], until: number): FaultOutcome {
  const empty = { total: 0, ok: 0, contract: 0, hangs: 0, resets: 0, inFlightAtKill: 0, other: 0 };
  if (w.skipped) return { ...w, during: empty, violations: [] };
  const back = recoveredAt(requests, w.end, until);
  const clean = recoveredAt(requests, w.end, until, 5_000, false);
  const errorsEndMs = clean === undefined ? undefined : Math.max(clean - w.start, w.end - w.start);
  const recoveryMs = back === undefined ? undefined : Math.max(back - w.start, w.end - w.start);
  const to = back ?? until;
  const during = { ...empty };
  const violations: RequestRecord[] = [];
  // Requests in flight when the fault began count too: sent up to the client timeout before it.
  for (const r of requests) {
    if (r.t + r.ms < w.start || r.t >= to) continue;
    during.total++;
    if (r.status >= 200 && r.status < 400) during.ok++;
    else if (contractStatuses(w.name).includes(r.status) && r.contract) during.contract++;
    else if (r.status === 0 && w.name === 'worker-sigkill' && r.t < w.start) during.inFlightAtKill++;
    else {
      if (r.status === 0 && r.detail?.includes('hang')) during.hangs++;
      else if (r.status === 0) during.resets++;
      else during.other++;
      violations.push(r);
    }
  }
  return { ...w, recoveryMs, errorsEndMs, during, violations };
}
