// What a postgres_changes subscription is to the router: a binding (table, event, filter) of a target, the joined
// channel that receives the changes the binding matches and its subscriber may see.
import type { RowFilter } from './filters.js';
import type { Identity } from './subscriber-identity.js';

export type ChangeEvent = '*' | 'INSERT' | 'UPDATE' | 'DELETE';

export interface ChangeTarget {
  readonly identity: Identity;
  readonly joined: boolean;
  /** Sends one change; `data` is the JSON of the payload's `data` member. */
  deliverChange(ids: readonly number[], data: string): void;
}

export interface Binding {
  id: number;
  event: ChangeEvent;
  schema: string;
  /** A table name, or '*' for every subscribable table of the schema. */
  table: string;
  filter?: RowFilter;
  target: ChangeTarget;
}
