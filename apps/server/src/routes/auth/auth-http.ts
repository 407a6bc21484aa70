// HTTP helpers shared by the auth routes: rendering errors in the auth shape, reading bodies, resolving the
// caller from the gateway's claims, and counting rate limits with their X-RateLimit-* headers.
import type { Context } from 'hono';
import {
  type AuthError,
  authErrors,
  type Claims,
  type RateLimiter,
  type RateLimitRule,
  subject,
} from '@auction-ops/auth-core';
import type { AppEnv } from '../../context.js';
import { parseJsonObject, readBoundedText } from '../../http/read-body.js';

export type AuthContext = Context<AppEnv>;

export function renderError(c: AuthContext, error: AuthError): Response {
  if (error.status === 401) c.header('WWW-Authenticate', `Bearer error="${error.code}"`);
  return c.json(error.toBody(), error.status as 400);
}

// Auth bodies are a few fields (metadata included); anything past this is refused unread (as the family's
// body-limit middleware does from Content-Length).
export const MAX_AUTH_BODY_BYTES = 64 * 1024;

// Bodies already read, by request: a route module that looks at a body and hands the request on (phone-routes.ts)
// leaves it readable for the next one.
const readBodies = new WeakMap<Request, Record<string, unknown>>();

/** The JSON object body (auth-js always sends one): malformed is 400 bad_json, oversized 413. */
export async function jsonBody(c: AuthContext): Promise<Record<string, unknown>> {
  const read = readBodies.get(c.req.raw);
  if (read) return read;
  const text = await readBoundedText(c.req.raw, MAX_AUTH_BODY_BYTES);
  if (text === null) throw authErrors.tooLarge();
  const body = text.trim() ? parseJsonObject(text) : {};
  if (!body) throw authErrors.badJson();
  readBodies.set(c.req.raw, body);
  return body;
}

/** The caller's verified claims; a refused token is 401 invalid_token, a missing one 401 not_authenticated. */
export function callerClaims(c: AuthContext): Claims {
  const failure = c.get('authError');
  if (failure) {
    throw authErrors.invalidToken(
      failure.reason === 'expired'
        ? 'invalid JWT: unable to parse or verify signature, token has invalid claims: token is expired'
        : 'invalid JWT: unable to parse or verify signature',
    );
  }
  const claims = c.get('claims');
  subject(claims); // a signed-in user's token, or 401
  return claims as Claims;
}

export function requestMeta(c: AuthContext) {
  return { ip: c.get('clientIp'), userAgent: c.req.header('user-agent') };
}

export interface AuthLimits {
  signIn: RateLimitRule;
  signUp: RateLimitRule;
  recover: RateLimitRule;
  refresh: RateLimitRule;
  mfaVerify: RateLimitRule;
  anonymous: RateLimitRule;
  otpVerify: RateLimitRule;
  other: RateLimitRule;
}

/** Counts one request in a bucket, sets the rate-limit headers, and throws 429 when over the limit. */
export async function enforceLimit(
  c: AuthContext,
  limiter: RateLimiter,
  bucket: keyof AuthLimits,
  subject: string,
  rule: RateLimitRule,
): Promise<void> {
  const result = await limiter.check(bucket, subject, rule);
  c.header('X-RateLimit-Limit', String(result.limit));
  c.header('X-RateLimit-Remaining', String(result.remaining));
  c.header('X-RateLimit-Reset', String(result.reset));
  if (!result.allowed) {
    c.header('Retry-After', String(Math.max(1, result.reset - Math.floor(Date.now() / 1000))));
    throw authErrors.rateLimited(
      bucket === 'signIn'
        ? 'sign-in'
        : bucket === 'signUp'
          ? 'sign-up'
          : bucket === 'recover'
            ? 'password reset'
            : bucket === 'refresh'
              ? 'token refresh'
              : bucket === 'mfaVerify'
                ? 'MFA verification'
                : bucket === 'anonymous'
                  ? 'anonymous sign-in'
                  : bucket === 'otpVerify'
                    ? 'code verification'
                    : 'auth',
    );
  }
}

/** Middleware: every request of a route module counts against the caller's address (the `other` bucket). */
export function perIpLimit(limiter: RateLimiter, limits: AuthLimits) {
  return async (c: AuthContext, next: () => Promise<void>) => {
    await enforceLimit(c, limiter, 'other', c.get('clientIp'), limits.other);
    await next();
  };
}

export function queryString(c: AuthContext, name: string): string | undefined {
  const value = c.req.query(name);
  return value === undefined || value === '' ? undefined : value;
}
