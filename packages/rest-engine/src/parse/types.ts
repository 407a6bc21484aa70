// The request tree: what the client asked for, before anything is resolved against the schema.
// Nodes are readonly and kind-tagged; the parser builds them once and nothing mutates them afterwards.

export interface JsonStep {
  readonly arrow: '->' | '->>';
  readonly key: string;
  readonly index: boolean;
}
export interface Field {
  readonly name: string;
  readonly jsonPath: readonly JsonStep[];
  /**
   * Set by the planner when the path runs on a column that is not json or jsonb (an array, a composite): the steps
   * then read the column's jsonb form, as PostgREST reads them.
   */
  readonly viaJsonb?: boolean;
}

export const AGGREGATES = ['count', 'sum', 'avg', 'max', 'min'] as const;
export type Aggregate = (typeof AGGREGATES)[number];

export type SelectItem = StarItem | ColumnItem | AggregateItem | EmbedItem;
interface StarItem {
  readonly kind: 'star';
}
interface ColumnItem {
  readonly kind: 'column';
  readonly field: Field;
  readonly alias: string | null;
  readonly cast: string | null;
}
interface AggregateItem {
  readonly kind: 'aggregate';
  readonly fn: Aggregate;
  readonly field: Field | null;
  /** The cast of the aggregate's input (`data->>n::int.sum()`). */
  readonly fieldCast: string | null;
  readonly alias: string | null;
  /** The cast of the aggregate's result (`amount.sum()::text`). */
  readonly cast: string | null;
}
interface EmbedItem {
  readonly kind: 'embed';
  readonly name: string;
  readonly alias: string | null;
  readonly hint: string | null;
  readonly join: 'inner' | 'left' | null;
  readonly spread: boolean;
  readonly select: readonly SelectItem[];
}

// biome-ignore format: the first row is the quantifiable operators (QUANTIFIABLE), the second the rest
export const OPERATORS = [
  'eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'like', 'ilike', 'match', 'imatch',
  'in', 'is', 'isdistinct', 'fts', 'plfts', 'phfts', 'wfts', 'cs', 'cd', 'ov', 'sl', 'sr', 'nxr', 'nxl', 'adj',
] as const;
export type Operator = (typeof OPERATORS)[number];
// The operators PostgREST accepts with (any) and (all): the first row above.
export const QUANTIFIABLE: ReadonlySet<Operator> = new Set(OPERATORS.slice(0, 10));
export const FTS_OPERATORS: ReadonlySet<Operator> = new Set(['fts', 'plfts', 'phfts', 'wfts']);

export type FilterValue =
  | { readonly kind: 'scalar'; readonly value: string }
  | { readonly kind: 'list'; readonly values: readonly string[] }
  | { readonly kind: 'is'; readonly value: 'null' | 'not_null' | 'true' | 'false' | 'unknown' };

export interface Filter {
  readonly kind: 'filter';
  readonly field: Field;
  readonly negate: boolean;
  readonly op: Operator;
  readonly quant: 'any' | 'all' | null;
  readonly lang: string | null;
  readonly value: FilterValue;
}
export interface Logic {
  readonly kind: 'logic';
  readonly op: 'and' | 'or';
  readonly negate: boolean;
  readonly children: readonly Condition[];
}
export type Condition = Filter | Logic;

export interface OrderTerm {
  readonly kind: 'order';
  readonly relation: string | null;
  readonly field: Field;
  readonly dir: 'asc' | 'desc' | null;
  readonly nulls: 'first' | 'last' | null;
}

/** A query-string entry addressed to an embed path ([] = the root resource). */
interface Scoped<T> {
  readonly path: readonly string[];
  readonly node: T;
}

export interface QueryTree {
  readonly select: readonly SelectItem[] | null;
  /** `key=value` filters; `node` is the parse error when the value is not a filter (it may be an RPC argument). */
  readonly filters: readonly (Scoped<Filter | Error> & { readonly key: string; readonly raw: string })[];
  readonly logic: readonly Scoped<Logic>[];
  readonly order: readonly Scoped<readonly OrderTerm[]>[];
  readonly limits: readonly Scoped<{ readonly limit: number | null; readonly offset: number | null }>[];
  readonly onConflict: readonly string[] | null;
  readonly columns: readonly string[] | null;
}

export interface Preferences {
  readonly return: 'minimal' | 'headers-only' | 'representation' | null;
  readonly count: 'exact' | 'planned' | 'estimated' | null;
  readonly resolution: 'merge-duplicates' | 'ignore-duplicates' | null;
  readonly missing: 'default' | 'null' | null;
  readonly handling: 'strict' | 'lenient' | null;
  readonly tx: 'commit' | 'rollback' | null;
  readonly maxAffected: number | null;
  readonly timezone: string | null;
  readonly invalid: readonly string[];
}

export type MediaType =
  | 'json'
  | 'object'
  | 'csv'
  | 'openapi'
  | 'stripped-array'
  | 'stripped-object'
  | 'geojson'
  | 'plan'
  // Only media types the engine does not produce itself were asked for: a function returning a domain named after
  // one of them (`create domain "text/plain" as text`) may answer in it; anything else is 406 PGRST107.
  | 'raw';

/** `Accept: application/vnd.pgrst.plan+json; for="..."; options=analyze|verbose|...`: EXPLAIN instead of rows. */
export interface PlanRequest {
  readonly format: 'json' | 'text';
  /** The media type the explained statement is for, as sent. */
  readonly for: string;
  readonly options: readonly ('analyze' | 'verbose' | 'settings' | 'buffers' | 'wal')[];
}

export interface RequestHeaders {
  readonly prefer: Preferences;
  readonly accept: MediaType;
  readonly plan: PlanRequest | null;
  readonly range: { readonly offset: number; readonly limit: number | null } | null;
  readonly profile: string | null;
}
