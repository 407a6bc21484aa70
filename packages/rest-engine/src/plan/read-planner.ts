// Resolves select trees, filters, logic trees, order and limits against the schema cache, one embed level at a time.
// Pure: each function reads the planning context and its level and returns new plan nodes; nothing is mutated.
import { errors } from '../errors.js';
import type { Condition, Field, Filter, QueryTree, SelectItem } from '../parse/types.js';
import { type Column, type DbFunction, type SchemaCache, type Table, tableKey } from '../schema-cache/types.js';
import { isToOne, resolveRelationship } from './relationship-resolver.js';
import { isAggregated, outputNames } from './row-shape.js';
import type {
  EmbedPlan,
  HoistedAggregate,
  Names,
  PlannedCondition,
  PlannedOrder,
  PlannedSelect,
  ReadPlan,
  Source,
} from './types.js';

/** Everything a plan is computed from: one readonly record shared by every level. */
export interface PlanContext {
  readonly cache: SchemaCache;
  readonly aggregatesEnabled: boolean;
  /** The query string, less the entries another part of the plan took (RPC arguments, PUT's key filters). */
  readonly query: QueryTree;
}

/** One level of a read: where its rows come from and where it sits in the embed tree. */
export interface Level {
  readonly source: Source;
  /** Table or function name, for messages. */
  readonly label: string;
  /**
   * The name unknown columns are reported against: the table at the root, `<table>_<depth>` inside embeds (the
   * names PostgREST 13's statements give embedded tables, which its 42703 messages carry).
   */
  readonly columnLabel?: string;
  readonly columns: ReadonlyMap<string, Column>;
  /** The table whose relationships embeds follow (null: a function without a table type embeds nothing). */
  readonly relTable: Table | null;
  readonly select: readonly SelectItem[] | null;
  readonly names: Names;
  /** The level's SQL alias, derived from its position so that equal requests give equal statement texts. */
  readonly alias: string;
  /** False for the rows a mutation returns: its filters were applied to the mutation itself. */
  readonly takeFilters: boolean;
}

const atLevel = (path: readonly string[], names: Names) =>
  path.length === names.length && path.every((p, i) => names[i].includes(p));

function resolveCast(cache: SchemaCache, cast: string | null): string | null {
  if (cast === null) return null;
  const arr = cast.endsWith('[]');
  const base = (arr ? cast.slice(0, -2) : cast).trim().toLowerCase();
  const spelled = cache.types.get(base);
  if (!spelled) throw errors.unknownType(cast);
  return arr ? `${spelled}[]` : spelled;
}

function column(columns: ReadonlyMap<string, Column>, label: string, field: Field): Column {
  const c = columns.get(field.name);
  if (!c) throw errors.unknownColumn(field.name, label);
  return c;
}

/** The field, marked to read its JSON path on the column's jsonb form when the column is not json or jsonb. */
function onColumn(field: Field, col: Column): Field {
  if (field.jsonPath.length === 0 || col.baseType === 'json' || col.baseType === 'jsonb') return field;
  return { ...field, viaJsonb: true };
}

const STAR: SelectItem[] = [{ kind: 'star' }];

/** A computed field of the level's table named like the field, when the table has no such column. */
function computedField(ctx: PlanContext, level: Level, field: Field): DbFunction | null {
  const t = level.relTable;
  if (!t || field.jsonPath.length > 0 || level.columns.has(field.name)) return null;
  return ctx.cache.computedFields.get(tableKey(t.schema, t.name))?.get(field.name) ?? null;
}

function planEmbed(ctx: PlanContext, level: Level, item: Extract<SelectItem, { kind: 'embed' }>, i: number): EmbedPlan {
  if (!level.relTable) throw errors.noRelationship(level.label, item.name, ctx.cache.schemas[0]);
  const rel = resolveRelationship(ctx.cache, level.relTable, item.name, item.hint);
  const t = rel.foreignTable;
  const toOne = isToOne(rel);
  const planned = planRead(ctx, {
    source: rel.computed
      ? { kind: 'computed', fn: rel.computed, table: t, parent: level.alias }
      : { kind: 'table', table: t },
    label: t.name,
    columnLabel: `${t.name}_${level.names.length + 1}`,
    columns: t.columns,
    relTable: t,
    select: item.select,
    names: [...level.names, item.alias ? [item.alias, item.name] : [item.name]],
    alias: `${level.alias}_${i}`,
    takeFilters: true,
  });
  let plan = planned,
    aggregates: ReadonlyMap<string, HoistedAggregate> = NO_AGGREGATES;
  if (item.spread && toOne) ({ plan, aggregates } = hoistAggregates(planned));
  else if (item.spread && isAggregated(planned))
    throw errors.notImplemented('Aggregates are not implemented for one-to-many or many-to-many spreads.');
  return {
    rel,
    name: item.alias ?? item.name,
    toOne,
    inner: item.join === 'inner',
    spread: item.spread,
    sqlAlias: `e${level.alias.slice(1)}_${i}`,
    plan,
    aggregates,
  };
}

const NO_AGGREGATES: ReadonlyMap<string, HoistedAggregate> = new Map();

/**
 * The aggregates of a to-one spread are computed by the level its columns are lifted into, over that level's rows
 * (as PostgREST hoists them): aggregating the one row the spread has for each parent row would change nothing. The
 * spread's level selects each aggregate's input under the aggregate's name instead, and hands the aggregate, with
 * those of the to-one spreads inside it, to its parent.
 */
function hoistAggregates(plan: ReadPlan): { plan: ReadPlan; aggregates: ReadonlyMap<string, HoistedAggregate> } {
  const aggregates = new Map<string, HoistedAggregate>();
  const select = plan.select.map((s): PlannedSelect => {
    if (s.kind === 'aggregate') {
      aggregates.set(s.alias, { fn: s.fn, cast: s.cast });
      return { kind: 'aggregate-input', field: s.field, fieldCast: s.fieldCast, alias: s.alias };
    }
    if (s.kind === 'embed' && s.embed.aggregates.size > 0) {
      for (const [name, agg] of s.embed.aggregates) aggregates.set(name, agg);
      return { kind: 'embed', embed: { ...s.embed, aggregates: NO_AGGREGATES } };
    }
    return s;
  });
  return aggregates.size === 0 ? { plan, aggregates } : { plan: { ...plan, select }, aggregates };
}

function planSelect(ctx: PlanContext, level: Level): PlannedSelect[] {
  const select = level.select ?? STAR;
  refuseRepeatedEmbeds(level, select);
  // With a column answering through its data representation, `*` is spelled out so that each column is cast.
  const represented = [...level.columns.values()].some((c) => c.representation?.toJson);
  const items = represented
    ? select.flatMap((item): SelectItem[] =>
        item.kind !== 'star'
          ? [item]
          : [...level.columns.keys()].map((name) => ({
              kind: 'column',
              field: { name, jsonPath: [] },
              alias: null,
              cast: null,
            })),
      )
    : select;
  // Embeds are resolved first, as in PostgREST: a missing relationship is reported before a missing column.
  const planned: PlannedSelect[] = new Array(items.length);
  items.forEach((item, i) => {
    if (item.kind === 'embed') planned[i] = planItem(ctx, level, item, i);
  });
  items.forEach((item, i) => {
    if (item.kind !== 'embed') planned[i] = planItem(ctx, level, item, i);
  });
  return planned;
}

/**
 * Two embeds answering under one name (`users!first_user(*), users!second_user(*)`) would give the object the same
 * key twice, and a JSON reader keeps only one of them: refused as PostgREST refuses it (42712, its join alias named
 * twice). Aliases tell them apart (`first:users!first_user(*)`).
 */
function refuseRepeatedEmbeds(level: Level, select: readonly SelectItem[]): void {
  const seen = new Set<string>();
  for (const item of select) {
    if (item.kind !== 'embed') continue;
    const name = item.alias ?? item.name;
    if (seen.has(name)) throw errors.repeatedEmbed(`${level.label}_${name}_${level.names.length + 1}`);
    seen.add(name);
  }
}

function planItem(ctx: PlanContext, level: Level, item: SelectItem, i: number): PlannedSelect {
  switch (item.kind) {
    case 'star':
      return item;
    case 'column': {
      const computed = computedField(ctx, level, item.field);
      if (computed) {
        const alias = item.alias ?? item.field.name;
        return { kind: 'computed', fn: computed, cast: resolveCast(ctx.cache, item.cast), alias };
      }
      // `rel(count)`: a bare `count` that names no column is the count() aggregate, as in PostgREST.
      if (item.field.name === 'count' && item.field.jsonPath.length === 0 && !level.columns.has('count')) {
        return planItem(
          ctx,
          level,
          { kind: 'aggregate', fn: 'count', field: null, fieldCast: null, alias: item.alias, cast: item.cast },
          i,
        );
      }
      const col = column(level.columns, level.columnLabel ?? level.label, item.field);
      // A JSON path answers under its last key that is not an array index (`data->0->>a` as `a`), else under the
      // column's name (`data->>0` as `data`), as PostgREST names it.
      const last = item.field.jsonPath.findLast((step) => !step.index);
      const alias = item.alias ?? (last ? last.key : item.field.name);
      const toJson = item.field.jsonPath.length === 0 ? col.representation?.toJson : null;
      const cast = resolveCast(ctx.cache, item.cast);
      return { kind: 'column', field: onColumn(item.field, col), cast, alias, ...(toJson ? { toJson } : {}) };
    }
    case 'aggregate': {
      if (!ctx.aggregatesEnabled) throw errors.aggregatesDisabled();
      const field =
        item.field && onColumn(item.field, column(level.columns, level.columnLabel ?? level.label, item.field));
      const cast = resolveCast(ctx.cache, item.cast);
      const fieldCast = resolveCast(ctx.cache, item.fieldCast);
      return { kind: 'aggregate', fn: item.fn, field, fieldCast, cast, alias: item.alias ?? item.fn };
    }
    case 'embed':
      return { kind: 'embed', embed: planEmbed(ctx, level, item, i) };
  }
}

function planOrder(ctx: PlanContext, level: Level, embeds: readonly EmbedPlan[]): PlannedOrder[] {
  const order: PlannedOrder[] = [];
  for (const entry of ctx.query.order) {
    if (!atLevel(entry.path, level.names)) continue;
    for (const t of entry.node) {
      if (t.relation === null) {
        const computed = computedField(ctx, level, t.field);
        if (computed) {
          order.push({ field: t.field, dir: t.dir, nulls: t.nulls, related: null, computed });
          continue;
        }
        const col = column(level.columns, level.columnLabel ?? level.label, t.field);
        order.push({ field: onColumn(t.field, col), dir: t.dir, nulls: t.nulls, related: null });
        continue;
      }
      const embedded = embeds.find((e) => e.name === t.relation || e.rel.foreignTable.name === t.relation);
      if (!level.relTable) throw errors.noRelationship(level.label, t.relation, ctx.cache.schemas[0]);
      // A column the to-one spread lifts into the row under that name (also an alias or an aggregate's name).
      if (embedded?.spread && embedded.toOne && t.field.jsonPath.length === 0) {
        if (outputNames(embedded.plan).includes(t.field.name)) {
          const spread = { sqlAlias: embedded.sqlAlias, name: t.field.name };
          order.push({ field: t.field, dir: t.dir, nulls: t.nulls, related: embedded.rel, spread });
          continue;
        }
      }
      // As in PostgREST, a related order is on a resource the select embeds (PGRST108 otherwise).
      if (!embedded) throw errors.notEmbedded(t.relation);
      const rel = embedded.rel;
      if (!isToOne(rel)) throw errors.orderToMany(level.label, t.relation);
      const col = column(rel.foreignTable.columns, rel.foreignTable.name, t.field);
      order.push({ field: onColumn(t.field, col), dir: t.dir, nulls: t.nulls, related: rel });
    }
  }
  return order;
}

export function planRead(ctx: PlanContext, level: Level): ReadPlan {
  const select = planSelect(ctx, level);
  const embeds: EmbedPlan[] = [];
  for (const s of select) if (s.kind === 'embed') embeds.push(s.embed);
  const where = level.takeFilters
    ? planConditions(ctx, level.columns, level.columnLabel ?? level.label, embeds, level.names, level.relTable)
    : [];
  let limit: number | null = null,
    offset: number | null = null;
  for (const entry of ctx.query.limits) {
    if (!atLevel(entry.path, level.names)) continue;
    limit = entry.node.limit ?? limit;
    offset = entry.node.offset ?? offset;
  }
  return {
    kind: 'read',
    source: level.source,
    label: level.label,
    columns: level.columns,
    sqlAlias: level.alias,
    names: level.names,
    select,
    where,
    order: planOrder(ctx, level, embeds),
    limit,
    offset,
  };
}

/** Filters and logic trees addressed to one level, resolved against its columns (or its embeds for `rel=is.null`). */
export function planConditions(
  ctx: PlanContext,
  columns: ReadonlyMap<string, Column>,
  label: string,
  embeds: readonly EmbedPlan[],
  names: Names,
  table: Table | null,
): PlannedCondition[] {
  const out: PlannedCondition[] = [];
  // Computed fields of the level's table may be filtered on like columns (a column of that name wins).
  const fields = table ? ctx.cache.computedFields.get(tableKey(table.schema, table.name)) : undefined;
  // With a label, a name that is neither is an error reported against it; without, null.
  const resolve = (c: Filter, unknownIn: string | null): PlannedCondition | null => {
    const col = columns.get(c.field.name);
    if (col) return { kind: 'filter', filter: { ...c, field: onColumn(c.field, col) }, column: col };
    const fn = fields?.get(c.field.name);
    if (fn) return { kind: 'filter', filter: c, column: resultColumn(fn), computed: fn };
    if (unknownIn !== null) throw errors.unknownColumn(c.field.name, unknownIn);
    return null;
  };
  // A column, a computed field, or an embed of the level (`rel=is.null`, `or=(rel.not.is.null,...)`), else 42703.
  const resolveAny = (f: Filter): PlannedCondition => {
    const resolved = resolve(f, null);
    if (resolved) return resolved;
    const embed = f.field.jsonPath.length === 0 ? embeds.find((e) => e.name === f.field.name) : undefined;
    if (embed) {
      if (f.op !== 'is' || f.value.kind !== 'is' || f.value.value !== 'null') throw errors.embedOperator();
      return { kind: 'embed-null', embed, isNull: !f.negate };
    }
    throw errors.unknownColumn(f.field.name, label);
  };
  for (const entry of ctx.query.filters) {
    if (!atLevel(entry.path, names)) continue;
    if (entry.node instanceof Error) throw entry.node;
    out.push(resolveAny(entry.node));
  }
  for (const entry of ctx.query.logic) {
    if (atLevel(entry.path, names)) out.push(planCondition(entry.node, resolveAny));
  }
  return out;
}

function planCondition(c: Condition, resolve: (c: Filter) => PlannedCondition): PlannedCondition {
  if (c.kind === 'logic')
    return {
      kind: 'logic',
      op: c.op,
      negate: c.negate,
      children: c.children.map((x) => planCondition(x, resolve)),
    };
  return resolve(c);
}

/** A computed field's result described as a column (its type decides how filters compare it). */
function resultColumn(fn: DbFunction): Column {
  return {
    name: fn.name,
    type: fn.returnType,
    typeOid: 0,
    typeCategory: fn.returnType === 'boolean' ? 'B' : 'U',
    baseType: fn.returnType === 'tsvector' ? 'tsvector' : fn.returnType,
    nullable: true,
    defaultExpr: null,
    generated: false,
    enumValues: null,
  };
}

/** The names of every level of a read tree, root first. */
function levelsOf(read: ReadPlan, out: Names[] = []): Names[] {
  out.push(read.names);
  for (const s of read.select) if (s.kind === 'embed') levelsOf(s.embed.plan, out);
  return out;
}

/** PGRST108 for a scoped entry that addresses an embed the select did not include. */
export function checkAllAddressed(query: QueryTree, read: ReadPlan | null): void {
  let levels: Names[] | null = null;
  const check = (entries: readonly { path: readonly string[] }[]) => {
    for (const entry of entries) {
      if (entry.path.length === 0) continue;
      levels ??= read ? levelsOf(read) : [[]];
      if (levels.some((names) => atLevel(entry.path, names))) continue;
      // The first segment of the path that names no embed of the level before it (`projects.tasks2.name`: tasks2),
      // as PostgREST walks the path.
      let k = 0;
      while (k < entry.path.length - 1 && levels.some((names) => atLevel(entry.path.slice(0, k + 1), names))) k++;
      throw errors.notEmbedded(entry.path[k]);
    }
  };
  check(query.filters);
  check(query.logic);
  check(query.order);
  check(query.limits);
}
