// Tokens of signed URLs: compact HS256 JWTs. Download tokens carry {url: "bucket/name", iat, exp}; upload
// tokens also carry who may upload ({role, sub}) and whether the upload may replace. Each purpose has its own
// key derived from JWT_SECRET, so a download token never opens an upload, and no signed-URL token can ever
// pass as an access token.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { errors } from './storage-errors.js';

export interface SignedUrlSigner {
  /** `transform`: the image transformation a render URL (/render/image/sign) applies, fixed by the signer. */
  sign(url: string, expiresInSeconds: number, transform?: Record<string, unknown>): string;
  /** Returns the signed `bucket/name`, or throws 400 (Supabase answers InvalidSignature/expired this way). */
  verify(token: string): string;
  /** The transformation a verified token carries; undefined for a plain download token. */
  transformOf(token: string): Record<string, unknown> | undefined;
}

export interface UploadGrant {
  url: string;
  role: 'authenticated' | 'service_role';
  sub: string | null;
  upsert: boolean;
}

export interface UploadUrlSigner {
  sign(grant: UploadGrant, expiresInSeconds: number): string;
  verify(token: string): UploadGrant;
}

const b64 = (value: Buffer | string) => Buffer.from(value).toString('base64url');
const HEADER = b64(JSON.stringify({ alg: 'HS256', typ: 'JWT' }));

function tokenCodec(jwtSecret: string, purpose: string, now: () => number) {
  const key = createHmac('sha256', jwtSecret).update(purpose).digest();
  const mac = (input: string) => createHmac('sha256', key).update(input).digest();
  return {
    sign(claims: Record<string, unknown>, expiresInSeconds: number): string {
      const iat = Math.floor(now() / 1000);
      const body = `${HEADER}.${b64(JSON.stringify({ ...claims, iat, exp: iat + expiresInSeconds }))}`;
      return `${body}.${b64(mac(body))}`;
    },
    verify(token: string): Record<string, unknown> {
      const [header, payload, signature] = token.split('.');
      if (!header || !payload || !signature || header !== HEADER) throw errors.invalidRequest('Invalid signature');
      const expected = mac(`${header}.${payload}`);
      const given = Buffer.from(signature, 'base64url');
      if (given.length !== expected.length || !timingSafeEqual(given, expected))
        throw errors.invalidRequest('Invalid signature');
      const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
      if (typeof claims.exp !== 'number' || claims.exp * 1000 <= now())
        throw errors.invalidRequest('The signed URL has expired');
      if (typeof claims.url !== 'string') throw errors.invalidRequest('Invalid signature');
      return claims;
    },
  };
}

export function createSignedUrlSigner(jwtSecret: string, now: () => number = Date.now): SignedUrlSigner {
  const codec = tokenCodec(jwtSecret, 'auction-ops storage signed urls v1', now);
  return {
    sign: (url, expiresInSeconds, transform) => codec.sign(transform ? { url, transform } : { url }, expiresInSeconds),
    verify: (token) => codec.verify(token).url as string,
    transformOf(token) {
      const { transform } = codec.verify(token);
      return typeof transform === 'object' && transform !== null ? (transform as Record<string, unknown>) : undefined;
    },
  };
}

export function createUploadUrlSigner(jwtSecret: string, now: () => number = Date.now): UploadUrlSigner {
  const codec = tokenCodec(jwtSecret, 'auction-ops storage signed upload urls v1', now);
  return {
    sign: (grant, expiresInSeconds) => codec.sign({ ...grant }, expiresInSeconds),
    verify(token) {
      const claims = codec.verify(token);
      const role = claims.role === 'service_role' ? 'service_role' : 'authenticated';
      return {
        url: claims.url as string,
        role,
        sub: typeof claims.sub === 'string' ? claims.sub : null,
        upsert: claims.upsert === true,
      };
    },
  };
}
