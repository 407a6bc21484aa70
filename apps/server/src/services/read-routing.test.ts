import { describe, expect, it } from 'vitest';
import { takeReadYourWrites } from './read-routing.js';

describe('takeReadYourWrites', () => {
  it.each([
    [undefined, { prefer: undefined, primary: false }],
    ['count=exact', { prefer: 'count=exact', primary: false }],
    ['read-your-writes', { prefer: undefined, primary: true }],
    ['Read-Your-Writes', { prefer: undefined, primary: true }],
    ['count=exact, read-your-writes', { prefer: 'count=exact', primary: true }],
    ['read-your-writes,handling=strict,count=planned', { prefer: 'handling=strict, count=planned', primary: true }],
    // Only the exact token counts: a value or a longer name is another preference, left for the engine to judge.
    ['read-your-writes=false', { prefer: 'read-your-writes=false', primary: false }],
    ['x-read-your-writes', { prefer: 'x-read-your-writes', primary: false }],
  ])('Prefer: %s', (prefer, expected) => {
    expect(takeReadYourWrites(prefer)).toEqual(expected);
  });
});
