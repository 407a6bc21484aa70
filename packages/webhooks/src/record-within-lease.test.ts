import { describe, expect, it } from 'vitest';
import { recordWithinLease } from './record-within-lease.js';

const failing = (times: number) => {
  let calls = 0;
  return {
    calls: () => calls,
    write: async () => {
      calls++;
      if (calls <= times) throw new Error('connect ECONNREFUSED');
    },
  };
};

describe('recordWithinLease', () => {
  it('tries a failed write again until it succeeds within the lease', async () => {
    const w = failing(2);
    const retried: unknown[] = [];
    const retry = {
      deadline: Date.now() + 10_000,
      retryMs: 10,
      stopped: () => false,
      onRetry: (e: unknown) => retried.push(e),
    };
    await recordWithinLease(w.write, retry);
    expect(w.calls()).toBe(3);
    expect(retried).toHaveLength(2);
  });

  it('gives up with the error when the lease is about to lapse, or the dispatcher was killed', async () => {
    const late = failing(100);
    const retry = { deadline: Date.now() + 50, retryMs: 20, stopped: () => false, onRetry: () => {} };
    await expect(recordWithinLease(late.write, retry)).rejects.toThrow('ECONNREFUSED');
    expect(late.calls()).toBeLessThan(5);
    const killed = failing(100);
    const stopped = { ...retry, deadline: Date.now() + 10_000, stopped: () => true };
    await expect(recordWithinLease(killed.write, stopped)).rejects.toThrow('ECONNREFUSED');
    expect(killed.calls()).toBe(1);
  });
});
