// The API-key gate of the Supabase gateway, then the caller's claims: Bearer token if present, else the key's.
import type { Context } from 'hono';
import { type Claims, TokenError, type TokenVerifier } from '@auction-ops/auth-core';
import type { AppEnv } from '../context.js';
import { requestHeader } from './response-headers.js';

const GATED = /^\/(auth|rest|storage|functions|realtime)\/v1(\/|$)/;
// Reached without a key: public objects and signed URLs (opened by browsers and <img>), the links in e-mails, and
// SAML's ACS and metadata, the OAuth 2.1 server's endpoints for other tools' clients (which never hold our API key).
const OPEN = [
  /^\/storage\/v1\/object\/public\//,
  /^\/storage\/v1\/object\/sign\//,
  /^\/storage\/v1\/render\/image\/public\//,
  /^\/storage\/v1\/render\/image\/sign\//,
  /^\/auth\/v1\/(verify|callback|authorize)$/,
  // SAML: the identity provider posts the browser to the ACS; providers read our metadata (Supabase's gateway too).
  /^\/auth\/v1\/sso\/saml\/(acs|metadata)$/,
  /^\/auth\/v1\/\.well-known\/(jwks\.json|oauth-authorization-server)$/,
  /^\/auth\/v1\/oauth\/(authorize|token)$/,
];
// An upload to a signed upload URL carries its own token (as in Supabase, no key is needed).
const SIGNED_UPLOAD = /^\/storage\/v1\/object\/upload\/sign\//;
const BEARER = /^Bearer\s+(\S+)\s*$/i;
const STORAGE = /^\/storage\/v1\//;
const AUTH = /^\/auth\/v1\//;
// A compact JWS: three base64url parts. Anything else in a key is storage's "Invalid Compact JWS".
const COMPACT_JWS = /^[\w-]+\.[\w-]+\.[\w-]*$/;

/** Only storage and auth have paths reached without a key. */
const MAY_BE_OPEN = /^\/(storage|auth)\//;

/** The token of an `Authorization: Bearer <token>` header; the usual form is read without a regular expression. */
function bearerOf(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  if (header.startsWith('Bearer ') && header.length > 7 && !/\s/.test(header.slice(7))) return header.slice(7);
  return header.match(BEARER)?.[1];
}

/** Storage's own answer to a token that is not a JWT at all, in its error shape (storage-js matches the text). */
function invalidCompactJws(c: Context<AppEnv>): Response {
  return c.json({ statusCode: '400', error: 'InvalidJWT', message: 'Invalid Compact JWS' }, 400);
}

type Checked = Response | undefined;

/**
 * Sets apikeyRole and claims (or authError) on the context; returns the 401 answer when the request may not pass.
 * A promise only when a token is not yet in the verifier's cache: the common case allocates no promise and costs
 * the gateway no await.
 */
export function checkApiKey(
  c: Context<AppEnv>,
  verifier: TokenVerifier,
  authWithoutKey = false,
): Checked | Promise<Checked> {
  const path = c.req.path;
  if (!GATED.test(path) || c.req.method === 'OPTIONS') return undefined;
  const open =
    MAY_BE_OPEN.test(path) &&
    (OPEN.some((re) => re.test(path)) || (c.req.method === 'PUT' && SIGNED_UPLOAD.test(path)));
  // WebSockets cannot send headers from browsers, so realtime takes the key as a query parameter.
  const key = requestHeader(c, 'apikey') ?? (path.startsWith('/realtime/') ? c.req.query('apikey') : undefined);
  const bearer = bearerOf(requestHeader(c, 'authorization'));
  // Supabase's storage takes a standalone StorageClient's Authorization alone (the token is the key), and
  // answers a request with neither in its own words.
  if (!key && STORAGE.test(path) && !open) {
    return bearer ? storageBearerOnly(c, verifier, bearer) : invalidCompactJws(c);
  }
  if (!key && authWithoutKey && AUTH.test(path)) return keylessAuth(c, verifier, bearer);
  if (!key) return open ? undefined : c.json({ message: 'No API key found in request' }, 401);
  if (STORAGE.test(path) && !open && !COMPACT_JWS.test(key)) return invalidCompactJws(c);
  // The cache is consulted synchronously first: an await per token is measurable at thousands of requests/s.
  const keyClaims = verifier.cached(key);
  if (keyClaims === undefined)
    return verifier.verify(key).then(
      (claims) => afterKey(c, verifier, open, key, claims, bearer),
      () => refuseKey(c, open),
    );
  return afterKey(c, verifier, open, key, keyClaims, bearer);
}

const refuseKey = (c: Context<AppEnv>, open: boolean): Checked =>
  open ? undefined : c.json({ message: 'Invalid API key' }, 401);

/** With the key's verified claims: the key must be anon or service_role; the Bearer token, if any, is the caller. */
function afterKey(
  c: Context<AppEnv>,
  verifier: TokenVerifier,
  open: boolean,
  key: string,
  keyClaims: Claims,
  bearer: string | undefined,
): Checked | Promise<Checked> {
  if (keyClaims.role !== 'anon' && keyClaims.role !== 'service_role') return refuseKey(c, open);
  c.set('apikeyRole', keyClaims.role);
  if (!bearer || bearer === key) {
    c.set('claims', keyClaims);
    return undefined;
  }
  const cached = verifier.cached(bearer);
  if (cached !== undefined) {
    c.set('claims', cached);
    return undefined;
  }
  return setBearerClaims(c, verifier, bearer).then(() => undefined);
}

/** The Bearer token's claims as the caller's, or the reason they are not. */
async function setBearerClaims(c: Context<AppEnv>, verifier: TokenVerifier, bearer: string): Promise<void> {
  try {
    c.set('claims', verifier.cached(bearer) ?? (await verifier.verify(bearer)));
  } catch (error) {
    c.set('authError', error instanceof TokenError ? error : new TokenError('invalid', 'JWT invalid'));
  }
}

/** A storage request with a Bearer token and no key: the token's claims are the caller's, as storage reads them. */
async function storageBearerOnly(
  c: Context<AppEnv>,
  verifier: TokenVerifier,
  bearer: string,
): Promise<Response | undefined> {
  if (!COMPACT_JWS.test(bearer)) return invalidCompactJws(c);
  try {
    const claims = verifier.cached(bearer) ?? (await verifier.verify(bearer));
    if (claims.role === 'anon' || claims.role === 'service_role') c.set('apikeyRole', claims.role);
    c.set('claims', claims);
  } catch (error) {
    c.set('authError', error instanceof TokenError ? error : new TokenError('invalid', 'JWT invalid'));
  }
  return undefined;
}

/** /auth/v1 without a key, as a bare GoTrue answers it: the caller is anon unless a Bearer token says otherwise. */
async function keylessAuth(
  c: Context<AppEnv>,
  verifier: TokenVerifier,
  bearer: string | undefined,
): Promise<undefined> {
  c.set('apikeyRole', 'anon');
  if (bearer) await setBearerClaims(c, verifier, bearer);
  else c.set('claims', { role: 'anon' });
  return undefined;
}
