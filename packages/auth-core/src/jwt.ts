// HS256 access tokens and API keys: issue and verify with jose; verified tokens are cached until expiry
// so the per-request cost of verification is a map lookup.
import { SignJWT, jwtVerify, errors as joseErrors, type JWTPayload } from 'jose';
import { LRUCache } from 'lru-cache';

export type Claims = JWTPayload & { role?: string; [key: string]: unknown };

export class TokenError extends Error {
  constructor(readonly reason: 'expired' | 'invalid', message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = reason === 'expired' ? 'TokenExpiredError' : 'TokenInvalidError';
  }
}

export interface TokenVerifier {
  /** Verified claims, or throws TokenError. */
  verify(token: string): Promise<Claims>;
}

export function secretKey(secret: string): Uint8Array {
  return new TextEncoder().encode(secret);
}

export function createTokenVerifier(secret: string, options: { cacheSize?: number } = {}): TokenVerifier {
  const key = secretKey(secret);
  const cache = new LRUCache<string, Claims>({ max: options.cacheSize ?? 10_000 });
  return {
    async verify(token) {
      const hit = cache.get(token);
      const now = Math.floor(Date.now() / 1000);
      if (hit) {
        if (typeof hit.exp === 'number' && hit.exp <= now) {
          cache.delete(token);
          throw new TokenError('expired', 'JWT expired');
        }
        return hit;
      }
      try {
        const { payload } = await jwtVerify(token, key, { algorithms: ['HS256'] });
        const claims = payload as Claims;
        // Cache only until expiry: lru-cache's ttl is in ms from now.
        const ttl = typeof claims.exp === 'number' ? (claims.exp - now) * 1000 : 0;
        if (ttl > 0 || claims.exp === undefined) cache.set(token, claims, ttl > 0 ? { ttl } : undefined);
        return claims;
      } catch (error) {
        if (error instanceof joseErrors.JWTExpired) throw new TokenError('expired', 'JWT expired', { cause: error });
        throw new TokenError('invalid', 'JWT invalid', { cause: error });
      }
    },
  };
}

/** An API key: a long-lived HS256 JWT whose role is anon or service_role (as Supabase's keys are). */
export async function signApiKey(secret: string, role: 'anon' | 'service_role'): Promise<string> {
  // Fixed iat/exp so the same secret always derives the same keys across restarts.
  return new SignJWT({ role })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuer('auction-ops')
    .setIssuedAt(1735689600)
    .setExpirationTime(2366841600)
    .sign(secretKey(secret));
}
