import { describe, expect, it } from 'vitest';
import { RateLimiter, memoryRateLimitStore } from './rate-limiter.js';

describe('RateLimiter (memory store)', () => {
  it('counts per bucket and subject in fixed windows', async () => {
    let now = 3_600_000 * 10 + 5_000;
    const limiter = new RateLimiter(memoryRateLimitStore(), () => now);
    const rule = { limit: 2, windowSeconds: 3600 };
    expect(await limiter.check('signIn', '1.1.1.1', rule)).toEqual({
      allowed: true,
      limit: 2,
      remaining: 1,
      reset: 3600 * 11,
    });
    expect((await limiter.check('signIn', '1.1.1.1', rule)).remaining).toBe(0);
    expect((await limiter.check('signIn', '1.1.1.1', rule)).allowed).toBe(false);
    expect((await limiter.check('signIn', '2.2.2.2', rule)).allowed).toBe(true);
    expect((await limiter.check('signUp', '1.1.1.1', rule)).allowed).toBe(true);
    now += 3_600_000;
    expect(await limiter.check('signIn', '1.1.1.1', rule)).toMatchObject({ allowed: true, remaining: 1 });
  });

  it('stays bounded under many distinct keys', async () => {
    const limiter = new RateLimiter(memoryRateLimitStore({ maxKeys: 10 }));
    for (let i = 0; i < 50; i++) await limiter.check('other', `ip${i}`, { limit: 5, windowSeconds: 60 });
    expect((await limiter.check('other', 'ip49', { limit: 5, windowSeconds: 60 })).remaining).toBe(3);
  });

  it('counts a cost in several windows at once, synchronously in memory', () => {
    let now = 3_600_000 * 10 + 59_000;
    const limiter = new RateLimiter(memoryRateLimitStore({ now: () => now }), () => now);
    const rules = [
      { limit: 6, windowSeconds: 60 },
      { limit: 8, windowSeconds: 3600 },
    ];
    const first = limiter.checkWindows('rest', '1.1.1.1', rules, 5);
    expect(first).toEqual([
      { allowed: true, limit: 6, remaining: 1, reset: 36_060 },
      { allowed: true, limit: 8, remaining: 3, reset: 39_600 },
    ]);
    expect((limiter.checkWindows('rest', '1.1.1.1', rules, 5) as { allowed: boolean }[])[0].allowed).toBe(false);
    now += 1_000; // the next minute: the minute window starts again, the hour keeps counting
    expect(limiter.checkWindows('rest', '1.1.1.1', rules)).toEqual([
      { allowed: true, limit: 6, remaining: 5, reset: 36_120 },
      { allowed: false, limit: 8, remaining: 0, reset: 39_600 },
    ]);
  });
});
