// execute-query: a validated SELECT over one dataset, as JSON or CSV, cached for five minutes. A public saved
// report runs with the service role for anyone holding the API key; everything else under the caller's claims.
import type postgres from 'postgres';
import { inRequestTransaction } from '@auction-ops/database';
import { functionErrors } from '../errors.js';
import { type Caller, defineFunction } from '../family/function-definition.js';
import { toCsv } from './csv-output.js';
import { findDataset, requireUuid } from './dataset-access.js';
import { QueryCache } from './query-cache.js';
import type { SharedQueryCache } from './shared-query-cache.js';
import { runReportQuery } from './query-runner.js';
import { validateReportSql } from './sql-validator.js';

export interface ReportingDeps {
  sql: postgres.Sql;
  ownerSql: postgres.Sql;
  queryCache: SharedQueryCache;
  executeQueryTimeoutMs: number;
}

const DEFAULT_LIMIT = 1000;
const MISS_PREFIX = '{"cached":false,';
const HIT_PREFIX = '{"cached":true,';
const MAX_LIMIT = 10_000;

interface QueryRequest {
  datasetId: string;
  sql: string;
  format: 'json' | 'csv';
  limit: number;
  caller: Caller;
}

export const executeQuery = defineFunction<ReportingDeps>({
  name: 'execute-query',
  access: 'any',
  limit: { max: 10, per: 'minute' },
  async handle(req, deps) {
    const body = asObject(await req.json());
    const format = parseFormat(body.format);
    const query =
      body.report_id !== undefined
        ? await savedReport(deps, req.caller, requireUuid(body.report_id, 'report_id'), format)
        : parseAdHoc(body, format, req.caller);
    return runQuery(deps, query);
  },
});

function parseAdHoc(body: Record<string, unknown>, format: 'json' | 'csv', caller: Caller): QueryRequest {
  if (caller.role === 'anon') throw functionErrors.unauthorized();
  const datasetId = requireUuid(body.dataset_id, 'dataset_id');
  if (typeof body.sql !== 'string' || body.sql.trim() === '') throw functionErrors.invalidRequest('sql');
  if (body.sql.length > 20_000) throw functionErrors.validation('sql is longer than 20000 characters', 'sql');
  let limit = DEFAULT_LIMIT;
  if (body.limit !== undefined) {
    if (typeof body.limit !== 'number' || !Number.isInteger(body.limit))
      throw functionErrors.invalidRequest('limit', 'limit must be a whole number');
    if (body.limit < 1 || body.limit > MAX_LIMIT)
      throw functionErrors.validation(`limit must be between 1 and ${MAX_LIMIT}`, 'limit');
    limit = body.limit;
  }
  return { datasetId, sql: body.sql, format, limit, caller };
}

/** A saved report: public ones run as the service role for any caller; others need the caller to see them. */
async function savedReport(deps: ReportingDeps, caller: Caller, id: string, format: 'json' | 'csv') {
  // A deleted auction's public report is no report at all (the same answer as a missing one), before anything
  // runs as the service role.
  const [publicReport] = await deps.ownerSql<{ dataset_id: string | null; sql: string }[]>`
    select r.dataset_id, r.sql from public.saved_reports r join public.auctions a on a.id = r.auction_id
     where r.id = ${id} and r.is_public and a.deleted_at is null`;
  let report = publicReport;
  let runAs = caller;
  if (report) runAs = { role: 'service_role', claims: { role: 'service_role' } };
  else {
    if (caller.role === 'anon') throw functionErrors.unauthorized();
    [report] = await inRequestTransaction(
      deps.sql,
      caller.role,
      caller.claims,
      (tx) => tx<{ dataset_id: string | null; sql: string }[]>`
        select dataset_id, sql from public.saved_reports where id = ${id}`,
    );
  }
  if (!report) throw functionErrors.notFound(`report ${id} not found`);
  if (!report.dataset_id) throw functionErrors.validation('the report has no dataset', 'report_id');
  return { datasetId: report.dataset_id, sql: report.sql, format, limit: DEFAULT_LIMIT, caller: runAs };
}

async function runQuery(deps: ReportingDeps, q: QueryRequest): Promise<Response> {
  const started = performance.now();
  const dataset = await findDataset(deps.sql, q.caller, q.datasetId);
  if (dataset.status !== 'ready' || !dataset.table_name)
    throw functionErrors.validation(`dataset ${dataset.id} is not ready (status ${dataset.status})`, 'dataset_id');
  const validation = await validateReportSql(q.sql);
  if (!validation.ok) throw functionErrors.validation('the SQL statement was rejected', validation.reason);
  // The caller may see the dataset (findDataset ran under their claims) before either cache tier is read; a
  // dataset's rows are visible to every member of its auction alike, and the validator refuses anything that
  // reads who is asking, so the role the statement runs as is the rest of the caller's visibility.
  const key = QueryCache.key({
    datasetId: dataset.id,
    version: new Date(dataset.updated_at).toISOString(),
    scope: q.caller.role,
    fingerprint: validation.fingerprint,
    limit: q.limit,
    format: q.format,
  });
  const hit = await deps.queryCache.get(key);
  if (hit) return respond(hit.body, hit.contentType, 'HIT', q.format);
  const result = await runReportQuery(deps.sql, q.caller, dataset.table_name, validation.statement, {
    limit: q.limit,
    timeoutMs: deps.executeQueryTimeoutMs,
  });
  const durationMs = Math.round(performance.now() - started);
  const entry =
    q.format === 'csv'
      ? { body: toCsv(result.columns, result.rows), contentType: 'text/csv; charset=utf-8' }
      : {
          body:
            MISS_PREFIX +
            JSON.stringify({
              columns: result.columns,
              rows: result.rows,
              row_count: result.rows.length,
              truncated: result.truncated,
              duration_ms: durationMs,
            }).slice(1),
          contentType: 'application/json; charset=utf-8',
        };
  await deps.queryCache.set(key, dataset.id, { ...entry, rowCount: result.rows.length });
  return respond(entry.body, entry.contentType, 'MISS', q.format);
}

function respond(body: string, contentType: string, cache: 'HIT' | 'MISS', format: 'json' | 'csv'): Response {
  const headers: Record<string, string> = { 'content-type': contentType, 'x-cache': cache };
  if (format === 'csv') headers['content-disposition'] = 'attachment; filename="report.csv"';
  // A cached JSON body says so in its leading `cached` field as well as in X-Cache.
  const text = cache === 'HIT' && format === 'json' ? HIT_PREFIX + body.slice(MISS_PREFIX.length) : body;
  return new Response(text, { status: 200, headers });
}

function parseFormat(value: unknown): 'json' | 'csv' {
  if (value === undefined || value === null) return 'json';
  if (value === 'json' || value === 'csv') return value;
  throw functionErrors.validation('format must be json or csv', 'format');
}

export function asObject(value: unknown): Record<string, unknown> {
  if (!value || typeof value !== 'object' || Array.isArray(value))
    throw functionErrors.invalidRequest('body', 'the request body must be a JSON object');
  return value as Record<string, unknown>;
}
