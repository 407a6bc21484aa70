// The function-call plans (/rpc/name): the overload the arguments choose, its arguments from the body (POST) or
// the query string (GET), and the read of a composite result.
import { closest, distance } from 'fastest-levenshtein';
import { errors } from '../errors.js';
import { RAW_BODY_TYPES, RawBody } from '../parse/request-parser.js';
import { tableKey, type DbFunction, type SchemaCache } from '../schema-cache/types.js';
import { applyPaging, isObject, rootLevel, type Step } from './plan-step.js';
import { isDefaultSelect, negotiateMedia } from './media-negotiation.js';
import { checkAllAddressed, type PlanContext, planRead } from './read-planner.js';
import type { CallArgs, Plan } from './types.js';

/** A call names max-affected (under handling=strict) in Preference-Applied, as PostgREST. */
const CALL_APPLIES = { maxAffected: true } as const;

const isJsonType = (t: string) => t === 'json' || t === 'jsonb';

function chooseFunction(
  fns: readonly DbFunction[],
  keys: readonly string[] | null,
  schema: string,
  name: string,
  allowSingle: boolean,
): DbFunction {
  const matching =
    keys === null
      ? []
      : fns.filter(
          (f) =>
            keys.every((k) => f.args.some((a) => a.name === k)) &&
            f.args.every((a) => a.hasDefault || keys.includes(a.name)),
        );
  const candidates = matching.length
    ? matching
    : allowSingle
      ? fns.filter((f) => f.args.length === 1 && f.args[0].name === '' && isJsonType(f.args[0].type))
      : [];
  if (candidates.length === 0)
    throw errors.noFunction(schema, name, [...(keys ?? [])], closestParameters(fns, name, keys ?? []), allowSingle);
  if (candidates.length > 1) {
    // Fewest parameters first, then by signature, as PostgREST lists them.
    const sigs = candidates
      .map((f) => ({ n: f.args.length, sig: f.args.map((a) => `${a.name} => ${a.type}`).join(', ') }))
      .sort((a, b) => a.n - b.n || (a.sig < b.sig ? -1 : a.sig > b.sig ? 1 : 0));
    throw errors.ambiguousFunction(
      schema,
      name,
      sigs.map((s) => s.sig),
    );
  }
  return candidates[0];
}

/**
 * The text a single unnamed parameter receives: the whole body for json/jsonb; for text, xml and bytea the value
 * of the body's one key '' when the client sent `{"": value}` (supabase-js's way to call them), else the body.
 */
function singleArgument(fn: DbFunction, body: unknown): string {
  if (!isJsonType(fn.args[0].type) && isObject(body)) {
    const keys = Object.keys(body);
    if (keys.length === 1 && keys[0] === '') {
      const v = body[''];
      return typeof v === 'string' ? v : JSON.stringify(v);
    }
  }
  return JSON.stringify(body);
}

/** How alike two texts are: 1 for equal, 0 for nothing in common (edits over the longer length). */
const similarity = (a: string, b: string) => 1 - distance(a, b) / Math.max(a.length, b.length, 1);

/** For a misspelt name: the most alike of `names`, if at least 3/4 alike (PostgREST's bar for tables and functions). */
export function closestName(name: string, names: readonly string[]): string | null {
  if (names.length === 0) return null;
  const best = closest(name, names as string[]);
  return similarity(name, best) >= 0.75 ? best : null;
}

/** For a misspelt function name: the most alike name in the schema. */
function closestFunction(cache: SchemaCache, schema: string, name: string): string | null {
  return closestName(
    name,
    [...cache.functions.values()].filter((f) => f[0].schema === schema).map((f) => f[0].name),
  );
}

/**
 * For arguments that no overload takes: the overload whose parameter list (sorted, as text) is most alike the
 * arguments', if at least a third alike, as PostgREST hints (naming parameters reveals nothing a caller may not see).
 */
function closestParameters(fns: readonly DbFunction[], name: string, keys: readonly string[]): string | null {
  const text = (names: readonly string[]) => `(${[...names].sort().join(', ')})`;
  const lists = fns.map((f) => text(f.args.map((a) => a.name)));
  const wanted = text(keys);
  const best = closest(wanted, lists);
  return similarity(wanted, best) >= 1 / 3 ? `${name}${best}` : null;
}

export function planCall(step: Step, name: string): Plan {
  const { request, schema, common, h } = step;
  const method = request.method;
  if (method === 'OPTIONS') return planOptions(step, name);
  if (method !== 'GET' && method !== 'HEAD' && method !== 'POST') throw errors.rpcMethod(method);
  const fns = step.ctx.cache.functions.get(tableKey(schema, name));
  const readOnly = method !== 'POST';
  let fn: DbFunction, call: CallArgs;
  // By GET, query-string entries naming an argument are arguments, not filters on the result.
  let query = step.ctx.query;
  if (!readOnly && request.body instanceof RawBody) {
    // A text/plain, text/xml or application/octet-stream body goes whole to the overload with a single unnamed
    // parameter of that type.
    const type = RAW_BODY_TYPES[request.body.media];
    const single = fns?.find((f) => f.args.length === 1 && f.args[0].name === '' && f.args[0].type === type);
    if (!single) throw errors.noRawBodyFunction(schema, name, type);
    fn = single;
    call = { fn, mode: 'single', json: request.body.text, argNames: [] };
  } else if (!readOnly) {
    // By POST the arguments are in the body: an entry of the query string that reads as no filter is an error
    // (PGRST100), as in PostgREST.
    for (const f of query.filters) if (f.node instanceof Error) throw f.node;
    const body = request.body ?? {};
    // An array of objects: its first object names the arguments (PostgREST calls with the first alone); a
    // function with a single unnamed json parameter still takes the whole array.
    const rows = Array.isArray(body) && body.length > 0 && body.every(isObject) ? body : null;
    const first: unknown = rows ? rows[0] : body;
    let keys = isObject(first) ? Object.keys(first) : null;
    // ?columns= names the keys that are arguments; the others are left out.
    const wanted = step.ctx.query.columns;
    if (keys && wanted) keys = keys.filter((k) => wanted.includes(k));
    if (!fns) throw errors.noFunction(schema, name, [...(keys ?? [])], closestFunction(step.ctx.cache, schema, name));
    // A CSV body is rows of named values, never one json value.
    fn = chooseFunction(fns, keys, schema, name, request.bodyMedia !== 'text/csv');
    const single = fn.args.length === 1 && fn.args[0].name === '';
    if (single) call = { fn, mode: 'single', json: singleArgument(fn, body), argNames: [] };
    else {
      const given = first as Record<string, unknown>;
      const args: Record<string, unknown> = {};
      for (const k of keys!) {
        // One value for a VARIADIC parameter (an HTML form's key given once) is an array of that value.
        const variadic = fn.args.some((a) => a.variadic && a.name === k);
        args[k] = variadic && typeof given[k] === 'string' ? [given[k]] : given[k];
      }
      call = { fn, mode: keys!.length ? 'record' : 'none', json: JSON.stringify(args), argNames: keys! };
    }
  } else {
    const variadic = new Set((fns ?? []).flatMap((f) => f.args.filter((a) => a.variadic).map((a) => a.name)));
    // As in PostgREST, an entry whose value reads as a filter (`id=gt.2`) is a filter even when it names an
    // argument; one that does not (`id=5`) is an argument, also when no overload has a parameter of that name
    // (then no overload is found: 404 PGRST202 naming it).
    // An empty name is no argument: unnamed parameters are not called by name.
    const isArg = (f: (typeof query.filters)[number]) => f.path.length === 0 && f.key !== '' && f.node instanceof Error;
    // A repeated parameter: the last value, or every value for a VARIADIC one (its array).
    const args: Record<string, string | string[]> = {};
    for (const f of query.filters) {
      if (!isArg(f)) continue;
      const prev = args[f.key];
      args[f.key] = !variadic.has(f.key) ? f.raw : Array.isArray(prev) ? [...prev, f.raw] : [f.raw];
    }
    if (!fns)
      throw errors.noFunction(schema, name, Object.keys(args), closestFunction(step.ctx.cache, schema, name), false);
    fn = chooseFunction(fns, Object.keys(args), schema, name, false);
    const argKeys = Object.keys(args);
    call = { fn, mode: argKeys.length ? 'record' : 'none', json: JSON.stringify(args), argNames: argKeys };
    query = { ...query, filters: query.filters.filter((f) => !isArg(f)) };
  }
  // A function returning rows of a relation answers through that relation's handlers (named in its schema).
  const target = { schema: fn.schema, name: fn.returnTable?.name ?? fn.name };
  const scalar = fn.returnKind !== 'composite';
  const media = negotiateMedia(
    step.ctx.cache,
    request.acceptHeader,
    h.accept,
    target,
    isDefaultSelect(query.select),
    scalar,
  );
  if (fn.returnKind !== 'composite') {
    checkAllAddressed(query, null);
    return {
      ...common.of(readOnly, CALL_APPLIES),
      ...media,
      kind: 'call',
      read: null,
      scalar: call,
      fn,
      count: h.prefer.count,
      offset: 0,
    };
  }
  const ctx: PlanContext = { ...step.ctx, query };
  const read = planRead(ctx, rootLevel(ctx, { kind: 'call', call }, true));
  checkAllAddressed(query, read);
  // The Range header counts for GET alone (RFC 9110), as in PostgREST: HEAD and POST ignore it.
  const { root, offset } = applyPaging(read, h, step.opts, method === 'GET');
  return {
    ...common.of(readOnly, CALL_APPLIES),
    ...media,
    kind: 'call',
    read: root,
    scalar: null,
    fn,
    count: h.prefer.count,
    offset,
  };
}

/**
 * OPTIONS on a function: a volatile one may only be called by POST (as PostgREST). The overload is the one GET
 * would call with the query string's arguments; when those choose none, POST alone only if every overload is
 * volatile. An unknown function is 404.
 */
function planOptions(step: Step, name: string): Plan {
  const { schema, common } = step;
  const fns = step.ctx.cache.functions.get(tableKey(schema, name));
  if (!fns) throw errors.noFunction(schema, name, [], closestFunction(step.ctx.cache, schema, name), false);
  const asGet = { ...step, request: { ...step.request, method: 'GET' } } as Step;
  let volatile: boolean;
  try {
    const p = planCall(asGet, name);
    volatile = p.kind === 'call' && p.fn.volatility === 'volatile';
  } catch {
    volatile = fns.every((f) => f.volatility === 'volatile');
  }
  return { ...common.of(true), kind: 'options', allow: volatile ? 'OPTIONS,POST' : 'OPTIONS,GET,HEAD,POST' };
}
