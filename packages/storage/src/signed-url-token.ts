// Tokens of signed download URLs: compact HS256 JWTs {url: "bucket/name", iat, exp}. The key is derived
// from JWT_SECRET for this purpose only, so a signed-URL token can never pass as an access token.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { errors } from './storage-errors.js';

export interface SignedUrlSigner {
  sign(url: string, expiresInSeconds: number): string;
  /** Returns the signed `bucket/name`, or throws 400 (Supabase answers InvalidSignature/expired this way). */
  verify(token: string): string;
}

const b64 = (value: Buffer | string) => Buffer.from(value).toString('base64url');
const HEADER = b64(JSON.stringify({ alg: 'HS256', typ: 'JWT' }));

export function createSignedUrlSigner(jwtSecret: string, now: () => number = Date.now): SignedUrlSigner {
  const key = createHmac('sha256', jwtSecret).update('auction-ops storage signed urls v1').digest();
  const mac = (input: string) => createHmac('sha256', key).update(input).digest();
  return {
    sign(url, expiresInSeconds) {
      const iat = Math.floor(now() / 1000);
      const body = `${HEADER}.${b64(JSON.stringify({ url, iat, exp: iat + expiresInSeconds }))}`;
      return `${body}.${b64(mac(body))}`;
    },
    verify(token) {
      const [header, payload, signature] = token.split('.');
      if (!header || !payload || !signature || header !== HEADER) throw errors.invalidRequest('Invalid signature');
      const expected = mac(`${header}.${payload}`);
      const given = Buffer.from(signature, 'base64url');
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw errors.invalidRequest('Invalid signature');
      const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { url?: unknown; exp?: unknown };
      if (typeof claims.exp !== 'number' || claims.exp * 1000 <= now()) throw errors.invalidRequest('The signed URL has expired');
      if (typeof claims.url !== 'string') throw errors.invalidRequest('Invalid signature');
      return claims.url;
    },
  };
}
