// The schema cache: what the planner may name. Everything here was read from pg_catalog.

export interface Column {
  readonly name: string;
  /** format_type() with an empty search_path, so non-catalog types come schema-qualified. */
  readonly type: string;
  readonly typeOid: number;
  /** pg_type.typcategory: A array, R range, S string, N numeric, U user (tsvector, json are U). */
  readonly typeCategory: string;
  readonly baseType: string; // typname (e.g. 'tsvector', 'jsonb', '_int4')
  /** For a column whose type is a domain: the typname of the type under it, through domains over domains. */
  readonly underlyingType?: string;
  readonly nullable: boolean;
  readonly defaultExpr: string | null;
  readonly generated: boolean;
  readonly enumValues: readonly string[] | null;
  /**
   * Data representations (PostgREST's): the column's type is a domain with casts that the API reads and writes it
   * through: to json for answers, from json for request bodies, from text for query-string values. PostgreSQL does
   * not apply casts of domains itself, so each is its cast function, called by name.
   */
  readonly representation?: {
    readonly toJson: CastFunction | null;
    readonly fromJson: CastFunction | null;
    readonly fromText: CastFunction | null;
  };
}

/** A cast's function (pg_cast.castfunc), by schema and name. */
interface CastFunction {
  readonly schema: string;
  readonly name: string;
}

export interface Table {
  readonly schema: string;
  readonly name: string;
  readonly kind: 'table' | 'view' | 'matview' | 'foreign';
  /** A partitioned table (relkind p): its rows live in its partitions, and RETURNING reads no system column. */
  readonly partitioned?: boolean;
  readonly insertable: boolean;
  readonly updatable: boolean;
  readonly deletable: boolean;
  readonly columns: ReadonlyMap<string, Column>;
  readonly pk: readonly string[];
  readonly uniques: readonly (readonly string[])[];
  readonly comment: string | null;
}

type Cardinality = 'm2o' | 'o2m' | 'o2o' | 'm2m';

export interface Relationship {
  readonly cardinality: Cardinality;
  readonly table: Table; // the origin of the embed
  readonly foreignTable: Table; // the embedded one
  /**
   * A computed relationship: a function taking the origin's row and returning rows of the foreign table (its
   * name is the embed's target; columns are empty, the function does the join).
   */
  readonly computed?: DbFunction;
  /** FK constraint name (for m2m: the constraint from the junction to the foreign table). */
  readonly constraint: string;
  /** Column pairs: origin column = foreign column (for m2m: origin = junction cols1, foreign = junction cols2). */
  readonly columns: readonly string[];
  readonly foreignColumns: readonly string[];
  readonly junction?: {
    readonly table: Table;
    readonly constraint1: string; // junction -> origin
    readonly cols1: readonly string[]; // junction columns pointing at origin
    readonly constraint2: string; // junction -> foreign
    readonly cols2: readonly string[]; // junction columns pointing at foreign
  };
}

interface FunctionArg {
  readonly name: string;
  readonly type: string;
  readonly typeOid: number;
  readonly hasDefault: boolean;
  /** A VARIADIC parameter (an array): named in a call only with the VARIADIC keyword. */
  readonly variadic: boolean;
}

export interface DbFunction {
  readonly schema: string;
  readonly name: string;
  readonly args: readonly FunctionArg[];
  readonly returnType: string;
  readonly returnsSet: boolean;
  /** 'void', 'scalar', or 'composite' (rows with columns: a table's row type or RETURNS TABLE/OUT params). */
  readonly returnKind: 'void' | 'scalar' | 'composite';
  /** For composite results: the table/view whose row type is returned (relationships apply), if any. */
  readonly returnTable: Table | null;
  /** Output columns for composite results. */
  readonly outColumns: ReadonlyMap<string, Column>;
  readonly volatility: 'immutable' | 'stable' | 'volatile';
  readonly comment: string | null;
  /** The table or view whose row type the first argument is (the others having defaults), if any. */
  readonly argTable: Table | null;
  /** The planner's row estimate (ROWS n): 1 makes a SETOF computed relationship to-one, as in PostgREST. */
  readonly rows: number;
}

/**
 * A media type handler (PostgREST's): what answers a request whose Accept names a media type the handler's domain is
 * named after (`create domain "text/csv" as text`; the domain named star-slash-star answers any media type, as
 * application/octet-stream).
 * Either an aggregate of an exposed schema whose one argument is a table's or view's row type (or anyelement: every
 * relation) and whose result is such a domain, over the rows; or a function returning such a domain (not a set),
 * whose own value is the answer. The answer's bytes are the domain's binary form (its base type's send function),
 * as PostgREST sends them: text as it is, bytea raw, jsonb after its format version byte.
 */
export interface MediaHandler {
  readonly kind: 'aggregate' | 'function';
  /** The aggregate (for kind 'function': the function returning the domain). */
  readonly schema: string;
  readonly name: string;
  /** The row type an aggregate takes (its relation), or null for anyelement. */
  readonly target: { readonly schema: string; readonly name: string } | null;
  /** The domain's name, lower case: the media type asked for. */
  readonly mediaType: string;
  /** The media type answered (application/octet-stream for the star-slash-star domain). */
  readonly answers: string;
  /** The base type's send function, which makes the answer's bytes. */
  readonly send: { readonly schema: string; readonly name: string };
  /** The bytes are not text (the base type is not textual: bytea, ...): the answer is EngineResponse.bytes. */
  readonly binary: boolean;
}

/** The key of a media handler: the relation or function it answers for ('' for anyelement) and the media type. */
export const mediaHandlerKey = (target: string, mediaType: string): string => `${target}\n${mediaType}`;

export interface SchemaCache {
  readonly schemas: readonly string[];
  readonly tables: ReadonlyMap<string, Table>; // key: schema.name
  /** Partitions of the exposed schemas: no names of the API (as in PostgREST), described by type generation. */
  readonly partitions: ReadonlyMap<string, Table>; // key: schema.name
  /** Relationships keyed by the origin table key. */
  readonly relationships: ReadonlyMap<string, readonly Relationship[]>;
  readonly functions: ReadonlyMap<string, readonly DbFunction[]>; // key: schema.name
  /** Computed fields per table key: functions of the table's row returning one scalar, by name. */
  readonly computedFields: ReadonlyMap<string, ReadonlyMap<string, DbFunction>>;
  /** Lower-case type names usable in casts, mapped to their quoted SQL spelling. */
  readonly types: ReadonlyMap<string, string>;
  /** Media type handlers by mediaHandlerKey (relation key, function key or '' for anyelement; media type). */
  readonly mediaHandlers: ReadonlyMap<string, MediaHandler>;
  readonly loadedAt: number;
}

export const tableKey = (schema: string, name: string): string => `${schema}.${name}`;
