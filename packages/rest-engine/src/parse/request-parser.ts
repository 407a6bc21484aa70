// The parse stage: an HTTP request (method, path, query string, headers, body text) becomes one readonly request
// tree. Nothing here looks at the schema; every syntax error (path, query, headers, JSON body) is raised here.
import { errors } from '../errors.js';
import { parseHeaders } from './header-parser.js';
import { parseQuery } from './query-parser.js';
import type { QueryTree, RequestHeaders } from './types.js';

/** What the engine is handed: the request as it came, relative to the mount point. */
export interface RawRequest {
  readonly method: string;
  readonly path: string;
  readonly search: string;
  readonly headers: Readonly<Record<string, string | undefined>>;
  readonly body?: string | undefined;
}

/** What the path names: the root (OpenAPI and OPTIONS), a table or view, or a function under /rpc. */
type Target =
  | { readonly kind: 'root' }
  | { readonly kind: 'relation'; readonly name: string }
  | { readonly kind: 'rpc'; readonly name: string };

/** The parsed request. `body` is the parsed JSON (undefined when the method takes none or it is empty). */
export interface ApiRequest {
  readonly kind: 'request';
  readonly method: string;
  readonly target: Target;
  readonly headers: RequestHeaders;
  /** The Accept header as sent, for PGRST107 messages. */
  readonly acceptHeader: string;
  readonly query: QueryTree;
  readonly body: unknown;
  /** The body's media type (Content-Type without parameters, lower case; '' when none was sent). */
  readonly bodyMedia: string;
}

const WRITE_METHODS = new Set(['POST', 'PATCH', 'PUT', 'DELETE']);
const BODY_METHODS = new Set(['POST', 'PATCH', 'PUT']);

const EMPTY_QUERY: QueryTree = {
  select: null,
  filters: [],
  logic: [],
  order: [],
  limits: [],
  onConflict: null,
  columns: null,
};

function parseTarget(path: string): Target {
  const segments = path.split('/').filter((s) => s !== '');
  let decoded: string[];
  try {
    decoded = segments.map(decodeURIComponent);
  } catch {
    throw errors.invalidPath();
  }
  if (decoded.length === 0) return { kind: 'root' };
  if (decoded.length === 1) return { kind: 'relation', name: decoded[0] };
  if (decoded.length === 2 && decoded[0] === 'rpc') return { kind: 'rpc', name: decoded[1] };
  throw errors.invalidPath();
}

/** The JSON body; an empty body is `undefined` (a POST without rows, an RPC without arguments). */
function parseJsonBody(body: string | undefined): unknown {
  if (body === undefined || body.trim() === '') return undefined;
  try {
    return JSON.parse(body);
  } catch {
    // No details, as PostgREST: the parser's message would echo a piece of the body back.
    throw errors.invalidBody('Empty or invalid json');
  }
}

/**
 * An HTML form's body (`application/x-www-form-urlencoded`) as the object a JSON body would be: each key to its text,
 * a repeated key to the list of its texts (a VARIADIC argument's array).
 */
function parseFormBody(body: string | undefined): Record<string, string | string[]> {
  // No prototype: a key named `__proto__` is a key like any other, never the object's prototype.
  const out: Record<string, string | string[]> = Object.create(null);
  for (const [key, value] of new URLSearchParams(body ?? '')) {
    const prev = out[key];
    out[key] = prev === undefined ? value : Array.isArray(prev) ? [...prev, value] : [prev, value];
  }
  return out;
}

/**
 * A CSV body (`text/csv`): the first line names the columns, each further line is a row of texts; a field that
 * is the bare word NULL is null (as PostgREST reads it). Fields may be quoted with `"`, a doubled `""` inside.
 */
function parseCsvBody(body: string | undefined): Record<string, string | null>[] {
  const records: { text: string; quoted: boolean }[][] = [];
  let row: { text: string; quoted: boolean }[] = [];
  let text = '';
  let quoted = false;
  let inQuotes = false;
  const src = body ?? '';
  const endField = () => {
    row.push({ text, quoted });
    text = '';
    quoted = false;
  };
  for (let i = 0; i < src.length; i++) {
    const ch = src[i];
    if (inQuotes) {
      if (ch === '"' && src[i + 1] === '"') {
        text += '"';
        i++;
      } else if (ch === '"') inQuotes = false;
      else text += ch;
    } else if (ch === '"') {
      inQuotes = true;
      quoted = true;
    } else if (ch === ',') endField();
    else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && src[i + 1] === '\n') i++;
      endField();
      records.push(row);
      row = [];
    } else text += ch;
  }
  if (inQuotes) throw errors.invalidBody('Invalid CSV body', 'a quoted field is not closed');
  if (text !== '' || quoted || row.length > 0) {
    endField();
    records.push(row);
  }
  const lines = records.filter((r) => !(r.length === 1 && r[0].text === '' && !r[0].quoted));
  if (lines.length === 0) return [];
  const header = lines[0].map((f) => f.text);
  return lines.slice(1).map((fields) => {
    if (fields.length !== header.length) throw errors.invalidBody('All lines must have same number of fields');
    return Object.fromEntries(
      header.map((name, i) => [name, !fields[i].quoted && fields[i].text === 'NULL' ? null : fields[i].text]),
    );
  });
}

/** The media types of a body passed whole to a function's single unnamed parameter, and that parameter's type. */
export const RAW_BODY_TYPES: Readonly<Record<string, string>> = {
  'text/plain': 'text',
  'text/xml': 'xml',
  'application/octet-stream': 'bytea',
};

/** The body by its Content-Type: JSON (the default), an HTML form, CSV, or a raw text for an RPC. */
function parseBody(body: string | undefined, media: string, target: Target): ApiRequest['body'] {
  if (media === 'application/x-www-form-urlencoded') return parseFormBody(body);
  if (media === 'text/csv') return parseCsvBody(body);
  if (target.kind === 'rpc' && RAW_BODY_TYPES[media] !== undefined) return new RawBody(body ?? '', media);
  return parseJsonBody(body);
}

/** A body taken as it came (text/plain, text/xml, application/octet-stream to a function). */
export class RawBody {
  constructor(
    readonly text: string,
    readonly media: string,
  ) {}
}

export function parse(req: RawRequest): ApiRequest {
  const method = req.method.toUpperCase();
  const target = parseTarget(req.path);
  const headers = parseHeaders(req.headers, WRITE_METHODS.has(method));
  // The root's query string is not read (OpenAPI takes no parameters).
  const query = target.kind === 'root' ? EMPTY_QUERY : parseQuery(req.search);
  const bodyMedia = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  const body = target.kind !== 'root' && BODY_METHODS.has(method) ? parseBody(req.body, bodyMedia, target) : undefined;
  return { kind: 'request', method, target, headers, acceptHeader: req.headers.accept ?? '', query, body, bodyMedia };
}
