// What the plan stage's steps share: the planner's options, the step record, the fields every plan carries, the
// root level of a read and the paging that applies to it.
import type { RequestHeaders } from '../parse/types.js';
import type { ApiRequest } from '../parse/request-parser.js';
import type { Level, PlanContext } from './read-planner.js';
import type { PlanCommon, ReadPlan, Source } from './types.js';

export interface PlannerOptions {
  readonly schemas: readonly string[];
  readonly maxRows: number | null;
  readonly aggregatesEnabled: boolean;
  readonly allowUnfilteredWrites: boolean;
  /** `Prefer: tx` decides how the transaction ends (db-tx-end's -allow-override forms). */
  readonly txOverridable: boolean;
  /** Plan output (`application/vnd.pgrst.plan`) allowed; otherwise that media type is not acceptable. */
  readonly planEnabled?: boolean;
  /** Soft-delete tables (option softDeletes): table key -> key of the function a DELETE calls instead. */
  readonly softDeletes?: ReadonlyMap<string, string>;
}

/** The preferences a plan of some kinds applies: each is named in Preference-Applied only where its plan says so. */
export interface AppliedByPlan {
  /** Inserts into a table with a primary key or an on_conflict target. */
  readonly resolution?: boolean;
  /** Inserts and updates. */
  readonly missing?: boolean;
  /** Writes: RPC and reads have no representation to choose. */
  readonly return?: boolean;
  /** Updates, deletes and calls, under handling=strict. */
  readonly maxAffected?: boolean;
}

const NOTHING_BY_PLAN: AppliedByPlan = {};

/** The fields every plan shares (an object, not a closure per request). */
export class CommonFields {
  constructor(
    private readonly schema: string,
    private readonly h: RequestHeaders,
    private readonly head: boolean,
    private readonly txAllowed: boolean,
    /** The schema was negotiated (a profile header, or several schemas exposed): answers name it. */
    private readonly profiled: boolean,
  ) {}

  of(readOnly: boolean, byPlan: AppliedByPlan = NOTHING_BY_PLAN): PlanCommon {
    const prefer = this.h.prefer;
    // In PostgREST's order, whatever the request's: clients and its test suite compare the header as a string.
    const applied: string[] = [];
    if (byPlan.resolution && prefer.resolution) applied.push(`resolution=${prefer.resolution}`);
    if (byPlan.missing && prefer.missing) applied.push(`missing=${prefer.missing}`);
    if (byPlan.return && prefer.return) applied.push(`return=${prefer.return}`);
    if (prefer.count) applied.push(`count=${prefer.count}`);
    if (prefer.tx && this.txAllowed) applied.push(`tx=${prefer.tx}`);
    if (prefer.handling) applied.push(`handling=${prefer.handling}`);
    if (prefer.timezone) applied.push(`timezone=${prefer.timezone}`);
    if (byPlan.maxAffected && prefer.handling === 'strict' && prefer.maxAffected !== null)
      applied.push(`max-affected=${prefer.maxAffected}`);
    const media = this.h.accept;
    const { schema, head, profiled } = this;
    return { schema, readOnly, media, handler: null, explain: this.h.plan, prefer, head, applied, profiled };
  }
}

/** What every planning step reads, in one record rather than a row of positional arguments. */
export interface Step {
  readonly ctx: PlanContext;
  readonly request: ApiRequest;
  readonly h: RequestHeaders;
  readonly schema: string;
  readonly common: CommonFields;
  readonly opts: PlannerOptions;
}

/** The root level of a read: the table, the rows a mutation returned or a function's result. */
export function rootLevel(ctx: PlanContext, source: Source, takeFilters: boolean): Level {
  const select = ctx.query.select;
  if (source.kind === 'call') {
    const fn = source.call.fn;
    return {
      source,
      label: fn.name,
      columns: fn.outColumns,
      relTable: fn.returnTable,
      select,
      names: [],
      alias: 't0',
      takeFilters,
    };
  }
  const t = source.table;
  return { source, label: t.name, columns: t.columns, relTable: t, select, names: [], alias: 't0', takeFilters };
}

export function applyPaging(
  read: ReadPlan,
  h: RequestHeaders,
  opts: PlannerOptions,
  useRange: boolean,
): { root: ReadPlan; offset: number } {
  let limit = read.limit,
    offset = read.offset ?? 0;
  if (useRange && h.range) {
    offset = h.range.offset + (read.offset ?? 0);
    if (h.range.limit !== null) limit = limit === null ? h.range.limit : Math.min(limit, h.range.limit);
  }
  if (opts.maxRows !== null) limit = limit === null ? opts.maxRows : Math.min(limit, opts.maxRows);
  return { root: { ...read, limit, offset: offset || null }, offset };
}

export const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
