// Turns a plan and the main statement's result into status, headers and body, following PostgREST's rules for
// Content-Range (200/206/416), singular responses, Location and Preference-Applied.
import { errors } from './errors.js';
import type { MediaType } from './parse/types.js';
import type { Plan } from './plan/types.js';
import type { MediaHandler } from './schema-cache/types.js';

/** The main statement's one row: the total (or null), the page size, the body as text, and the Location keys. */
export interface MainResult {
  readonly total: number | null;
  readonly pageTotal: number;
  /** Bytes when a media type handler made the answer. */
  readonly body: string | Uint8Array;
  readonly location: string | null;
  readonly planRows: number | null;
  /** Upserts into tables: how many rows were inserted rather than updated. */
  readonly inserted: number | null;
  /** The response.headers and response.status settings as SQL left them (null: not set). */
  readonly gucHeaders?: string | null;
  readonly gucStatus?: string | null;
}

export interface EngineResponse {
  status: number;
  headers: Record<string, string>;
  body: string | null;
  /**
   * A binary answer (a media type handler whose domain is over bytea, such as `image/png`): its bytes, sent
   * instead of body (then null). Absent for every other answer.
   */
  bytes?: Uint8Array;
  /** An error's code (PGRST code or SQLSTATE), also when a HEAD answer carries no body: for embeddings to act on. */
  errorCode?: string;
}

const CONTENT_TYPES: Record<MediaType, string> = {
  json: 'application/json; charset=utf-8',
  'stripped-array': 'application/vnd.pgrst.array+json;nulls=stripped; charset=utf-8',
  object: 'application/vnd.pgrst.object+json; charset=utf-8',
  'stripped-object': 'application/vnd.pgrst.object+json;nulls=stripped; charset=utf-8',
  csv: 'text/csv; charset=utf-8',
  openapi: 'application/openapi+json; charset=utf-8',
  geojson: 'application/geo+json; charset=utf-8',
  plan: 'application/vnd.pgrst.plan+json; charset=utf-8',
  raw: 'application/octet-stream', // replaced by the plan's own media type (rawContentType)
};

/** The media types PostgREST knows by name and answers with `; charset=utf-8` (any other goes as it is). */
const CHARSET_TYPES = new Set([
  'application/json',
  'application/geo+json',
  'text/csv',
  'text/plain',
  'text/xml',
  'application/openapi+json',
]);

/** A handler's answer's Content-Type: its media type, with the charset PostgREST names for the types it knows. */
const rawContentType = (type: string) => (CHARSET_TYPES.has(type) ? `${type}; charset=utf-8` : type);

const isSingular = (m: MediaType) => m === 'object' || m === 'stripped-object';

/** `[x]` -> `x`: the one element of a JSON array rendered by json_agg. */
function unwrapSingle(body: string): string {
  const t = body.trim();
  return t.slice(1, -1).trim();
}

/**
 * The singular check; thrown inside the transaction so that a write that breaks it is rolled back. It counts the
 * affected rows whatever the return preference: `return=minimal` asks for no body, not for several rows (a client
 * asking for one object expects to have written one).
 */
export function checkResult(plan: Plan, r: MainResult): void {
  if (isSingular(plan.media) && plan.kind !== 'options' && plan.kind !== 'openapi' && r.pageTotal !== 1) {
    throw errors.singular(r.pageTotal);
  }
  if (
    plan.kind !== 'read' &&
    plan.prefer.handling === 'strict' &&
    plan.prefer.maxAffected !== null &&
    r.pageTotal > plan.prefer.maxAffected
  ) {
    throw errors.maxAffected(r.pageTotal);
  }
}

/** An answer without a body names neither its media type nor its schema. */
function withoutBody(headers: Record<string, string>): void {
  delete headers['content-type'];
  delete headers['content-profile'];
}

function contentRange(offset: number, page: number, total: number | null): string {
  const t = total === null ? '*' : String(total);
  return page > 0 ? `${offset}-${offset + page - 1}/${t}` : `*/${t}`;
}

function countOf(plan: Extract<Plan, { kind: 'read' | 'call' }>, r: MainResult, maxRows: number | null): number | null {
  if (plan.count === 'exact') return r.total;
  if (plan.count === 'planned') return r.planRows;
  if (plan.count === 'estimated') {
    // Exact up to the row cap. Above it (and, as in PostgREST, always without a cap) the larger of the planner's
    // estimate and the rows counted: an estimate below what was already counted would be wrong for certain.
    if (r.total !== null && maxRows !== null && r.total <= maxRows) return r.total;
    return Math.max(r.total ?? 0, r.planRows ?? 0);
  }
  return null;
}

export function respond(plan: Plan, r: MainResult, maxRows: number | null): EngineResponse {
  if (plan.explain) {
    const type = `application/vnd.pgrst.plan+${plan.explain.format}; for="${plan.explain.for}"; charset=utf-8`;
    return { status: 200, headers: { 'content-type': type }, body: plan.head ? null : text(r.body) };
  }
  const headers: Record<string, string> = {
    'content-type': plan.handler ? rawContentType(plan.handler.answers) : CONTENT_TYPES[plan.media],
  };
  if (plan.profiled) headers['content-profile'] = plan.schema;
  if (plan.applied.length) headers['preference-applied'] = plan.applied.join(', ');
  const singular = isSingular(plan.media);

  if (plan.kind === 'mutate') {
    const m = plan.mutation;
    const total = plan.count ? r.total : null;
    // Inserts and deletes name no range of rows, only their count (PostgREST 13); updates name the rows updated.
    headers['content-range'] =
      m.kind === 'update' ? contentRange(0, r.pageTotal, total) : `*/${total === null ? '*' : total}`;
    if (plan.location && r.location) {
      const pk = JSON.parse(r.location) as Record<string, unknown>;
      headers.location = `/${encodeURIComponent(m.table.name)}?${Object.entries(pk)
        .map(([k, v]) => `${encodeURIComponent(k)}=${v === null ? 'is.null' : `eq.${encodeURIComponent(String(v))}`}`)
        .join('&')}`;
    }
    // A POST merge-duplicates upsert that inserted nothing (every row updated) is 200, not 201 (PostgREST 12+);
    // an ignore-duplicates one stays 201, as in PostgREST.
    const status = plan.status === 201 && r.inserted === 0 ? 200 : plan.status;
    if (!plan.representation) {
      withoutBody(headers);
      return { status: status === 200 ? 204 : status, headers, body: null };
    }
    if (plan.handler !== null)
      return handlerAnswer(plan.handler, status === 204 ? 200 : status, headers, false, r.body);
    const body = text(r.body);
    return { status: status === 204 ? 200 : status, headers, body: singular ? unwrapSingle(body) : body };
  }

  if (plan.kind === 'call' && !plan.read) {
    // Every call's answer has a range, as a read's: a scalar result is one row.
    headers['content-range'] = contentRange(0, r.pageTotal, r.total);
    if (plan.fn.returnKind === 'void') {
      withoutBody(headers);
      return { status: 204, headers, body: null };
    }
    if (plan.handler !== null) return handlerAnswer(plan.handler, 200, headers, plan.head, r.body);
    // A set of scalars renders as an array; asked for one object, its one element is the answer.
    const body = text(r.body);
    return {
      status: 200,
      headers,
      body: plan.head ? null : singular && plan.fn.returnsSet ? unwrapSingle(body) : body,
    };
  }

  if (plan.kind === 'read' || plan.kind === 'call') {
    const total = countOf(plan, r, maxRows);
    headers['content-range'] = contentRange(plan.offset, r.pageTotal, total);
    let status = 200;
    if (total !== null) {
      const upper = plan.offset + r.pageTotal - 1;
      if (plan.offset > total) throw errors.rangeNotSatisfiable(plan.offset, total);
      if (1 + upper - plan.offset < total) status = 206;
    }
    if (plan.handler !== null) return handlerAnswer(plan.handler, status, headers, plan.head, r.body);
    const body = singular && (plan.kind === 'read' || plan.fn.returnsSet) ? unwrapSingle(text(r.body)) : r.body;
    return { status, headers, body: plan.head ? null : text(body) };
  }
  return { status: 200, headers, body: text(r.body) };
}

/** A body the engine rendered: text (bytes come only from media type handlers). */
const text = (body: string | Uint8Array): string =>
  typeof body === 'string' ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8');

/** A media type handler's answer: text for a domain over a textual type, else its bytes. */
function handlerAnswer(
  handler: MediaHandler,
  status: number,
  headers: Record<string, string>,
  head: boolean,
  body: string | Uint8Array,
): EngineResponse {
  if (head) return { status, headers, body: null };
  if (handler.binary && typeof body !== 'string') return { status, headers, body: null, bytes: body };
  return { status, headers, body: text(body) };
}
