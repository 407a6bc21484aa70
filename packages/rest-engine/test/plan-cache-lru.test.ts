// The plan cache's eviction: least recently used first, a hit making its key the newest (also when the hit is on
// the key that was already the newest, which is not moved).
import { describe, expect, it } from 'vitest';
import { PlanCache, type CachedPlan } from '../src/plan-cache.js';

const plan = (n: number) => ({ plan: { n }, compiled: null }) as unknown as CachedPlan;
const keys = (cache: PlanCache, all: string[]) => all.filter((k) => cache.get(k) !== undefined);

describe('plan cache eviction', () => {
  it('evicts the least recently used key', () => {
    const cache = new PlanCache(2);
    cache.set('a', plan(1));
    cache.set('b', plan(2));
    expect(cache.get('a')).toEqual(plan(1)); // a is now newer than b
    cache.set('c', plan(3));
    expect(cache.size).toBe(2);
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toEqual(plan(1));
    expect(cache.get('c')).toEqual(plan(3));
  });

  it('keeps the newest key in place on repeated hits and still evicts the oldest', () => {
    const cache = new PlanCache(3);
    for (const k of ['a', 'b', 'c']) cache.set(k, plan(k.charCodeAt(0)));
    for (let i = 0; i < 3; i++) cache.get('c');
    cache.get('a'); // order now b, c, a
    cache.get('a');
    cache.set('d', plan(4)); // evicts b
    expect(keys(cache, ['a', 'b', 'c', 'd'])).toEqual(['a', 'c', 'd']);
  });

  it('tracks the newest key across an eviction of it (a cache of one)', () => {
    const cache = new PlanCache(1);
    cache.set('a', plan(1));
    cache.get('a');
    cache.set('b', plan(2));
    expect(cache.get('a')).toBeUndefined();
    cache.set('a', plan(1));
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toEqual(plan(1));
  });

  it('leaves a key set again where it was', () => {
    const cache = new PlanCache(3);
    cache.set('a', plan(1));
    cache.set('b', plan(2));
    cache.set('a', plan(5)); // updated in place: still the oldest
    cache.set('c', plan(3));
    cache.set('d', plan(4));
    expect(keys(cache, ['a', 'b', 'c', 'd'])).toEqual(['b', 'c', 'd']);
  });
});
