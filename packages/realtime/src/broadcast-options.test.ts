import { describe, expect, it } from 'vitest';
import { persistOf, replayOf } from './broadcast-options.js';

describe('replayOf', () => {
  it.each([
    [undefined, undefined],
    [{ since: 1_700_000_000_000 }, { since: 1_700_000_000_000, limit: 25 }],
    [
      { since: 0, limit: 3 },
      { since: 0, limit: 3 },
    ],
    [
      { since: 0, limit: 500 },
      { since: 0, limit: 25 },
    ],
    [
      { since: 0, limit: 0 },
      { since: 0, limit: 1 },
    ],
    [{ since: 'yesterday' }, 'invalid'],
    [{ since: 1.5 }, 'invalid'],
    [{ since: 0, limit: '3' }, 'invalid'],
    [{}, 'invalid'],
    [[0], 'invalid'],
  ])('%j -> %j', (input, expected) => {
    expect(replayOf(input)).toEqual(expected);
  });
});

describe('persistOf', () => {
  it.each([
    [true, {}],
    [{ ttl: 60 }, { ttlSeconds: 60 }],
    [{}, {}],
    [{ ttl: 0 }, 'invalid'],
    [{ ttl: -5 }, 'invalid'],
    [{ ttl: 2.5 }, 'invalid'],
    [false, undefined],
    [undefined, undefined],
    ['true', undefined],
  ])('%j -> %j', (input, expected) => {
    expect(persistOf(input)).toEqual(expected);
  });
});
