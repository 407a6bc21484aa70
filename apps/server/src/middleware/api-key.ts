// The API-key gate of the Supabase gateway, then the caller's claims: Bearer token if present, else the key's.
import type { Context } from 'hono';
import { TokenError, type TokenVerifier } from '@auction-ops/auth-core';
import type { AppEnv } from '../context.js';
import { requestHeader } from './response-headers.js';

const GATED = /^\/(auth|rest|storage|functions|realtime)\/v1(\/|$)/;
// Reached without a key: public objects and signed URLs (opened by browsers and <img>), and the links in e-mails.
const OPEN = [
  /^\/storage\/v1\/object\/public\//,
  /^\/storage\/v1\/object\/sign\//,
  /^\/storage\/v1\/render\/image\/public\//,
  /^\/auth\/v1\/(verify|callback|authorize)$/,
  /^\/auth\/v1\/\.well-known\/jwks\.json$/,
];
// An upload to a signed upload URL carries its own token (as in Supabase, no key is needed).
const SIGNED_UPLOAD = /^\/storage\/v1\/object\/upload\/sign\//;
const BEARER = /^Bearer\s+(\S+)\s*$/i;

/**
 * Sets apikeyRole and claims (or authError) on the context; returns the 401 answer when the request may not pass.
 * Asynchronous only when a token is not yet in the verifier's cache.
 */
export async function checkApiKey(c: Context<AppEnv>, verifier: TokenVerifier): Promise<Response | undefined> {
  const path = c.req.path;
  if (!GATED.test(path) || c.req.method === 'OPTIONS') return undefined;
  const open = OPEN.some((re) => re.test(path)) || (c.req.method === 'PUT' && SIGNED_UPLOAD.test(path));
  // WebSockets cannot send headers from browsers, so realtime takes the key as a query parameter.
  const key = requestHeader(c, 'apikey') ?? (path.startsWith('/realtime/') ? c.req.query('apikey') : undefined);
  if (!key) return open ? undefined : c.json({ message: 'No API key found in request' }, 401);
  let keyClaims: Awaited<ReturnType<TokenVerifier['verify']>>;
  try {
    // The cache is consulted synchronously first: an await per token is measurable at thousands of requests/s.
    keyClaims = verifier.cached(key) ?? (await verifier.verify(key));
  } catch {
    return open ? undefined : c.json({ message: 'Invalid API key' }, 401);
  }
  if (keyClaims.role !== 'anon' && keyClaims.role !== 'service_role') {
    return open ? undefined : c.json({ message: 'Invalid API key' }, 401);
  }
  c.set('apikeyRole', keyClaims.role);
  const bearer = requestHeader(c, 'authorization')?.match(BEARER)?.[1];
  if (!bearer || bearer === key) {
    c.set('claims', keyClaims);
    return undefined;
  }
  try {
    c.set('claims', verifier.cached(bearer) ?? (await verifier.verify(bearer)));
  } catch (error) {
    c.set('authError', error instanceof TokenError ? error : new TokenError('invalid', 'JWT invalid'));
  }
  return undefined;
}
