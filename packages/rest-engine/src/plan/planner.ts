// The plan stage's entry: routes the parsed request (method + target) to a plan: read, insert/update/delete/put
// (write-planner.ts), function call (call-planner.ts), OpenAPI or OPTIONS. Pure over the request, the schema cache
// and the options.
import { errors } from '../errors.js';
import type { ApiRequest } from '../parse/request-parser.js';
import type { RequestHeaders } from '../parse/types.js';
import { tableKey, type SchemaCache } from '../schema-cache/types.js';
import { planCall } from './call-planner.js';
import { applyPaging, CommonFields, rootLevel, type PlannerOptions, type Step } from './plan-step.js';
import { checkAllAddressed, type PlanContext, planRead } from './read-planner.js';
import type { Plan } from './types.js';
import { planWrite } from './write-planner.js';

/** The plan stage: the parsed request resolved against the schema cache. Pure: same inputs, same plan. */
export function plan(request: ApiRequest, cache: SchemaCache, opts: PlannerOptions): Plan {
  const { method, target } = request;
  const h = withKnownTimezone(request.headers, cache);
  const schema = h.profile ?? opts.schemas[0];
  if (!opts.schemas.includes(schema)) throw errors.schemaNotExposed(schema, opts.schemas);
  const prefer = h.prefer;
  if (prefer.handling === 'strict' && prefer.invalid.length) throw errors.strictPrefer([...prefer.invalid]);
  const profiled = h.profile !== null || opts.schemas.length > 1;
  const common = new CommonFields(schema, h, method === 'HEAD', opts.txOverridable, profiled);

  if (target.kind === 'root') {
    if (method === 'OPTIONS') return { ...common.of(true), kind: 'options', allow: 'OPTIONS,GET,HEAD' };
    if (method !== 'GET' && method !== 'HEAD') throw errors.unsupportedMethod(method);
    if (h.accept !== 'openapi' && h.accept !== 'json') throw errors.notAcceptable(request.acceptHeader);
    return { ...common.of(true), kind: 'openapi' };
  }
  if (h.accept === 'openapi' || (h.accept === 'plan' && !opts.planEnabled)) {
    throw errors.notAcceptable(request.acceptHeader);
  }
  const ctx: PlanContext = { cache, aggregatesEnabled: opts.aggregatesEnabled, query: request.query };
  const step: Step = { ctx, request, h, schema, common, opts };
  if (target.kind === 'rpc') return planCall(step, target.name);

  const table = cache.tables.get(tableKey(schema, target.name));
  if (!table) throw errors.noTable(schema, target.name);
  // Media types only a function's own domain can answer in (call-planner.ts): a table has none.
  if (h.accept === 'raw' && method !== 'OPTIONS') throw errors.notAcceptable(request.acceptHeader);
  switch (method) {
    case 'OPTIONS': {
      const allow = ['OPTIONS', 'GET', 'HEAD'];
      if (table.insertable) allow.push('POST');
      if (table.insertable && table.updatable) allow.push('PUT');
      if (table.updatable) allow.push('PATCH');
      if (table.deletable) allow.push('DELETE');
      return { ...common.of(true), kind: 'options', allow: allow.join(',') };
    }
    case 'GET':
    case 'HEAD': {
      const read = planRead(ctx, rootLevel(ctx, { kind: 'table', table }, true));
      checkAllAddressed(ctx.query, read);
      // The Range header counts for GET alone (RFC 9110), as in PostgREST: HEAD ignores it.
      const { root, offset } = applyPaging(read, h, opts, method === 'GET');
      return { ...common.of(true), kind: 'read', read: root, count: prefer.count, offset };
    }
    case 'POST':
    case 'PUT':
    case 'PATCH':
    case 'DELETE':
      return planWrite(step, table);
    default:
      throw errors.unsupportedMethod(method);
  }
}

/**
 * A `timezone` preference naming no zone of pg_timezone_names is dropped and counted as invalid, as in PostgREST:
 * ignored (and not in Preference-Applied) unless handling=strict makes it PGRST122.
 */
function withKnownTimezone(h: RequestHeaders, cache: SchemaCache): RequestHeaders {
  const tz = h.prefer.timezone;
  if (tz === null || cache.timezones.has(tz)) return h;
  return { ...h, prefer: { ...h.prefer, timezone: null, invalid: [...h.prefer.invalid, `timezone=${tz}`] } };
}
