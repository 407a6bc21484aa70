import { generateKeyPairSync } from 'node:crypto';
import { createLocalJWKSet, jwtVerify, type JWK } from 'jose';
import { describe, expect, it } from 'vitest';
import { createTokenSigner } from './jwt.js';
import { importConfiguredKeys } from './trusted-keys.js';

const rsa = (kid: string, keyOps?: string[]): JWK => ({
  ...(generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' }) as JWK),
  kid,
  alg: 'RS256',
  ...(keyOps ? { key_ops: keyOps } : {}),
});
const publicOnly = (jwk: JWK): JWK => ({
  kty: jwk.kty,
  n: jwk.n,
  e: jwk.e,
  kid: jwk.kid,
  alg: jwk.alg,
  key_ops: jwk.key_ops,
});
const secret = { kty: 'oct', k: 'c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LXNlY3JldA', kid: 'hmac', key_ops: ['sign'] };

describe('AUTH_JWT_KEYS', () => {
  it('signs with the first private key whose key_ops include sign, and trusts and publishes every verifying key', async () => {
    const first = rsa('first', ['sign', 'verify']);
    const second = rsa('second', ['sign', 'verify']);
    const old = rsa('old', ['verify']);
    const keys = await importConfiguredKeys(JSON.stringify([secret, old, first, second]));
    expect(keys.signing).toMatchObject({ kid: 'first', alg: 'RS256' });
    expect(keys.trusted.map((k) => k.kid)).toEqual(['old', 'first', 'second']);
    for (const k of keys.trusted) {
      expect(Object.keys(k.jwk).sort()).toEqual(['alg', 'e', 'key_ops', 'kid', 'kty', 'n', 'use']);
    }

    const signer = await createTokenSigner({
      secret: 's'.repeat(40),
      signingKey: keys.signing,
      published: keys.trusted.map((k) => k.jwk),
    });
    const token = await signer.sign({ sub: 'u' });
    const { payload, protectedHeader } = await jwtVerify(token, createLocalJWKSet(signer.jwks()));
    expect(protectedHeader).toMatchObject({ alg: 'RS256', kid: 'first' });
    expect(payload.sub).toBe('u');
  });

  it('does not sign with a key that may only verify, has no private part, or says nothing of its use', async () => {
    const keys = await importConfiguredKeys(
      JSON.stringify({
        keys: [rsa('verify', ['verify']), publicOnly(rsa('public', ['sign', 'verify'])), rsa('unsaid')],
      }),
    );
    expect(keys.signing).toBeUndefined();
    expect(keys.trusted.map((k) => k.kid)).toEqual(['verify', 'public', 'unsaid']);
    const signer = await createTokenSigner({ secret: 's'.repeat(40), published: keys.trusted.map((k) => k.jwk) });
    expect(signer.alg).toBe('HS256');
    expect(signer.jwks().keys).toHaveLength(3);
  });

  it('refuses keys without a kid, other algorithms, and a list that is not one', async () => {
    await expect(importConfiguredKeys(JSON.stringify([{ ...rsa('x'), kid: undefined }]))).rejects.toThrow(/kid/);
    await expect(importConfiguredKeys(JSON.stringify([{ ...rsa('x'), alg: 'PS256' }]))).rejects.toThrow(/PS256/);
    await expect(importConfiguredKeys('{"not": "keys"}')).rejects.toThrow(/JSON array/);
  });
});
