// The postgres_changes bindings of one table key (`schema.table`, `schema.*` or `*.*`), arranged so that a change
// visits only the bindings it can match. Most subscribers filter on equality (`auction_id=eq.<id>`): those are kept
// by column and value and found with one lookup per column, so a change costs the same whether a thousand or ten
// thousand subscribers filter on other values. Bindings without a filter, or with any other operator, are checked
// one by one, as before.
import { matchesFilter, type RowFilter } from './filters.js';
import { entry } from './map-entry.js';
import type { TupleValues } from './pgoutput.js';

export interface IndexedBinding {
  id: number;
  event: '*' | 'INSERT' | 'UPDATE' | 'DELETE';
  filter?: RowFilter;
}

export class BindingIndex<B extends IndexedBinding> {
  /** Bindings every change is checked against. */
  private readonly scanned = new Set<B>();
  /** `eq` bindings by column, then by the value's key (valueKey). */
  private readonly byValue = new Map<string, Map<string | number, Set<B>>>();
  /** How many bindings per event have a filter: a change that no filter can decide matches like any other. */
  private readonly filteredByEvent = new Map<IndexedBinding['event'], number>();
  size = 0;

  add(binding: B): void {
    this.size++;
    if (binding.filter) this.countFiltered(binding.event, 1);
    const key = indexKey(binding.filter);
    if (key === undefined) {
      this.scanned.add(binding);
      return;
    }
    const values = entry(this.byValue, binding.filter!.column, () => new Map<string | number, Set<B>>());
    entry(values, key, () => new Set<B>()).add(binding);
  }

  delete(binding: B): void {
    const key = indexKey(binding.filter);
    if (key === undefined) {
      if (!this.scanned.delete(binding)) return;
    } else {
      const values = this.byValue.get(binding.filter!.column);
      const set = values?.get(key);
      if (!set?.delete(binding)) return;
      if (set.size === 0) values!.delete(key);
      if (values!.size === 0) this.byValue.delete(binding.filter!.column);
    }
    this.size--;
    if (binding.filter) this.countFiltered(binding.event, -1);
  }

  /** Whether some binding that a change of this event could match has a filter. */
  filtersEvent(event: Exclude<IndexedBinding['event'], '*'>): boolean {
    return (this.filteredByEvent.get('*') ?? 0) + (this.filteredByEvent.get(event) ?? 0) > 0;
  }

  /**
   * Calls `found` for each binding the change matches: its event, and its filter against `row` (the new row, or the
   * old one of a DELETE; undefined when the change has none, which no filter matches).
   */
  forEachMatch(
    event: Exclude<IndexedBinding['event'], '*'>,
    row: TupleValues | undefined,
    found: (b: B) => void,
  ): void {
    for (const b of this.scanned) {
      if (b.event !== '*' && b.event !== event) continue;
      if (b.filter && (!row || !matchesFilter(b.filter, row))) continue;
      found(b);
    }
    if (!row) return;
    for (const [column, values] of this.byValue) {
      const value = row[column];
      if (value === null || value === undefined) continue; // as in SQL: NULL equals nothing
      // A numeric filter compares numbers; a text one compares text. Look both up: a column has one kind of filter
      // per binding, and the filter itself decides (matchesFilter) which one applies.
      const asNumber = Number(value);
      for (const key of Number.isNaN(asNumber) ? [value] : [value, asNumber]) {
        for (const b of values.get(key) ?? []) {
          if (b.event !== '*' && b.event !== event) continue;
          if (matchesFilter(b.filter!, row)) found(b);
        }
      }
    }
  }

  private countFiltered(event: IndexedBinding['event'], by: number): void {
    this.filteredByEvent.set(event, (this.filteredByEvent.get(event) ?? 0) + by);
  }
}

/**
 * The key an `eq` filter is kept under, or undefined for a binding that is scanned. A numeric filter compares as
 * numbers when both sides are numbers (filters.ts), so it is kept under its number; one whose value is not a number
 * compares as text and is scanned, to stay exactly as filters.ts decides.
 */
function indexKey(filter: RowFilter | undefined): string | number | undefined {
  if (filter?.op !== 'eq') return undefined;
  const value = filter.values[0]!;
  if (!filter.numeric) return value;
  const n = Number(value);
  return Number.isNaN(n) ? undefined : n;
}
