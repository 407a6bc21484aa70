// Access tokens and API keys: issue and verify with jose. HS256 with JWT_SECRET by default; optionally ES256 or
// RS256 with a `kid` published as JWKS. Verified tokens are cached until expiry, so verifying costs a map lookup.
import {
  SignJWT,
  jwtVerify,
  errors as joseErrors,
  exportJWK,
  importPKCS8,
  importJWK,
  calculateJwkThumbprint,
  type JWTPayload,
  type JWK,
  type CryptoKey,
  type JWTHeaderParameters,
} from 'jose';
import { createPublicKey, type JsonWebKey as NodeJsonWebKey } from 'node:crypto';
import { LRUCache } from 'lru-cache';

export type Claims = JWTPayload & { role?: string; [key: string]: unknown };

export class TokenError extends Error {
  constructor(
    readonly reason: 'expired' | 'invalid',
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = reason === 'expired' ? 'TokenExpiredError' : 'TokenInvalidError';
  }
}

export interface TokenVerifier {
  /** Verified claims, or throws TokenError. */
  verify(token: string): Promise<Claims>;
  /** The claims of a token verified before and not yet expired, without waiting; undefined otherwise. */
  cached(token: string): Claims | undefined;
  /** Also accept ES256 or RS256 tokens whose header names this kid (the auth signing key, AUTH_JWT_KEYS). */
  trustPublicKey(kid: string, key: CryptoKey): void;
}

export function secretKey(secret: string): Uint8Array {
  return new TextEncoder().encode(secret);
}

/** The HMAC key imported once: jose would otherwise import the raw secret on every call. */
function hmacKey(secret: string, usage: 'sign' | 'verify'): Promise<CryptoKey> {
  return crypto.subtle.importKey('raw', secretKey(secret), { name: 'HMAC', hash: 'SHA-256' }, false, [usage]);
}

export function createTokenVerifier(secret: string, options: { cacheSize?: number } = {}): TokenVerifier {
  const key = hmacKey(secret, 'verify');
  const publicKeys = new Map<string, CryptoKey>();
  const cache = new LRUCache<string, Claims>({ max: options.cacheSize ?? 10_000 });
  const pickKey = async (header: JWTHeaderParameters): Promise<CryptoKey> => {
    if (header.alg === 'HS256') return key;
    const found = header.kid ? publicKeys.get(header.kid) : undefined;
    if (!found) throw new TokenError('invalid', 'JWT signed with an unknown key');
    return found;
  };
  return {
    trustPublicKey(kid, publicKey) {
      publicKeys.set(kid, publicKey);
    },
    cached(token) {
      const hit = cache.get(token);
      return hit && (typeof hit.exp !== 'number' || hit.exp > Date.now() / 1000) ? hit : undefined;
    },
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
        const { payload } = await jwtVerify(token, pickKey, { algorithms: ['HS256', 'ES256', 'RS256'] });
        const claims = payload as Claims;
        // Cache only until expiry: lru-cache's ttl is in ms from now.
        const ttl = typeof claims.exp === 'number' ? (claims.exp - now) * 1000 : 0;
        if (ttl > 0 || claims.exp === undefined) cache.set(token, claims, ttl > 0 ? { ttl } : undefined);
        return claims;
      } catch (error) {
        if (error instanceof TokenError) throw error;
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

export interface TokenSigner {
  alg: 'HS256' | 'ES256' | 'RS256';
  kid?: string;
  /** Public key of an asymmetric signer (for TokenVerifier.trustPublicKey). */
  publicKey?: CryptoKey;
  sign(claims: Claims): Promise<string>;
  /** The JWKS document: public keys only (the signer's and `published`); a shared secret is never published. */
  jwks(): { keys: JWK[] };
}

/** A private key that signs, with its kid: the signing key of AUTH_JWT_KEYS (trusted-keys.ts). */
export interface SigningKey {
  kid: string;
  alg: 'RS256' | 'ES256';
  key: CryptoKey;
}

/**
 * Signs access tokens: HS256 with the secret by default; with an ES256 private key (PKCS#8 PEM or a private JWK as
 * JSON) or a signing key of AUTH_JWT_KEYS, asymmetrically with a `kid` (for the ES256 key its RFC 7638 thumbprint)
 * so auth-js can verify them locally against /.well-known/jwks.json. `published` are further public keys of the
 * JWKS (AUTH_JWT_KEYS's, the signing key's among them).
 */
export async function createTokenSigner(options: {
  secret: string;
  es256PrivateKey?: string;
  signingKey?: SigningKey;
  published?: JWK[];
}): Promise<TokenSigner> {
  const published = options.published ?? [];
  if (options.es256PrivateKey && options.signingKey) {
    throw new Error('set JWT_ES256_PRIVATE_KEY or a signing key in AUTH_JWT_KEYS, not both');
  }
  if (options.signingKey) {
    const { kid, alg, key } = options.signingKey;
    const publicJwk = published.find((k) => k.kid === kid);
    if (!publicJwk) throw new Error(`the signing key ${kid} is not among the published keys`);
    return {
      alg,
      kid,
      publicKey: (await importJWK(publicJwk, alg)) as CryptoKey,
      sign: (claims) => new SignJWT(claims).setProtectedHeader({ alg, typ: 'JWT', kid }).sign(key),
      jwks: () => ({ keys: published }),
    };
  }
  if (!options.es256PrivateKey) {
    const key = await hmacKey(options.secret, 'sign');
    return {
      alg: 'HS256',
      sign: (claims) => new SignJWT(claims).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).sign(key),
      jwks: () => ({ keys: published }),
    };
  }
  const text = options.es256PrivateKey.trim();
  const privateKey = text.startsWith('{')
    ? ((await importJWK(JSON.parse(text) as JWK, 'ES256')) as CryptoKey)
    : await importPKCS8(text.replace(/\\n/g, '\n'), 'ES256', { extractable: true });
  const publicJwk = await exportJWK(
    createPublicKey(
      text.startsWith('{') ? { key: JSON.parse(text) as NodeJsonWebKey, format: 'jwk' } : text.replace(/\\n/g, '\n'),
    ),
  );
  const kid = await calculateJwkThumbprint(publicJwk);
  const publicKey = (await importJWK(publicJwk, 'ES256')) as CryptoKey;
  const own: JWK = { ...publicJwk, kid, alg: 'ES256', use: 'sig', key_ops: ['verify'] };
  const keys = [own, ...published.filter((k) => k.kid !== kid)];
  return {
    alg: 'ES256',
    kid,
    publicKey,
    sign: (claims) => new SignJWT(claims).setProtectedHeader({ alg: 'ES256', typ: 'JWT', kid }).sign(privateKey),
    jwks: () => ({ keys }),
  };
}
