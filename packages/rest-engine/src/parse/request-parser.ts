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
  } catch (e) {
    throw errors.invalidBody('Empty or invalid json', (e as Error).message);
  }
}

export function parse(req: RawRequest): ApiRequest {
  const method = req.method.toUpperCase();
  const target = parseTarget(req.path);
  const headers = parseHeaders(req.headers, WRITE_METHODS.has(method));
  // The root's query string is not read (OpenAPI takes no parameters).
  const query = target.kind === 'root' ? EMPTY_QUERY : parseQuery(req.search);
  const body = target.kind !== 'root' && BODY_METHODS.has(method) ? parseJsonBody(req.body) : undefined;
  return { kind: 'request', method, target, headers, acceptHeader: req.headers.accept ?? '', query, body };
}
