// Checks an EngineRequest at the API boundary and brings it to the parse stage's form (RawRequest): TypeErrors for
// arguments of the wrong kind, header names in any case, bodies of any supported kind read to text.
import type { EngineRequest } from './engine-request.js';
import type { RawRequest } from './parse/request-parser.js';
import { normalizeHeaders, readBody } from './request-input.js';

type NormalRequest = EngineRequest & RawRequest & { readonly headers: Readonly<Record<string, string | undefined>> };

/** A promise only when the body must be read (bytes, a stream or a JSON value): a GET costs no await. */
export function toRawRequest(req: EngineRequest): NormalRequest | Promise<NormalRequest> {
  if (req === null || typeof req !== 'object') throw new TypeError('handle() takes a request object');
  if (typeof req.method !== 'string' || req.method === '') throw new TypeError('request.method must be a string');
  if (typeof req.path !== 'string' || !req.path.startsWith('/'))
    throw new TypeError(`request.path must be a string starting with "/" (got ${JSON.stringify(req.path)})`);
  if (req.search !== undefined && typeof req.search !== 'string')
    throw new TypeError('request.search must be a string');
  if (req.claims !== undefined && (req.claims === null || typeof req.claims !== 'object'))
    throw new TypeError('request.claims must be an object of verified JWT claims');
  if (req.role !== undefined && typeof req.role !== 'string') throw new TypeError('request.role must be a string');
  const search = req.search === undefined ? '' : req.search.startsWith('?') ? req.search.slice(1) : req.search;
  const headers = normalizeHeaders(req.headers);
  if (typeof req.body === 'string' || req.body === undefined) {
    // Already in that form (as the adapters build it): used as it is, not copied (the engine never writes to it).
    if (search === req.search && headers === req.headers) return req as NormalRequest;
    return { ...req, search, headers, body: req.body };
  }
  return readBody(req.body).then((body) => ({ ...req, search, headers, body }));
}
