// The webhook dispatcher: claims due deliveries (FOR UPDATE SKIP LOCKED, under a lease), sends them concurrently
// with a per-endpoint limit so a slow or failing endpoint cannot hold the others up, records every attempt and
// schedules retries. It wakes on NOTIFY webhook_deliveries (sent at commit by the fan-out trigger) and polls as a
// fallback; a watchdog restarts the loop when it stops making progress. Several dispatchers (processes) may run
// against one database: the lease and the attempt number keep them from making the same attempt twice.
// This module is the loop, the slots and the lifecycle; what an attempt sends is delivery-request.ts, how its
// outcome is written outcome-recorder.ts, and the pruning of old logs log-pruning.ts.
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type postgres from 'postgres';
import { createWakeableSleep } from '@auction-ops/database';
import { type ClaimedDelivery, createDeliveryStore } from './delivery-store.js';
import { deliveryRequest } from './delivery-request.js';
import type { DispatcherLog } from './dispatcher-log.js';
import { createHttpSender, type SendResult } from './http-sender.js';
import { type LogPruning, startLogPruning } from './log-pruning.js';
import { createOutcomeRecorder } from './outcome-recorder.js';
import type { RetryPolicy } from './retry-policy.js';
import { createAddressGuard, type Cidr } from './ssrf-guard.js';
export const NOTIFY_CHANNEL = 'webhook_deliveries';
const CLAIM_COALESCE_MS = 3;
/** At most this many deliveries a claim: a few small claims cost less than one that must walk every endpoint. */
const CLAIM_BATCH = 64;

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
  let pruning: LogPruning | undefined;
  const outcomes = createOutcomeRecorder({
    store,
    log,
    policy: options.policy,
    leaseMs,
    disableAfterFailures: options.disableAfterFailures,
    killed: () => killed,
  });

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
        const free = Math.min(options.concurrency - inflight.size, CLAIM_BATCH);
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

  async function deliver(entry: InFlight): Promise<void> {
    const { delivery: d, abort } = entry;
    let result: SendResult;
    try {
      result = await sender.send(deliveryRequest(d, options.timeoutMs, abort.signal));
    } finally {
      // The slot is free once the receiver answered; the lease keeps the delivery ours until the outcome is written.
      release(d);
      wake();
    }
    if (killed) return;
    if (result.ok) {
      stats.delivered++;
      await outcomes.success(entry, result);
      return;
    }
    stats.failedAttempts++;
    await outcomes.failure(entry, result, abort.signal.aborted);
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

  async function halt(graceful: boolean) {
    if (!running) return;
    running = false;
    for (const t of timers.splice(0)) clearInterval(t);
    pruning?.stop();
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
      pruning = startLogPruning(store, options.logRetentionDays, log);
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
