// An OpenAPI 3.1 description of the exposed schema, built from the schema cache (served at GET / of the mount).
import type { Column, SchemaCache } from './schema-cache/types.js';

function jsonSchema(c: Column): Record<string, unknown> {
  const t = c.baseType;
  let s: Record<string, unknown>;
  if (c.enumValues) s = { type: 'string', enum: c.enumValues };
  else if (/^(int2|int4|int8)$/.test(t)) s = { type: 'integer' };
  else if (/^(float4|float8|numeric)$/.test(t)) s = { type: 'number' };
  else if (t === 'bool') s = { type: 'boolean' };
  else if (t === 'json' || t === 'jsonb') s = {};
  else if (c.typeCategory === 'A') s = { type: 'array', items: {} };
  else s = { type: 'string' };
  if (t === 'timestamptz' || t === 'timestamp') s.format = 'date-time';
  if (t === 'date') s.format = 'date';
  if (t === 'uuid') s.format = 'uuid';
  s['x-pg-type'] = c.type;
  if (c.nullable && s.type) s.type = [s.type as string, 'null'];
  return s;
}

export function buildOpenApi(cache: SchemaCache, schema: string): Record<string, unknown> {
  const paths: Record<string, unknown> = {
    '/': { get: { summary: 'OpenAPI description', responses: { 200: { description: 'OK' } } } },
  };
  const schemas: Record<string, unknown> = {};
  const rowsResponse = (name: string) => ({
    description: 'OK',
    content: { 'application/json': { schema: { type: 'array', items: { $ref: `#/components/schemas/${name}` } } } },
  });
  const common = [
    { $ref: '#/components/parameters/select' },
    { $ref: '#/components/parameters/order' },
    { $ref: '#/components/parameters/limit' },
    { $ref: '#/components/parameters/offset' },
  ];
  for (const t of cache.tables.values()) {
    if (t.schema !== schema) continue;
    schemas[t.name] = {
      type: 'object',
      description: t.comment ?? undefined,
      required: [...t.columns.values()].filter((c) => !c.nullable && c.defaultExpr === null).map((c) => c.name),
      properties: Object.fromEntries([...t.columns.values()].map((c) => [c.name, jsonSchema(c)])),
    };
    const ops: Record<string, unknown> = {
      get: {
        tags: [t.name],
        parameters: common,
        responses: { 200: rowsResponse(t.name), 206: { description: 'Partial Content' } },
      },
    };
    const body = { content: { 'application/json': { schema: { $ref: `#/components/schemas/${t.name}` } } } };
    if (t.insertable) ops.post = { tags: [t.name], requestBody: body, responses: { 201: { description: 'Created' } } };
    if (t.updatable)
      ops.patch = { tags: [t.name], requestBody: body, responses: { 204: { description: 'No Content' } } };
    if (t.deletable) ops.delete = { tags: [t.name], responses: { 204: { description: 'No Content' } } };
    paths[`/${t.name}`] = ops;
  }
  for (const fns of cache.functions.values()) {
    for (const f of fns) {
      if (f.schema !== schema) continue;
      const props = Object.fromEntries(f.args.filter((a) => a.name).map((a) => [a.name, { 'x-pg-type': a.type }]));
      const required = f.args.filter((a) => a.name && !a.hasDefault).map((a) => a.name);
      const op = {
        tags: [`(rpc) ${f.name}`],
        description: f.comment ?? undefined,
        requestBody: { content: { 'application/json': { schema: { type: 'object', properties: props, required } } } },
        responses: { 200: { description: 'OK' }, 204: { description: 'No Content' } },
      };
      paths[`/rpc/${f.name}`] = {
        post: op,
        ...(f.volatility !== 'volatile' ? { get: { tags: op.tags, responses: op.responses } } : {}),
      };
    }
  }
  const int = { schema: { type: 'integer', minimum: 0 } };
  return {
    openapi: '3.1.0',
    info: { title: `PostgREST-compatible API (${schema})`, version: '1.0.0' },
    paths,
    components: {
      schemas,
      parameters: {
        select: { name: 'select', in: 'query', schema: { type: 'string' } },
        order: { name: 'order', in: 'query', schema: { type: 'string' } },
        limit: { name: 'limit', in: 'query', ...int },
        offset: { name: 'offset', in: 'query', ...int },
      },
    },
  };
}
