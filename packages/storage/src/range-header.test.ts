import { describe, expect, it } from 'vitest';
import { parseRange } from './range-header.js';

describe('parseRange', () => {
  it.each([
    ['bytes=0-9', { start: 0, end: 9 }],
    ['bytes=990-', { start: 990, end: 999 }],
    ['bytes=-10', { start: 990, end: 999 }],
    ['bytes=-5000', { start: 0, end: 999 }],
    ['bytes=10-5000', { start: 10, end: 999 }],
    [undefined, undefined],
    ['bytes=5-2', undefined],
    ['bytes=0-1,5-6', undefined],
    ['items=0-1', undefined],
  ])('%s', (header, expected) => {
    expect(parseRange(header, 1000)).toEqual(expected);
  });
  it('answers 416 for ranges past the end', () => {
    expect(() => parseRange('bytes=1000-', 1000)).toThrow(expect.objectContaining({ status: 416 }));
    expect(() => parseRange('bytes=-0', 1000)).toThrow(expect.objectContaining({ status: 416 }));
  });
});
