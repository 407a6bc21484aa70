// When to try a failed delivery again: the schedule (delays before each attempt, the first immediate), optional
// jitter so a recovering receiver is not hit by every retry at once, and Retry-After honoured within bounds.

export interface RetryPolicy {
  /** Delay in seconds before attempt i+1; its length is the number of attempts a delivery gets. */
  schedule: readonly number[];
  /** Fraction (0..1) by which a retry delay may vary either way. */
  jitter: number;
  /** The longest Retry-After (seconds) honoured; longer values are clamped to it. */
  retryAfterMaxSeconds: number;
}

export const DEFAULT_RETRY_SCHEDULE: readonly number[] = [0, 60, 300, 1800, 7200, 43200];

/** Parses `0,60,300` (seconds); the first entry is the first attempt and must be 0. */
export function parseRetrySchedule(text: string): number[] {
  const parts = text.split(',').map((s) => s.trim());
  const values = parts.map(Number);
  if (parts.some((p) => !/^\d+(\.\d+)?$/.test(p))) {
    throw new Error('retry schedule must be comma-separated seconds, e.g. 0,60,300');
  }
  if (values[0] !== 0) throw new Error('retry schedule must start with 0 (the first attempt is immediate)');
  return values;
}

/** Seconds from a Retry-After header (delta-seconds or an HTTP date), or undefined when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, now: number = Date.now()): number | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  const at = Date.parse(trimmed);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, Math.ceil((at - now) / 1000));
}

type RetryDecision = { retry: true; delayMs: number } | { retry: false };

/**
 * After attempt number `attemptInRound` (1-based, counted since the last replay) failed: retry after a delay, or give
 * up when the schedule is exhausted.
 */
export function nextRetry(
  policy: RetryPolicy,
  attemptInRound: number,
  retryAfterSeconds?: number,
  random: () => number = Math.random,
): RetryDecision {
  if (attemptInRound >= policy.schedule.length) return { retry: false };
  const scheduled = policy.schedule[attemptInRound] * 1000;
  const jittered = scheduled * (1 + policy.jitter * (2 * random() - 1));
  const asked = retryAfterSeconds === undefined ? 0 : Math.min(retryAfterSeconds, policy.retryAfterMaxSeconds) * 1000;
  return { retry: true, delayMs: Math.round(Math.max(jittered, asked)) };
}
