import { describe, expect, it } from 'vitest';
import { matchesFilter, parseFilter, type RowFilter } from './filters.js';

const columns = [
  { name: 'channel_id', type: 'uuid' },
  { name: 'count', type: 'int4' },
  { name: 'name', type: 'text' },
];

function filter(text: string): RowFilter {
  const parsed = parseFilter(text, columns);
  if (typeof parsed === 'string') throw new Error(parsed);
  return parsed;
}

describe('row filters', () => {
  it('compares numeric columns as numbers and others as text', () => {
    expect(matchesFilter(filter('count=gt.9'), { count: '10' })).toBe(true); // as text "10" < "9"
    expect(matchesFilter(filter('count=lte.9'), { count: '10' })).toBe(false);
    expect(matchesFilter(filter('name=lt.b'), { name: 'a' })).toBe(true);
    expect(matchesFilter(filter('name=neq.a'), { name: 'a' })).toBe(false);
    expect(matchesFilter(filter('count=gte.10'), { count: '10' })).toBe(true);
  });

  it('in takes a list, with quoted values keeping their commas', () => {
    const f = filter('name=in.(north,"south, east",west)');
    expect(f.values).toEqual(['north', 'south, east', 'west']);
    expect(matchesFilter(f, { name: 'south, east' })).toBe(true);
    expect(matchesFilter(f, { name: 'south' })).toBe(false);
  });

  it('a NULL value matches no comparison', () => {
    expect(matchesFilter(filter('name=neq.a'), { name: null })).toBe(false);
  });

  it('refuses unknown operators and columns, and in without a list, with the reason', () => {
    expect(parseFilter('name=like.a', columns)).toMatch(/expected column=op.value/);
    expect(parseFilter('nope=eq.1', columns)).toBe('invalid filter "nope=eq.1": no column "nope"');
    expect(parseFilter('name=in.a,b', columns)).toMatch(/in takes a list/);
  });
});
