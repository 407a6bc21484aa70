// Resolves select trees, filters, logic trees, order and limits against the schema cache, one embed level at a time.
import { errors } from '../errors.js';
import type { Condition, Field, QueryTree, SelectItem } from '../parse/types.js';
import type { Column, SchemaCache, Table } from '../schema-cache/types.js';
import { isToOne, resolveRelationship } from './relationship-resolver.js';
import type { EmbedPlan, PlannedCondition, PlannedOrder, PlannedSelect, ReadPlan, Source } from './types.js';

export interface ReadContext {
  readonly cache: SchemaCache;
  readonly aggregatesEnabled: boolean;
  readonly query: QueryTree;
  /** Scoped query-string entries consumed so far; anything left over addresses no embed (PGRST108). */
  readonly used: Set<object>;
  /** Filter entries handled elsewhere (RPC arguments, mutation filters). */
  readonly skip: Set<object>;
  aliasCounter: number;
}

/** Accepted names per embed level below the root: an entry's path segment may be the embed's alias or its name. */
type Names = readonly (readonly string[])[];

const atLevel = (path: readonly string[], names: Names) =>
  path.length === names.length && path.every((p, i) => names[i].includes(p));

export function resolveCast(cache: SchemaCache, cast: string | null): string | null {
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

export function planRead(
  ctx: ReadContext,
  source: Source,
  label: string,
  columns: ReadonlyMap<string, Column>,
  relTable: Table | null,
  select: readonly SelectItem[] | null,
  names: Names,
  takeFilters = true,
): ReadPlan {
  const sqlAlias = `t${ctx.aliasCounter++}`;
  const items: PlannedSelect[] = [];
  const embeds: EmbedPlan[] = [];
  for (const item of select ?? [{ kind: 'star' } as const]) {
    switch (item.kind) {
      case 'star':
        items.push({ kind: 'star' });
        break;
      case 'column': {
        column(columns, label, item.field);
        const last = item.field.jsonPath[item.field.jsonPath.length - 1];
        items.push({
          kind: 'column',
          field: item.field,
          cast: resolveCast(ctx.cache, item.cast),
          alias: item.alias ?? (last ? last.key : item.field.name),
        });
        break;
      }
      case 'aggregate': {
        if (!ctx.aggregatesEnabled) throw errors.aggregatesDisabled();
        if (item.field) column(columns, label, item.field);
        items.push({
          kind: 'aggregate',
          fn: item.fn,
          field: item.field,
          cast: resolveCast(ctx.cache, item.cast),
          alias: item.alias ?? item.fn,
        });
        break;
      }
      case 'embed': {
        if (!relTable) throw errors.noRelationship(label, item.name, ctx.cache.schemas[0]);
        const rel = resolveRelationship(ctx.cache, relTable, item.name, item.hint);
        const toOne = isToOne(rel);
        const name = item.alias ?? item.name;
        const childNames = [...names, item.alias ? [item.alias, item.name] : [item.name]];
        const sqlAliasEmbed = `e${ctx.aliasCounter++}`;
        const plan = planRead(
          ctx,
          { kind: 'table', table: rel.foreignTable },
          rel.foreignTable.name,
          rel.foreignTable.columns,
          rel.foreignTable,
          item.select,
          childNames,
        );
        const embed: EmbedPlan = {
          rel,
          name,
          toOne,
          inner: item.join === 'inner',
          spread: item.spread,
          sqlAlias: sqlAliasEmbed,
          plan,
        };
        embeds.push(embed);
        items.push({ kind: 'embed', embed });
        break;
      }
    }
  }

  const where = takeFilters ? planConditions(ctx, columns, label, embeds, names) : [];

  const order: PlannedOrder[] = [];
  for (const entry of ctx.query.order) {
    if (!atLevel(entry.path, names)) continue;
    ctx.used.add(entry);
    for (const t of entry.node) {
      if (t.relation === null) {
        column(columns, label, t.field);
        order.push({ field: t.field, dir: t.dir, nulls: t.nulls, related: null });
        continue;
      }
      const embedded = embeds.find((e) => e.name === t.relation || e.rel.foreignTable.name === t.relation);
      if (!relTable) throw errors.noRelationship(label, t.relation, ctx.cache.schemas[0]);
      const rel = embedded?.rel ?? resolveRelationship(ctx.cache, relTable, t.relation, null);
      if (!isToOne(rel)) throw errors.orderToMany(label, t.relation);
      column(rel.foreignTable.columns, rel.foreignTable.name, t.field);
      order.push({ field: t.field, dir: t.dir, nulls: t.nulls, related: rel });
    }
  }

  let limit: number | null = null,
    offset: number | null = null;
  for (const entry of ctx.query.limits) {
    if (!atLevel(entry.path, names)) continue;
    ctx.used.add(entry);
    limit = entry.node.limit ?? limit;
    offset = entry.node.offset ?? offset;
  }
  return { kind: 'read', source, label, columns, sqlAlias, select: items, where, order, limit, offset };
}

/** Filters and logic trees addressed to one level, resolved against its columns (or its embeds for `rel=is.null`). */
export function planConditions(
  ctx: ReadContext,
  columns: ReadonlyMap<string, Column>,
  label: string,
  embeds: readonly EmbedPlan[],
  names: Names,
): PlannedCondition[] {
  const out: PlannedCondition[] = [];
  for (const entry of ctx.query.filters) {
    if (ctx.skip.has(entry) || !atLevel(entry.path, names)) continue;
    ctx.used.add(entry);
    if (entry.node instanceof Error) throw entry.node;
    const f = entry.node;
    const col = columns.get(f.field.name);
    if (col) {
      out.push({ kind: 'filter', filter: f, column: col });
      continue;
    }
    const embed = f.field.jsonPath.length === 0 ? embeds.find((e) => e.name === f.field.name) : undefined;
    if (embed) {
      if (f.op !== 'is' || f.value.kind !== 'is' || f.value.value !== 'null') throw errors.embedOperator();
      out.push({ kind: 'embed-null', embed, isNull: !f.negate });
      continue;
    }
    throw errors.unknownColumn(f.field.name, label);
  }
  for (const entry of ctx.query.logic) {
    if (!atLevel(entry.path, names)) continue;
    ctx.used.add(entry);
    out.push(planCondition(entry.node, columns, label));
  }
  return out;
}

function planCondition(c: Condition, columns: ReadonlyMap<string, Column>, label: string): PlannedCondition {
  if (c.kind === 'logic')
    return {
      kind: 'logic',
      op: c.op,
      negate: c.negate,
      children: c.children.map((x) => planCondition(x, columns, label)),
    };
  return { kind: 'filter', filter: c, column: column(columns, label, c.field) };
}

/** Throws PGRST108 for any scoped entry that addressed an embed the select did not include. */
export function checkAllUsed(ctx: ReadContext): void {
  for (const list of [ctx.query.filters, ctx.query.logic, ctx.query.order, ctx.query.limits] as const) {
    for (const entry of list as readonly { path: readonly string[] }[]) {
      if (!ctx.used.has(entry) && !ctx.skip.has(entry)) throw errors.notEmbedded(entry.path[0] ?? '');
    }
  }
}
