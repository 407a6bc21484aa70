import { describe, expect, it } from 'vitest';
import { BindingIndex, type IndexedBinding } from './binding-index.js';
import { matchesFilter, parseFilter } from './filters.js';
import type { TupleValues } from './pgoutput.js';

const columns = [
  { name: 'auction_id', type: 'uuid' },
  { name: 'count', type: 'int4' },
  { name: 'price', type: 'numeric' },
  { name: 'name', type: 'text' },
];
const EVENTS = ['*', 'INSERT', 'UPDATE', 'DELETE'] as const;
const FILTERS = [
  undefined,
  'auction_id=eq.a1',
  'auction_id=eq.a2',
  'auction_id=neq.a1',
  'count=eq.10',
  'count=eq.010',
  'count=eq.x',
  'count=eq.',
  'count=gt.9',
  'price=eq.1.50',
  'price=in.(1.5,2)',
  'name=eq.10',
  'name=eq.north',
  'name=lt.n',
];
const VALUES: Record<string, (string | null | undefined)[]> = {
  auction_id: ['a1', 'a2', 'a3', null],
  count: ['10', '9', '0', '11', null],
  price: ['1.5', '1.50', '2', 'NaN', undefined],
  name: ['10', 'north', 'south', null],
};

/** A small deterministic generator, so a failure can be replayed. */
function random(seed: number) {
  return () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed / 2 ** 31;
  };
}
const pick = <T>(next: () => number, list: readonly T[]): T => list[Math.floor(next() * list.length)]!;

/** What every binding decides on its own: the behaviour the index must keep. */
function expected(bindings: Iterable<IndexedBinding>, event: string, row: TupleValues | undefined): number[] {
  return [...bindings]
    .filter((b) => b.event === '*' || b.event === event)
    .filter((b) => !b.filter || (row !== undefined && matchesFilter(b.filter, row)))
    .map((b) => b.id)
    .sort((a, b) => a - b);
}

describe('binding index', () => {
  it('matches exactly the bindings a one-by-one check matches, through adds and deletes', () => {
    const next = random(7);
    const index = new BindingIndex<IndexedBinding>();
    const live = new Map<number, IndexedBinding>();
    for (let id = 1; id <= 400; id++) {
      const text = pick(next, FILTERS);
      const parsed = text === undefined ? undefined : parseFilter(text, columns);
      if (typeof parsed === 'string') throw new Error(parsed);
      const binding = { id, event: pick(next, EVENTS), filter: parsed };
      index.add(binding);
      live.set(id, binding);
      if (next() < 0.3) {
        const gone = pick(next, [...live.values()]);
        index.delete(gone);
        live.delete(gone.id);
      }
    }
    expect(index.size).toBe(live.size);
    for (let i = 0; i < 500; i++) {
      const event = pick(next, ['INSERT', 'UPDATE', 'DELETE'] as const);
      const row: TupleValues | undefined = next() < 0.05 ? undefined : {};
      if (row) for (const [column, values] of Object.entries(VALUES)) row[column] = pick(next, values) as string;
      const found: number[] = [];
      index.forEachMatch(event, row, (b) => found.push(b.id));
      expect(found.sort((a, b) => a - b)).toEqual(expected(live.values(), event, row));
      const filtered = [...live.values()].some((b) => b.filter && (b.event === '*' || b.event === event));
      expect(index.filtersEvent(event)).toBe(filtered);
    }
  });

  it('forgets what was deleted, and a delete of an unknown binding changes nothing', () => {
    const index = new BindingIndex<IndexedBinding>();
    const filter = parseFilter('auction_id=eq.a1', columns);
    if (typeof filter === 'string') throw new Error(filter);
    const a = { id: 1, event: '*' as const, filter };
    index.add(a);
    index.delete({ id: 2, event: '*', filter });
    expect(index.size).toBe(1);
    index.delete(a);
    expect(index.size).toBe(0);
    expect(index.filtersEvent('INSERT')).toBe(false);
    const found: number[] = [];
    index.forEachMatch('INSERT', { auction_id: 'a1' }, (b) => found.push(b.id));
    expect(found).toEqual([]);
  });
});
