// The plan tree: the request resolved against the schema cache. Every table, column, relationship and function
// here came from the cache, so the compiler may put their names into SQL.
import type { Aggregate, Field, Filter, MediaType, PlanRequest, Preferences } from '../parse/types.js';
import type { Column, DbFunction, MediaHandler, Relationship, Table } from '../schema-cache/types.js';

export type Source =
  | { readonly kind: 'table'; readonly table: Table }
  | { readonly kind: 'mutated'; readonly table: Table } // rows of the data-modifying CTE pgrst_source
  | { readonly kind: 'call'; readonly call: CallArgs }
  // rows of a computed relationship: the function called with the parent level's row
  | { readonly kind: 'computed'; readonly fn: DbFunction; readonly table: Table; readonly parent: string };

export interface CallArgs {
  readonly fn: DbFunction;
  /** 'record': JSON object of named arguments; 'single': the whole body to one unnamed json/jsonb parameter. */
  readonly mode: 'record' | 'single' | 'none';
  readonly json: string;
  readonly argNames: readonly string[];
}

export type PlannedSelect =
  | { readonly kind: 'star' }
  | {
      readonly kind: 'column';
      readonly field: Field;
      readonly cast: string | null;
      readonly alias: string;
      /** The column's domain answers through this cast function to json (a data representation). */
      readonly toJson?: { readonly schema: string; readonly name: string };
    }
  | {
      readonly kind: 'aggregate';
      readonly fn: Aggregate;
      readonly field: Field | null;
      /** The cast of the input, before the aggregate. */
      readonly fieldCast: string | null;
      readonly cast: string | null;
      readonly alias: string;
    }
  // The input of an aggregate of a to-one spread, hoisted to the level that aggregates it (EmbedPlan.aggregates):
  // the field (`1` for count()) under the aggregate's name.
  | {
      readonly kind: 'aggregate-input';
      readonly field: Field | null;
      readonly fieldCast: string | null;
      readonly alias: string;
    }
  | { readonly kind: 'embed'; readonly embed: EmbedPlan }
  // a computed field: a function of the level's row returning one scalar
  | { readonly kind: 'computed'; readonly fn: DbFunction; readonly cast: string | null; readonly alias: string };

/** An aggregate hoisted out of a to-one spread, applied by the level the spread's columns are lifted into. */
export interface HoistedAggregate {
  readonly fn: Aggregate;
  readonly cast: string | null;
}

export interface EmbedPlan {
  readonly rel: Relationship;
  readonly name: string; // output key (alias or relation name)
  readonly toOne: boolean;
  readonly inner: boolean;
  readonly spread: boolean;
  readonly sqlAlias: string; // alias of the lateral subquery
  readonly plan: ReadPlan;
  /**
   * A to-one spread: the aggregates of its columns (by output name, from it and the to-one spreads inside it), which
   * the level holding the spread computes over its rows, grouped by its other values. Empty when that level is itself
   * a to-one spread: it hands them on to its own parent.
   */
  readonly aggregates: ReadonlyMap<string, HoistedAggregate>;
}

export type PlannedCondition =
  | {
      readonly kind: 'filter';
      readonly filter: Filter;
      readonly column: Column;
      /** Filtering on a computed field: the function of the level's row, its result type described by `column`. */
      readonly computed?: DbFunction;
    }
  | {
      readonly kind: 'logic';
      readonly op: 'and' | 'or';
      readonly negate: boolean;
      readonly children: readonly PlannedCondition[];
    }
  | { readonly kind: 'embed-null'; readonly embed: EmbedPlan; readonly isNull: boolean };

export interface PlannedOrder {
  readonly field: Field;
  readonly dir: 'asc' | 'desc' | null;
  readonly nulls: 'first' | 'last' | null;
  /** Ordering by a column of a to-one related table. */
  readonly related: Relationship | null;
  /** Ordering by a computed field of the level's table. */
  readonly computed?: DbFunction;
  /** Ordering by a column a to-one spread lifts into the row (`order=rel(name)` with `...rel(name)`). */
  readonly spread?: { readonly sqlAlias: string; readonly name: string };
}

/** Accepted names per embed level below the root: a query-string path segment may be the embed's alias or name. */
export type Names = readonly (readonly string[])[];

export interface ReadPlan {
  readonly kind: 'read';
  readonly source: Source;
  readonly label: string; // table or function name, for messages
  readonly columns: ReadonlyMap<string, Column>;
  readonly sqlAlias: string;
  /** Where the level sits in the embed tree, for addressing query-string entries to it. */
  readonly names: Names;
  readonly select: readonly PlannedSelect[];
  readonly where: readonly PlannedCondition[];
  readonly order: readonly PlannedOrder[];
  readonly limit: number | null;
  readonly offset: number | null;
}

export type Mutation =
  | {
      readonly kind: 'insert';
      readonly table: Table;
      readonly columns: readonly string[];
      readonly body: string;
      readonly defaults: ReadonlyMap<string, string>; // missing=default: column -> default expression from the catalog
      readonly onConflict: { readonly columns: readonly string[]; readonly action: 'update' | 'nothing' } | null;
      readonly empty: 'none' | 'default-values' | null;
    }
  | {
      readonly kind: 'update';
      readonly table: Table;
      readonly columns: readonly string[];
      readonly body: string;
      /** missing=default: the columns of ?columns the body lacks, set to their DEFAULT. */
      readonly defaults: readonly string[];
      readonly where: readonly PlannedCondition[];
    }
  | {
      readonly kind: 'delete';
      readonly table: Table;
      readonly where: readonly PlannedCondition[];
      /** A soft delete (option softDeletes): this function is called with each selected row's primary key. */
      readonly softDelete: DbFunction | null;
    };

export interface PlanCommon {
  readonly schema: string;
  readonly readOnly: boolean;
  readonly media: MediaType;
  /** The database's media type handler that makes the answer (media 'raw'), or null: the engine renders it. */
  readonly handler: MediaHandler | null;
  /** With the plan media type: the EXPLAIN to answer with instead of the rows. */
  readonly explain: PlanRequest | null;
  readonly prefer: Preferences;
  readonly applied: readonly string[];
  readonly head: boolean;
  /** Answers with a body say their schema in Content-Profile (it was negotiated: PostgREST's rule). */
  readonly profiled: boolean;
}

export type Plan =
  | (PlanCommon & {
      readonly kind: 'read';
      readonly read: ReadPlan;
      readonly count: Preferences['count'];
      readonly offset: number;
    })
  | (PlanCommon & {
      readonly kind: 'mutate';
      readonly mutation: Mutation;
      /** count=exact (any count preference): the affected rows, in Content-Range. */
      readonly count: Preferences['count'];
      readonly returning: ReadPlan;
      readonly representation: boolean;
      readonly location: readonly string[] | null;
      readonly status: number;
    })
  | (PlanCommon & {
      readonly kind: 'call';
      readonly read: ReadPlan | null;
      readonly scalar: CallArgs | null;
      readonly fn: DbFunction;
      readonly count: Preferences['count'];
      readonly offset: number;
    })
  | (PlanCommon & { readonly kind: 'openapi' })
  | (PlanCommon & { readonly kind: 'options'; readonly allow: string });
