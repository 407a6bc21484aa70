// The Functions of one schema as the Supabase CLI prints them: the functions PostgREST can call (named arguments,
// a single unnamed json/jsonb/text one, or a table row for computed fields and relationships), each overload's
// Args and Returns, SetofOptions where the result is rows of a relation, and the CLI's error types where
// PostgREST could not choose between overloads.
import type { CatalogExtras, CatalogFunction, FunctionArgument } from './catalog-extras.js';
import { key, literal, typeLiteral, union } from './ts-printer.js';
import { nullable, tsTypeOfOid, type TypeScope } from './ts-type-mapper.js';

// json, jsonb, text: the single unnamed parameter types PostgREST passes the request body to.
const BODY_TYPES = new Set([114, 3802, 25]);
const IN_MODES = new Set<FunctionArgument['mode']>(['in', 'inout', 'variadic']);

export interface FunctionContext {
  readonly extras: CatalogExtras;
  readonly scope: TypeScope;
  /** Names of the generated relations by oid (tables, views, materialized views and foreign tables). */
  readonly relationNames: ReadonlyMap<number, string>;
  /** Row columns of a relation of the schema, printed, by relation oid. */
  readonly rowColumns: (relid: number) => readonly string[] | null;
}

interface Overload {
  readonly fn: CatalogFunction;
  readonly inArgs: readonly FunctionArgument[];
}

const rowTypeOf = (ctx: FunctionContext, oid: number) => {
  const t = ctx.extras.types.get(oid);
  return t?.relid ? t : undefined;
};

/** The relation a function's result rows belong to: a generated relation, else a composite type by name. */
function resultRelation(ctx: FunctionContext, fn: CatalogFunction): string | null {
  if (!fn.returnRelid) return null;
  return ctx.relationNames.get(fn.returnRelid) ?? rowTypeOf(ctx, fn.returnTypeOid)?.name ?? null;
}

function callable(ctx: FunctionContext, inArgs: readonly FunctionArgument[]): boolean {
  if (inArgs.every((a) => a.name !== '')) return true;
  if (inArgs.every((a) => a.name !== '' || (a.hasDefault && BODY_TYPES.has(a.typeOid)))) return true;
  // A single unnamed parameter: the body (json, jsonb, text) or a table row (listed even when PostgREST cannot
  // embed it, so that the CLI's error type reaches the caller).
  return inArgs.length === 1 && (BODY_TYPES.has(inArgs[0].typeOid) || rowTypeOf(ctx, inArgs[0].typeOid) !== undefined);
}

/** The functions of a schema the CLI lists, sorted by name; arguments sorted by name as the CLI does. */
export function listedFunctions(ctx: FunctionContext, schema: string): Overload[] {
  return ctx.extras.functions
    .filter((fn) => fn.schema === schema)
    .map((fn) => {
      const sorted = { ...fn, args: [...fn.args].sort((a, b) => a.name.localeCompare(b.name)) };
      return { fn: sorted, inArgs: sorted.args.filter((a) => IN_MODES.has(a.mode)) };
    })
    .filter((o) => callable(ctx, o.inArgs))
    .sort((a, b) => a.fn.name.localeCompare(b.fn.name));
}

function returnTypeOf(ctx: FunctionContext, schema: string, fn: CatalogFunction): string {
  const tableArgs = fn.args.filter((a) => a.mode === 'table');
  if (tableArgs.length > 0) {
    return typeLiteral(tableArgs.map((a) => `${key(a.name)}: ${tsTypeOfOid(ctx.scope, schema, a.typeOid)}`));
  }
  const columns = fn.returnRelid ? ctx.rowColumns(fn.returnRelid) : null;
  if (columns) return typeLiteral(columns);
  return tsTypeOfOid(ctx.scope, schema, fn.returnTypeOid);
}

function setofOptions(ctx: FunctionContext, fn: CatalogFunction): string | null {
  const to = resultRelation(ctx, fn);
  const oneRow = !(fn.rows !== null && fn.rows > 1);
  let options: [string, boolean, boolean] | null = to ? ['*', oneRow, fn.returnsSet] : null;
  const rowArg = fn.args.length === 1 ? rowTypeOf(ctx, fn.args[0].typeOid) : undefined;
  if (rowArg && to) {
    // A function of one table's row: an embeddable relationship from that table.
    options = fn.returnsSet && fn.returnRelid !== null ? [rowArg.format, oneRow, true] : [rowArg.format, true, false];
  }
  if (!options || !to) return null;
  return `SetofOptions: ${typeLiteral([
    `from: ${literal(options[0])}`,
    `to: ${literal(to)}`,
    `isOneToOne: ${options[1]}`,
    `isSetofReturn: ${options[2]}`,
  ])}`;
}

function argsOf(ctx: FunctionContext, schema: string, inArgs: readonly FunctionArgument[]): string {
  if (inArgs.length === 0) return 'never';
  const members = inArgs.map(
    (a) => `${key(a.name)}${a.hasDefault ? '?' : ''}: ${tsTypeOfOid(ctx.scope, schema, a.typeOid)}`,
  );
  return `{ ${members.join('; ')} }`;
}

const typeName = (ctx: FunctionContext, oid: number) => ctx.extras.types.get(oid)?.name ?? 'unknown';

const AMBIGUOUS = (candidates: string) =>
  `Could not choose the best candidate function between: ${candidates}. Try renaming the parameters or the ` +
  'function itself in the database so function overloading can be resolved';

/** PostgREST's "could not choose" error for overloads it cannot tell apart, as the CLI spells it. */
function ambiguity(ctx: FunctionContext, schema: string, all: readonly Overload[], o: Overload): string | null {
  if (all.length <= 1) return null;
  const others = all.filter((x) => x !== o);
  const qualified = `${schema}.${o.fn.name}`;
  if (o.inArgs.length === 0) {
    const other = others.find((x) => x.inArgs.length === 1 && x.inArgs[0].name === '' && x.inArgs[0].hasDefault);
    if (other) return AMBIGUOUS(`${qualified}(), ${qualified}( => ${typeName(ctx, other.fn.returnTypeOid)})`);
  }
  if (o.inArgs.length === 1 && o.inArgs[0].name !== '') {
    const [arg] = o.inArgs;
    const clashing = others.filter(
      (x) => x.inArgs.length === 1 && x.inArgs[0].name === arg.name && x.inArgs[0].typeOid !== arg.typeOid,
    );
    if (clashing.length > 0) {
      const list = [o, ...clashing]
        .sort((a, b) => (a.inArgs[0]?.typeOid ?? 0) - (b.inArgs[0]?.typeOid ?? 0))
        .map((x) => `${qualified}(${x.inArgs.map((a) => `${a.name} => ${typeName(ctx, a.typeOid)}`).join(', ')})`);
      return AMBIGUOUS(list.join(', '));
    }
  }
  return null;
}

const errorType = (message: string) => `{\n  error: true\n} & ${literal(message)}`;

function signature(ctx: FunctionContext, schema: string, all: readonly Overload[], o: Overload): string {
  const { fn, inArgs } = o;
  let returns = returnTypeOf(ctx, schema, fn);
  const conflict = ambiguity(ctx, schema, all, o);
  const unembeddableRow =
    inArgs.length === 1 && inArgs[0].name === '' && rowTypeOf(ctx, inArgs[0].typeOid) && !resultRelation(ctx, fn);
  if (conflict) returns = errorType(conflict);
  else if (unembeddableRow) {
    returns = errorType(
      `the function ${schema}.${fn.name} with parameter or with a single unnamed json/jsonb parameter, but no ` +
        'matches were found in the schema cache',
    );
  }
  const collapsesToOneRow = !(fn.rows !== null && fn.rows > 1) && resultRelation(ctx, fn) !== null;
  // As in the CLI, an error type keeps the result's array and SetofOptions.
  const isArray = fn.returnsSet && !collapsesToOneRow;
  const setof = setofOptions(ctx, fn);
  return typeLiteral([
    `Args: ${argsOf(ctx, schema, inArgs)}`,
    `Returns: ${returns}${isArray ? '[]' : ''}`,
    ...(setof ? [setof] : []),
  ]);
}

/** `name: { Args; Returns }` per function name, overloads as a union ordered by their argument lists. */
export function functionEntries(ctx: FunctionContext, schema: string, listed: readonly Overload[]): string[] {
  const groups = new Map<string, Overload[]>();
  for (const o of listed) groups.set(o.fn.name, [...(groups.get(o.fn.name) ?? []), o]);
  return [...groups].map(([name, overloads]) => {
    overloads.sort(
      (a, b) => a.fn.argumentTypes.localeCompare(b.fn.argumentTypes) || a.fn.resultText.localeCompare(b.fn.resultText),
    );
    return `${key(name)}: ${union(overloads.map((o) => signature(ctx, schema, overloads, o)))}`;
  });
}

/** Computed fields of a relation: functions of its row alone, typed as nullable columns of its Row. */
export function computedFieldsOf(
  ctx: FunctionContext,
  schema: string,
  listed: readonly Overload[],
  relationName: string,
): string[] {
  return listed
    .filter((o) => o.fn.argumentTypes === relationName)
    .map((o) => `${key(o.fn.name)}: ${nullable(returnTypeOf(ctx, schema, o.fn), true)}`);
}
