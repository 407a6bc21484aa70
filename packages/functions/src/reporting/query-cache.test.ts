import { describe, expect, it } from 'vitest';
import { QueryCache } from './query-cache.js';

const body = { body: '[{"n":1}]', contentType: 'application/json', rowCount: 1 };
const key = QueryCache.key({
  datasetId: 'd1',
  version: 'v1',
  scope: 'authenticated',
  fingerprint: 'f',
  limit: 1000,
  format: 'json',
});

describe('QueryCache', () => {
  it("keeps a result for the contract's five minutes by default, and not a moment longer", () => {
    let now = 1_000_000;
    const cache = new QueryCache({ maxBytes: 1024, now: () => now });
    cache.set(key, body);
    now += 5 * 60 * 1000 - 1;
    expect(cache.get(key)).toEqual(body);
    now += 2;
    expect(cache.get(key)).toBeUndefined();
  });

  it('drops every result of a dataset that was imported again, and stays within its bytes', () => {
    const cache = new QueryCache({ maxBytes: 100 });
    const other = QueryCache.key({
      datasetId: 'd2',
      version: 'v1',
      scope: 'authenticated',
      fingerprint: 'f',
      limit: 1000,
      format: 'json',
    });
    cache.set(key, body);
    cache.set(other, body);
    cache.dropDataset('d1');
    expect([cache.get(key), cache.get(other)]).toEqual([undefined, body]);
    cache.set(key, { ...body, body: 'x'.repeat(200) });
    expect(cache.get(key)).toBeUndefined();
  });

  it('keeps an entry from the shared tier only for what is left of its lifetime', () => {
    let now = 1_000_000;
    const cache = new QueryCache({ maxBytes: 1024, now: () => now });
    cache.set(key, body, 1000);
    now += 999;
    expect(cache.get(key)).toEqual(body);
    now += 2;
    expect(cache.get(key)).toBeUndefined();
    expect([cache.fits(key, body), cache.fits(key, { ...body, body: 'x'.repeat(2000) })]).toEqual([true, false]);
  });
});
