// The webhook dispatcher: claims due deliveries (FOR UPDATE SKIP LOCKED, under a lease), sends them concurrently
// with a per-endpoint limit so a slow or failing endpoint cannot hold the others up, records every attempt and
// schedules retries. It wakes on NOTIFY webhook_deliveries (sent at commit by the fan-out trigger) and polls as a
// fallback; a watchdog restarts the loop when it stops making progress. Several dispatchers (processes) may run
// against one database: the lease and the attempt number keep them from making the same attempt twice.
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type postgres from 'postgres';
import { createWakeableSleep } from '@auction-ops/database';
import { createDeliveryStore, type ClaimedDelivery, type FailureNext } from './delivery-store.js';
import { createHttpSender, type SendResult } from './http-sender.js';
import { recordWithinLease } from './record-within-lease.js';
import { nextRetry, parseRetryAfter, type RetryPolicy } from './retry-policy.js';
import { signRequest } from './signer.js';
import { createAddressGuard, type Cidr } from './ssrf-guard.js';

export const USER_AGENT = 'auction-ops-Webhook/1.0';
export const NOTIFY_CHANNEL = 'webhook_deliveries';
const CLAIM_COALESCE_MS = 3;

export interface DispatcherLog {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

export interface DispatcherOptions {
  /** Owner connection pool (the dispatcher is service work, not a request). */
  sql: postgres.Sql;
  log: DispatcherLog;
  /** Runs each delivery attempt inside a unit of work of its own (the server's tracing: one trace per attempt). */
  traceJob?: <T>(name: string, work: () => Promise<T>) => Promise<T>;
  workerId?: string;
  concurrency: number;
  perEndpointConcurrency: number;
  policy: RetryPolicy;
  timeoutMs: number;
  /** How long a claim stays with this dispatcher; longer than the timeout so a live attempt is never taken over. */
  leaseMs?: number;
  disableAfterFailures: number;
  allowHttp: boolean;
  allowedCidrs: readonly Cidr[];
  /** Extra trusted CA certificates (PEM), added to the system's. */
  tlsCa?: string;
  pollIntervalMs: number;
  logRetentionDays: number;
  /** How long stop() waits for in-flight attempts before aborting them (they are then queued again at once). */
  stopGraceMs?: number;
  /** How long the loop may go without a turn before the watchdog restarts it. */
  stallAfterMs?: number;
}

export interface DispatcherStats {
  claimed: number;
  delivered: number;
  failedAttempts: number;
  restarts: number;
  inFlight: number;
}

export interface Dispatcher {
  readonly workerId: string;
  start(): Promise<void>;
  /** Graceful: waits for in-flight attempts (up to stopGraceMs), aborts the rest and records them. */
  stop(): Promise<void>;
  /** Crash simulation for tests: drops everything at once and writes nothing, as if the process died. */
  kill(): Promise<void>;
  stats(): DispatcherStats;
  /** Runs a claim round now (tests, and the NOTIFY handler). */
  wake(): void;
}

interface InFlight {
  delivery: ClaimedDelivery;
  startedAt: number;
  abort: AbortController;
}

export function createDispatcher(options: DispatcherOptions): Dispatcher {
  const workerId = options.workerId ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  const log = options.log;
  const store = createDeliveryStore(options.sql);
  const sender = createHttpSender({
    guard: createAddressGuard(options.allowedCidrs),
    allowHttp: options.allowHttp,
    // Several endpoints may share an origin; the per-endpoint limit is enforced by the claim, not the agent.
    maxSockets: options.concurrency,
    ca: options.tlsCa,
  });
  // Twice the timeout leaves room to record the outcome; a crashed dispatcher's claims return after it.
  const leaseMs = options.leaseMs ?? options.timeoutMs * 2;
  const stallAfterMs = options.stallAfterMs ?? Math.max(30_000, options.pollIntervalMs * 10);
  const inflight = new Map<string, InFlight>();
  const perEndpoint = new Map<string, number>();
  const stats: DispatcherStats = { claimed: 0, delivered: 0, failedAttempts: 0, restarts: 0, inFlight: 0 };

  let running = false;
  let killed = false;
  let generation = 0;
  let lastTurnAt = Date.now();
  let lastClaimAt = 0;
  const waker = createWakeableSleep();
  let unlisten: (() => Promise<void>) | undefined;
  let loopDone: Promise<void> = Promise.resolve();
  const timers: NodeJS.Timeout[] = [];
  const work = new Set<Promise<void>>();
  const successes = createGroupWriter(store.recordSuccesses);

  const wake = waker.wake;
  const sleep = waker.sleep;

  let claimUnanswered = false;

  async function loop(gen: number): Promise<void> {
    while (running && gen === generation) {
      lastTurnAt = Date.now();
      waker.consume();
      let waitMs = options.pollIntervalMs;
      try {
        // Under load every finished attempt wakes the loop; a short pause lets several free slots share a claim.
        const sinceClaim = Date.now() - lastClaimAt;
        if (sinceClaim < CLAIM_COALESCE_MS) await new Promise((r) => setTimeout(r, CLAIM_COALESCE_MS - sinceClaim));
        if (claimUnanswered) {
          const released = await store.releaseLost(workerId, [...inflight.keys()]);
          claimUnanswered = false;
          if (released > 0) log.warn('webhook leases of an unanswered claim given back', { deliveries: released });
        }
        const free = options.concurrency - inflight.size;
        if (free > 0) {
          lastClaimAt = Date.now();
          const counts = Object.fromEntries(perEndpoint);
          const claimed = await store.claim(workerId, free, options.perEndpointConcurrency, counts, leaseMs);
          // Killed while claiming: launch nothing; the leases expire and another dispatcher takes these over.
          // (A graceful stop still delivers what it claimed, within stopGraceMs.)
          if (killed) return;
          for (const d of claimed) launch(d);
          // A full batch means more may be due: go again (a freed slot wakes us if we are now at capacity).
          if (claimed.length === free) continue;
          // Having claimed some, the attempts finishing will wake us; only an idle turn needs the next due time.
          const due = claimed.length > 0 ? 0 : await store.nextDueInMs();
          if (due !== undefined && due > 0) waitMs = Math.min(waitMs, due);
          // Due but not claimable: its endpoint is at its limit here (a finished attempt wakes us), or another
          // dispatcher is claiming it; either way spinning would not help.
          else if (due === 0) waitMs = inflight.size > 0 ? waitMs : Math.min(waitMs, 50);
        }
      } catch (error) {
        if (!running || killed) return;
        // The claim may have committed without its answer reaching us: its leases are given back next turn.
        claimUnanswered = true;
        log.warn('webhook dispatcher claim failed', { error: String(error) });
      }
      await sleep(waitMs);
    }
  }

  function launch(d: ClaimedDelivery) {
    stats.claimed++;
    const entry: InFlight = { delivery: d, startedAt: Date.now(), abort: new AbortController() };
    inflight.set(d.id, entry);
    perEndpoint.set(d.endpoint_id, (perEndpoint.get(d.endpoint_id) ?? 0) + 1);
    stats.inFlight = inflight.size;
    const attempt = options.traceJob ? options.traceJob('webhook delivery', () => deliver(entry)) : deliver(entry);
    const p = attempt
      .catch((error) => log.error('webhook attempt could not be recorded', { delivery_id: d.id, error: String(error) }))
      .finally(() => {
        release(d);
        work.delete(p);
      });
    work.add(p);
  }

  function release(d: ClaimedDelivery) {
    if (!inflight.delete(d.id)) return;
    const n = (perEndpoint.get(d.endpoint_id) ?? 1) - 1;
    if (n <= 0) perEndpoint.delete(d.endpoint_id);
    else perEndpoint.set(d.endpoint_id, n);
    stats.inFlight = inflight.size;
  }

  /** Writes an outcome, again and again while the database is away, as long as the lease lasts. */
  function record(entry: InFlight, write: () => Promise<void>): Promise<void> {
    return recordWithinLease(write, {
      // A margin before the lease lapses: the statement itself takes time.
      deadline: entry.startedAt + leaseMs - 2_000,
      retryMs: 500,
      stopped: () => killed,
      onRetry: (error) =>
        log.warn('webhook outcome not recorded yet; retrying', {
          delivery_id: entry.delivery.id,
          error: String(error),
        }),
    });
  }

  async function deliver(entry: InFlight): Promise<void> {
    const { delivery: d, abort } = entry;
    const p = d.payload;
    // The body's field order (docs/events.md); the stored jsonb does not keep key order.
    const body = JSON.stringify({
      event: p.event,
      timestamp: p.timestamp,
      webhook_id: p.webhook_id,
      auction_id: p.auction_id,
      data: p.data,
    });
    const timestamp = Math.floor(Date.now() / 1000);
    const signatures = signRequest(d.secrets, d.id, timestamp, body);
    let result: SendResult;
    try {
      result = await sender.send({
        url: d.url,
        body,
        timeoutMs: options.timeoutMs,
        signal: abort.signal,
        headers: {
          'content-type': 'application/json',
          'user-agent': USER_AGENT,
          'x-webhook-id': d.id,
          'x-webhook-timestamp': String(timestamp),
          'x-webhook-event': d.event_type,
          'x-webhook-signature': signatures['x-webhook-signature'],
          'webhook-id': d.id,
          'webhook-timestamp': String(timestamp),
          'webhook-signature': signatures['webhook-signature'],
        },
      });
    } finally {
      // The slot is free once the receiver answered; the lease keeps the delivery ours until the outcome is written.
      release(d);
      wake();
    }
    if (killed) return;
    if (result.ok) {
      stats.delivered++;
      await record(entry, () => successes.record(d, result));
      return;
    }
    stats.failedAttempts++;
    let next: FailureNext;
    if (abort.signal.aborted) next = { kind: 'retry', delayMs: 0 };
    else if (result.status === 410) next = { kind: 'gone' };
    else {
      const decision = nextRetry(options.policy, d.attempt_in_round, parseRetryAfter(result.retryAfter));
      next = decision.retry ? { kind: 'retry', delayMs: decision.delayMs } : { kind: 'final' };
    }
    log.debug('webhook attempt failed', {
      delivery_id: d.id,
      attempt: d.attempt,
      status: result.status,
      error: result.error,
      next: next.kind,
    });
    await record(entry, () => store.recordFailure(d, result, next, options.disableAfterFailures));
  }

  /** The self-check: a loop that has not turned for stallAfterMs is replaced; stuck attempts free their slots. */
  function watchdog() {
    if (!running) return;
    const now = Date.now();
    if (now - lastTurnAt > stallAfterMs) {
      stats.restarts++;
      log.error('webhook dispatcher stalled; restarting its loop', { worker: workerId, idle_ms: now - lastTurnAt });
      startLoop();
    }
    for (const entry of inflight.values()) {
      // The sender enforces the timeout; an attempt older than its lease is a bug somewhere below us.
      if (now - entry.startedAt > leaseMs) {
        log.error('webhook attempt outlived its lease; abandoning it', { delivery_id: entry.delivery.id });
        entry.abort.abort();
        release(entry.delivery);
      }
    }
  }

  function startLoop() {
    generation++;
    lastTurnAt = Date.now();
    wake();
    const gen = generation;
    loopDone = loop(gen).catch((error) => log.error('webhook dispatcher loop crashed', { error: String(error) }));
  }

  async function prune() {
    try {
      const removed = await store.prune(options.logRetentionDays);
      if (removed.attempts > 0 || removed.deliveries > 0) log.info('pruned webhook logs', removed);
    } catch (error) {
      log.warn('webhook log pruning failed', { error: String(error) });
    }
  }

  async function halt(graceful: boolean) {
    if (!running) return;
    running = false;
    for (const t of timers.splice(0)) clearInterval(t);
    wake();
    await unlisten?.().catch(() => {});
    const graceMs = options.stopGraceMs ?? 5000;
    const grace = () => new Promise((r) => setTimeout(r, graceMs).unref());
    // A loop stuck in a query (the watchdog's case) must not hold the shutdown up.
    await Promise.race([loopDone, grace()]);
    if (graceful && work.size > 0) await Promise.race([Promise.all([...work]), grace()]);
    for (const entry of inflight.values()) entry.abort.abort();
    if (graceful) await Promise.allSettled([...work]);
    sender.close();
  }

  return {
    workerId,
    async start() {
      if (running) return;
      running = true;
      killed = false;
      // postgres.js keeps the LISTEN connection open and re-listens after a reconnect.
      const sub = await options.sql.listen(
        NOTIFY_CHANNEL,
        () => wake(),
        () => wake(),
      );
      unlisten = sub.unlisten;
      startLoop();
      timers.push(setInterval(watchdog, Math.min(5000, stallAfterMs / 2)).unref());
      timers.push(setInterval(() => void prune(), 3_600_000).unref());
      void prune();
      log.info('webhook dispatcher started', { worker: workerId, concurrency: options.concurrency });
    },
    stop: () => halt(true),
    async kill() {
      killed = true;
      await halt(false);
    },
    stats: () => ({ ...stats }),
    wake,
  };
}

/**
 * Group commit: while one batch is being written, outcomes that arrive wait and go together in the next statement.
 * At low load each outcome is written at once; under load one statement carries many.
 */
function createGroupWriter<T, R>(write: (batch: Array<{ d: T; outcome: R }>) => Promise<void>, maxBatch = 200) {
  let pending: Array<{ d: T; outcome: R; done: (error?: unknown) => void }> = [];
  let writing = false;
  async function drain() {
    writing = true;
    while (pending.length > 0) {
      const batch = pending.slice(0, maxBatch);
      pending = pending.slice(batch.length);
      try {
        await write(batch);
        for (const x of batch) x.done();
      } catch (error) {
        for (const x of batch) x.done(error);
      }
    }
    writing = false;
  }
  return {
    record(d: T, outcome: R): Promise<void> {
      return new Promise((resolve, reject) => {
        pending.push({ d, outcome, done: (error) => (error === undefined ? resolve() : reject(error)) });
        if (!writing) void drain();
      });
    },
  };
}
