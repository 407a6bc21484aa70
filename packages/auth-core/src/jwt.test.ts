import { describe, expect, it, vi } from 'vitest';
import { SignJWT, exportPKCS8, generateKeyPair, createLocalJWKSet, jwtVerify } from 'jose';
import { TokenError, createTokenSigner, createTokenVerifier, secretKey, signApiKey } from './jwt.js';

const SECRET = 's'.repeat(40);

describe('token verifier', () => {
  it('verifies HS256 tokens and API keys, refuses other secrets, reports expiry', async () => {
    const verifier = createTokenVerifier(SECRET);
    expect((await verifier.verify(await signApiKey(SECRET, 'anon'))).role).toBe('anon');
    await expect(verifier.verify(await signApiKey('t'.repeat(40), 'anon'))).rejects.toMatchObject({
      reason: 'invalid',
    });
    const expired = await new SignJWT({ role: 'authenticated' })
      .setProtectedHeader({ alg: 'HS256' })
      .setExpirationTime(Math.floor(Date.now() / 1000) - 10)
      .sign(secretKey(SECRET));
    await expect(verifier.verify(expired)).rejects.toBeInstanceOf(TokenError);
    await expect(verifier.verify(expired)).rejects.toMatchObject({ reason: 'expired' });
    await expect(verifier.verify('garbage')).rejects.toMatchObject({ reason: 'invalid' });
  });

  it('answers from the cache synchronously only for tokens it verified and that have not expired', async () => {
    // The clock is moved past the expiry instead of waited for: a token that expires
    // "in a second" could expire before its first check on a loaded machine.
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      const verifier = createTokenVerifier(SECRET);
      const exp = Math.floor(Date.now() / 1000) + 60;
      const token = await new SignJWT({ role: 'authenticated', sub: 'u' })
        .setProtectedHeader({ alg: 'HS256' })
        .setExpirationTime(exp)
        .sign(secretKey(SECRET));
      expect(verifier.cached(token)).toBeUndefined();
      await verifier.verify(token);
      expect(verifier.cached(token)).toMatchObject({ sub: 'u' });
      expect(verifier.cached(await signApiKey('t'.repeat(40), 'anon'))).toBeUndefined();
      vi.setSystemTime((exp - 1) * 1000);
      expect(verifier.cached(token)).toMatchObject({ sub: 'u' });
      vi.setSystemTime(exp * 1000 + 50);
      expect(verifier.cached(token)).toBeUndefined();
      await expect(verifier.verify(token)).rejects.toMatchObject({ reason: 'expired' });
    } finally {
      vi.useRealTimers();
    }
  });

  it('keeps the tokens used most recently when its cache is full', async () => {
    const verifier = createTokenVerifier(SECRET, { cacheSize: 2 });
    const token = (sub: string) =>
      new SignJWT({ role: 'authenticated', sub }).setProtectedHeader({ alg: 'HS256' }).sign(secretKey(SECRET));
    const [a, b, c] = await Promise.all([token('a'), token('b'), token('c')]);
    await verifier.verify(a);
    await verifier.verify(b);
    expect(verifier.cached(a)).toMatchObject({ sub: 'a' }); // a is now the most recent
    await verifier.verify(c);
    expect([verifier.cached(a)?.sub, verifier.cached(b)?.sub, verifier.cached(c)?.sub]).toEqual(['a', undefined, 'c']);
  });

  it('refuses alg none and HS256 tokens signed with the public key text', async () => {
    const verifier = createTokenVerifier(SECRET);
    const part = (json: string) => Buffer.from(json).toString('base64url');
    const none = `${part('{"alg":"none"}')}.${part('{"role":"service_role"}')}.`;
    await expect(verifier.verify(none)).rejects.toMatchObject({ reason: 'invalid' });
  });
});

describe('ES256 signer', () => {
  it('signs with a kid, publishes the JWKS, and the verifier accepts it once trusted', async () => {
    const { privateKey } = await generateKeyPair('ES256', { extractable: true });
    const signer = await createTokenSigner({ secret: SECRET, es256PrivateKey: await exportPKCS8(privateKey) });
    expect(signer.alg).toBe('ES256');
    const token = await signer.sign({ sub: 'u', role: 'authenticated', exp: Math.floor(Date.now() / 1000) + 60 });
    const jwks = signer.jwks();
    expect(jwks.keys).toHaveLength(1);
    expect(jwks.keys[0]).toMatchObject({ kty: 'EC', crv: 'P-256', kid: signer.kid, alg: 'ES256' });
    expect(jwks.keys[0]).not.toHaveProperty('d');
    // What auth-js does with the published keys.
    expect((await jwtVerify(token, createLocalJWKSet(jwks))).payload.sub).toBe('u');

    const verifier = createTokenVerifier(SECRET);
    await expect(verifier.verify(token)).rejects.toMatchObject({ reason: 'invalid' });
    verifier.trustPublicKey(signer.kid!, signer.publicKey!);
    expect((await verifier.verify(token)).sub).toBe('u');
  });

  it('HS256 by default publishes no keys', async () => {
    const signer = await createTokenSigner({ secret: SECRET });
    expect(signer.jwks()).toEqual({ keys: [] });
    const verifier = createTokenVerifier(SECRET);
    expect((await verifier.verify(await signer.sign({ sub: 'x' }))).sub).toBe('x');
  });
});
