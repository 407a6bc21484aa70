// Verification keys given as a JWK array (GoTrue's GOTRUE_JWT_KEYS, the CLI's signing_keys.json): the public part of
// each RSA or EC key that may verify is trusted by its kid, so API keys and tokens signed elsewhere with it pass.
import { importJWK, type CryptoKey, type JWK } from 'jose';
import type { TokenVerifier } from './jwt.js';

const ALGS = new Set(['RS256', 'ES256']);
const PRIVATE_PARTS = ['d', 'p', 'q', 'dp', 'dq', 'qi'] as const;

export interface TrustedKey {
  readonly kid: string;
  readonly alg: string;
  readonly key: CryptoKey;
}

/** The public keys of a JWK array; symmetric keys (the shared secret's business) and keys not for verifying are skipped. */
export async function importTrustedKeys(json: string): Promise<TrustedKey[]> {
  const parsed: unknown = JSON.parse(json);
  const list = (Array.isArray(parsed) ? parsed : (parsed as { keys?: unknown }).keys) as JWK[] | undefined;
  if (!Array.isArray(list)) throw new Error('must be a JSON array of JWKs (or {"keys": [...]})');
  const trusted: TrustedKey[] = [];
  for (const jwk of list) {
    if (jwk.kty !== 'RSA' && jwk.kty !== 'EC') continue;
    if (jwk.key_ops && !jwk.key_ops.includes('verify')) continue;
    const alg = jwk.alg ?? (jwk.kty === 'RSA' ? 'RS256' : 'ES256');
    if (!ALGS.has(alg)) throw new Error(`key ${jwk.kid ?? '(no kid)'}: alg ${alg} is not supported (RS256, ES256)`);
    if (!jwk.kid) throw new Error('every RSA or EC key needs a kid');
    const pub: JWK = { ...jwk, key_ops: undefined, ext: true };
    for (const part of PRIVATE_PARTS) delete pub[part];
    trusted.push({ kid: jwk.kid, alg, key: (await importJWK(pub, alg)) as CryptoKey });
  }
  return trusted;
}

/** Teaches the verifier every key of the array. */
export async function trustKeys(verifier: TokenVerifier, json: string | undefined): Promise<number> {
  if (!json) return 0;
  const keys = await importTrustedKeys(json);
  for (const k of keys) verifier.trustPublicKey(k.kid, k.key);
  return keys.length;
}
