// The plan stage's entry: routes the parsed request (method + target) to a plan: read, insert/update/delete/put
// (write-planner.ts), function call (call-planner.ts), OpenAPI or OPTIONS. Pure over the request, the schema cache
// and the options.
import { errors } from '../errors.js';
import type { ApiRequest } from '../parse/request-parser.js';
import { tableKey, type SchemaCache } from '../schema-cache/types.js';
import { closestName, planCall } from './call-planner.js';
import { applyPaging, CommonFields, rootLevel, type PlannerOptions, type Step } from './plan-step.js';
import { isDefaultSelect, negotiateMedia } from './media-negotiation.js';
import { checkAllAddressed, type PlanContext, planRead } from './read-planner.js';
import type { Plan } from './types.js';
import { planWrite } from './write-planner.js';

/** The plan stage: the parsed request resolved against the schema cache. Pure: same inputs, same plan. */
export function plan(request: ApiRequest, cache: SchemaCache, opts: PlannerOptions): Plan {
  const { method, target } = request;
  const h = request.headers;
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
  if (!table) {
    // A hint names the most alike table or view of the schema (the cache holds only exposed ones).
    const names = [...cache.tables.values()].filter((t) => t.schema === schema).map((t) => t.name);
    throw errors.noTable(schema, target.name, closestName(target.name, names));
  }
  switch (method) {
    case 'OPTIONS': {
      const allow = ['OPTIONS', 'GET', 'HEAD'];
      if (table.insertable) allow.push('POST');
      // PUT addresses one row by its primary key: a table or view without one cannot take it.
      if (table.insertable && table.updatable && table.pk.length > 0) allow.push('PUT');
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
      const media = negotiateMedia(
        cache,
        request.acceptHeader,
        h.accept,
        table,
        isDefaultSelect(ctx.query.select),
        false,
      );
      return { ...common.of(true), ...media, kind: 'read', read: root, count: prefer.count, offset };
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
