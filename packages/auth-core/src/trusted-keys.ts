// AUTH_JWT_KEYS, a JWK array (GoTrue's GOTRUE_JWT_KEYS, the CLI's signing_keys.json): the public part of each RSA or
// EC key that may verify is trusted by its kid and published in the JWKS, so API keys and tokens signed with it pass;
// the first private key whose key_ops include "sign" signs access tokens, as GoTrue's signing key does.
import { importJWK, type CryptoKey, type JWK } from 'jose';

const ALGS = new Set(['RS256', 'ES256']);
const PRIVATE_PARTS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth'] as const;

export interface TrustedKey {
  readonly kid: string;
  readonly alg: 'RS256' | 'ES256';
  readonly key: CryptoKey;
  /** The public JWK as the JWKS publishes it. */
  readonly jwk: JWK;
}

export interface ConfiguredKeys {
  readonly trusted: TrustedKey[];
  /** The key that signs access tokens, if the array names one. */
  readonly signing?: { readonly kid: string; readonly alg: 'RS256' | 'ES256'; readonly key: CryptoKey };
}

function jwkList(json: string): JWK[] {
  const parsed: unknown = JSON.parse(json);
  const list = (Array.isArray(parsed) ? parsed : (parsed as { keys?: unknown }).keys) as JWK[] | undefined;
  if (!Array.isArray(list)) throw new Error('must be a JSON array of JWKs (or {"keys": [...]})');
  return list;
}

function algOf(jwk: JWK): 'RS256' | 'ES256' {
  const alg = jwk.alg ?? (jwk.kty === 'RSA' ? 'RS256' : 'ES256');
  if (!ALGS.has(alg)) throw new Error(`key ${jwk.kid ?? '(no kid)'}: alg ${alg} is not supported (RS256, ES256)`);
  return alg as 'RS256' | 'ES256';
}

/** Symmetric keys (the shared secret's business) and keys neither verifying nor signing are skipped. */
export async function importConfiguredKeys(json: string): Promise<ConfiguredKeys> {
  const trusted: TrustedKey[] = [];
  let signing: ConfiguredKeys['signing'];
  for (const jwk of jwkList(json)) {
    if (jwk.kty !== 'RSA' && jwk.kty !== 'EC') continue;
    const verifies = !jwk.key_ops || jwk.key_ops.includes('verify');
    const signs = jwk.key_ops?.includes('sign') === true && typeof jwk.d === 'string';
    if (!verifies && !signs) continue;
    const alg = algOf(jwk);
    if (!jwk.kid) throw new Error('every RSA or EC key needs a kid');
    const { key_ops: _ops, ext: _ext, ...pub } = jwk;
    for (const part of PRIVATE_PARTS) delete pub[part];
    const published: JWK = { ...pub, alg, use: 'sig', key_ops: ['verify'] };
    // A signing key's tokens must verify here and in auth-js, whatever its key_ops say about verifying.
    trusted.push({
      kid: jwk.kid,
      alg,
      key: (await importJWK({ ...pub, ext: true }, alg)) as CryptoKey,
      jwk: published,
    });
    if (signs && !signing) {
      const key = (await importJWK({ ...jwk, key_ops: undefined, ext: false }, alg)) as CryptoKey;
      signing = { kid: jwk.kid, alg, key };
    }
  }
  return { trusted, signing };
}
