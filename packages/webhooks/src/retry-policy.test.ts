import { describe, expect, it } from 'vitest';
import { nextRetry, parseRetryAfter, parseRetrySchedule, DEFAULT_RETRY_SCHEDULE } from './retry-policy.js';

const policy = { schedule: DEFAULT_RETRY_SCHEDULE, jitter: 0, retryAfterMaxSeconds: 3600 };

describe('retry policy', () => {
  it('follows the default schedule and gives up after the sixth attempt', () => {
    expect([1, 2, 3, 4, 5].map((n) => nextRetry(policy, n))).toEqual(
      [60, 300, 1800, 7200, 43200].map((s) => ({ retry: true, delayMs: s * 1000 })),
    );
    expect(nextRetry(policy, 6)).toEqual({ retry: false });
  });
  it('applies jitter within its fraction either way', () => {
    const p = { ...policy, jitter: 0.2 };
    expect(nextRetry(p, 1, undefined, () => 0)).toEqual({ retry: true, delayMs: 48_000 });
    expect(nextRetry(p, 1, undefined, () => 1)).toEqual({ retry: true, delayMs: 72_000 });
  });
  it('honours Retry-After when longer than the schedule, clamped to the maximum', () => {
    expect(nextRetry(policy, 1, 120)).toEqual({ retry: true, delayMs: 120_000 });
    expect(nextRetry(policy, 1, 10)).toEqual({ retry: true, delayMs: 60_000 });
    expect(nextRetry(policy, 1, 999_999)).toEqual({ retry: true, delayMs: 3_600_000 });
  });
  it('reads Retry-After as seconds or an HTTP date', () => {
    expect(parseRetryAfter('30')).toBe(30);
    expect(parseRetryAfter(new Date(Date.UTC(2030, 0, 1, 0, 1)).toUTCString(), Date.UTC(2030, 0, 1))).toBe(60);
    expect(parseRetryAfter('soon')).toBeUndefined();
    expect(parseRetryAfter(undefined)).toBeUndefined();
  });
  it('parses a schedule of seconds that starts with 0', () => {
    expect(parseRetrySchedule('0, 1,2.5')).toEqual([0, 1, 2.5]);
    expect(() => parseRetrySchedule('5,10')).toThrow(/start with 0/);
    expect(() => parseRetrySchedule('0,x')).toThrow();
  });
});
