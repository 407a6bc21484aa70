// Recording what an attempt came to: a success joins the next group-committed batch; a failure decides what
// follows (a retry after the policy's delay or the receiver's Retry-After, the end of the round, or, on 410 Gone,
// the endpoint disabled) and is written on its own. Writes are retried while the database is away, only as long as
// the attempt's lease lasts: after it another dispatcher may be making the next attempt.
import type { ClaimedDelivery, DeliveryStore, FailureNext } from './delivery-store.js';
import type { DispatcherLog } from './dispatcher-log.js';
import { createGroupWriter } from './group-writer.js';
import type { SendResult } from './http-sender.js';
import { recordWithinLease } from './record-within-lease.js';
import { nextRetry, parseRetryAfter, type RetryPolicy } from './retry-policy.js';

interface OutcomeRecorderOptions {
  store: DeliveryStore;
  log: DispatcherLog;
  policy: RetryPolicy;
  leaseMs: number;
  disableAfterFailures: number;
  /** True once the dispatcher is killed: a crashed process writes nothing more. */
  killed: () => boolean;
}

/** An attempt, as far as recording it goes: what was claimed and when (its lease runs from then). */
interface RecordedAttempt {
  delivery: ClaimedDelivery;
  startedAt: number;
}

interface OutcomeRecorder {
  success(attempt: RecordedAttempt, result: SendResult): Promise<void>;
  /** `aborted`: the dispatcher cut the attempt short (stop or watchdog), so it is queued again at once. */
  failure(attempt: RecordedAttempt, result: SendResult, aborted: boolean): Promise<void>;
}

export function createOutcomeRecorder(options: OutcomeRecorderOptions): OutcomeRecorder {
  const { store, log } = options;
  const successes = createGroupWriter(store.recordSuccesses);

  /** Writes an outcome, again and again while the database is away, as long as the lease lasts. */
  function record(attempt: RecordedAttempt, write: () => Promise<void>): Promise<void> {
    return recordWithinLease(write, {
      // A margin before the lease lapses: the statement itself takes time.
      deadline: attempt.startedAt + options.leaseMs - 2_000,
      retryMs: 500,
      stopped: options.killed,
      onRetry: (error) =>
        log.warn('webhook outcome not recorded yet; retrying', {
          delivery_id: attempt.delivery.id,
          error: String(error),
        }),
    });
  }

  return {
    success(attempt, result) {
      return record(attempt, () => successes.record(attempt.delivery, result));
    },
    async failure(attempt, result, aborted) {
      const d = attempt.delivery;
      let next: FailureNext;
      if (aborted) next = { kind: 'retry', delayMs: 0 };
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
      await record(attempt, () => store.recordFailure(d, result, next, options.disableAfterFailures));
    },
  };
}
