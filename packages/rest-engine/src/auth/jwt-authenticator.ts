// Bearer tokens verified as PostgREST does: an HS256/384/512 secret or RS/ES/EdDSA keys (a JWK, a JWKS or a JWKS
// URL), an optional audience, exp/nbf with a clock skew, and the role read from a JSON path of the claims. Refusals
// carry PostgREST's codes: PGRST301 (the token cannot be verified), PGRST302 (anonymous access is off), PGRST303
// (a claim is invalid: expired, not yet valid, wrong audience, role not a string).
import {
  createLocalJWKSet,
  createRemoteJWKSet,
  decodeProtectedHeader,
  errors as joseErrors,
  type JSONWebKeySet,
  type JWK,
  type JWTVerifyGetKey,
  jwtVerify,
} from 'jose';
import { errors, RestError } from '../errors.js';
import type { Authenticate } from '../adapters/adapter-options.js';
import { parseRoleClaimKey, readPath } from './role-claim.js';

export interface JwtOptions {
  /** An HMAC secret (at least 32 characters, as PostgREST), or a JWK or JWKS as JSON text. */
  secret?: string;
  /** The secret is base64 (PostgREST's jwt-secret-is-base64). */
  secretIsBase64?: boolean;
  /** Public keys: one JWK or a JWKS. */
  jwks?: JWK | JSONWebKeySet;
  /** Where to fetch the JWKS (cached by jose, refetched for an unknown `kid`). */
  jwksUrl?: string | URL;
  /** Tokens must carry this `aud` (PostgREST's jwt-aud). */
  audience?: string;
  /** JSON path of the role claim (default `.role`). */
  roleClaimKey?: string;
  /** Seconds of clock difference allowed on exp/nbf/iat (default 30, as PostgREST). */
  clockSkewSeconds?: number;
  /** The role of requests without a token; null turns anonymous access off (PGRST302). */
  anonRole?: string | null;
}

const HMAC = ['HS256', 'HS384', 'HS512'];

function keyFrom(options: JwtOptions): { key: Uint8Array | JWTVerifyGetKey; algorithms?: string[] } {
  const given = [options.secret, options.jwks, options.jwksUrl].filter((v) => v !== undefined).length;
  if (given !== 1) throw new TypeError('give exactly one of secret, jwks, jwksUrl');
  if (options.jwksUrl !== undefined) return { key: createRemoteJWKSet(new URL(options.jwksUrl)) };
  if (options.jwks !== undefined) return { key: localSet(options.jwks) };
  const secret = options.secret!;
  if (typeof secret !== 'string') throw new TypeError('secret must be a string');
  if (!options.secretIsBase64 && secret.trimStart().startsWith('{')) return { key: localSet(JSON.parse(secret)) };
  const bytes = options.secretIsBase64 ? Buffer.from(secret, 'base64') : new TextEncoder().encode(secret);
  if (bytes.byteLength < 32) throw new TypeError('the JWT secret must be at least 32 characters long');
  return { key: bytes, algorithms: HMAC };
}

function localSet(jwks: JWK | JSONWebKeySet): JWTVerifyGetKey {
  return createLocalJWKSet('keys' in jwks ? (jwks as JSONWebKeySet) : { keys: [jwks as JWK] });
}

function claimError(e: InstanceType<typeof joseErrors.JWTClaimValidationFailed>): RestError {
  if (e.reason === 'invalid' && ['exp', 'nbf', 'iat'].includes(e.claim))
    return errors.jwt(`The JWT '${e.claim}' claim must be a number`, 'PGRST303');
  if (e.claim === 'nbf') return errors.jwt('JWT not yet valid', 'PGRST303');
  if (e.claim === 'iat') return errors.jwt('JWT issued at future', 'PGRST303');
  return errors.jwt(`JWT claim ${e.claim} is invalid`, 'PGRST303');
}

/**
 * The `aud` claim as PostgREST reads it, checked here rather than by jose (which refuses `[]`): absent, null or an
 * empty array passes; a string or an array of strings must name the audience when one is configured; any other
 * value is refused whether or not one is.
 */
function checkAudience(aud: unknown, audience: string | undefined): void {
  if (aud === undefined || aud === null) return;
  const list = typeof aud === 'string' ? [aud] : Array.isArray(aud) ? aud : null;
  if (list === null || list.some((a) => typeof a !== 'string'))
    throw errors.jwt("The JWT 'aud' claim must be a string or an array of strings", 'PGRST303');
  if (audience === undefined) return;
  if (typeof aud === 'string' ? aud !== audience : list.length > 0 && !list.includes(audience))
    throw errors.jwt('JWT not in audience', 'PGRST303');
}

/** The token of an `Authorization: Bearer` header; null without one (anonymous), '' for an empty one. */
function bearerToken(authorization: string | undefined): string | null {
  const match = authorization ? /^bearer(?:\s+(.*))?$/i.exec(authorization.trim()) : null;
  return match ? (match[1] ?? '').trim() : null;
}

/** An `authenticate` for the adapters: reads `Authorization: Bearer <token>`. */
export function createJwtAuthenticator(options: JwtOptions): Authenticate {
  if (options === null || typeof options !== 'object') throw new TypeError('JWT options must be an object');
  const { key, algorithms } = keyFrom(options);
  const rolePath = parseRoleClaimKey(options.roleClaimKey ?? '.role');
  const clockTolerance = options.clockSkewSeconds ?? 30;
  const anonRole = options.anonRole === undefined ? 'anon' : options.anonRole;
  const verifyOptions = { clockTolerance, algorithms };
  return async (headers) => {
    const token = bearerToken(headers.authorization);
    if (token === '') throw errors.jwt('Empty JWT is sent in Authorization header');
    if (token !== null && token.split('.').length !== 3)
      throw errors.jwt(`Expected 3 parts in JWT; got ${token.split('.').length}`);
    if (token === null) {
      if (anonRole === null)
        throw new RestError(401, 'PGRST302', 'Anonymous access is disabled', {
          headers: { 'www-authenticate': 'Bearer' },
        });
      return { role: anonRole };
    }
    let payload: Record<string, unknown>;
    try {
      payload = (await jwtVerify(token, key as Uint8Array, verifyOptions)).payload;
    } catch (e) {
      if (e instanceof joseErrors.JWTExpired) throw errors.jwt('JWT expired', 'PGRST303');
      if (e instanceof joseErrors.JWTClaimValidationFailed) throw claimError(e);
      throw decodeError(e, token);
    }
    checkAudience(payload.aud, options.audience);
    // jose checks that iat is a number, not that it is past: PostgREST refuses a token issued in the future.
    if (typeof payload.iat === 'number' && payload.iat > Date.now() / 1000 + clockTolerance)
      throw errors.jwt('JWT issued at future', 'PGRST303');
    const role = readPath(payload, rolePath);
    if (role === undefined || role === null) {
      if (anonRole === null)
        throw new RestError(401, 'PGRST302', 'Anonymous access is disabled', {
          headers: { 'www-authenticate': 'Bearer' },
        });
      return { claims: payload, role: anonRole };
    }
    if (typeof role !== 'string') throw errors.jwt('The JWT role claim must be a string', 'PGRST303');
    return { claims: payload, role };
  };
}

/**
 * A token that cannot be verified, in PostgREST's words (its JWT library's errors): a signature no key verifies is
 * "No suitable key or wrong key type" (the keys were all tried), an algorithm the keys do not use (`none` above
 * all) "Wrong or unsupported encoding algorithm", a token whose parts cannot be read "JWT cryptographic operation
 * failed"; a verified token whose claims are not a JSON object "Parsing claims failed" (PGRST303).
 */
function decodeError(e: unknown, token: string): RestError {
  if (e instanceof joseErrors.JWSSignatureVerificationFailed || e instanceof joseErrors.JWKSNoMatchingKey)
    return errors.jwt('No suitable key or wrong key type', 'PGRST301', 'None of the keys was able to decode the JWT');
  if (e instanceof joseErrors.JOSEAlgNotAllowed || e instanceof joseErrors.JOSENotSupported)
    return errors.jwt(
      'Wrong or unsupported encoding algorithm',
      'PGRST301',
      algorithmOf(token) === 'none'
        ? "JWT is unsecured but expected 'alg' was not 'none'"
        : "The JWT 'alg' is not one the configured keys use",
    );
  if (e instanceof joseErrors.JWTInvalid) return errors.jwt('Parsing claims failed', 'PGRST303');
  return errors.jwt('JWT cryptographic operation failed', 'PGRST301');
}

function algorithmOf(token: string): unknown {
  try {
    return decodeProtectedHeader(token).alg;
  } catch {
    return undefined;
  }
}
