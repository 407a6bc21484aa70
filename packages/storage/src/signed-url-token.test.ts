import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createSignedUrlSigner } from './signed-url-token.js';

describe('signed URL tokens', () => {
  let now = 1_700_000_000_000;
  const signer = createSignedUrlSigner('s'.repeat(40), () => now);

  it('round-trips the signed object and expires', () => {
    const token = signer.sign('lot-images/u1/x.png', 60);
    expect(signer.verify(token)).toBe('lot-images/u1/x.png');
    now += 61_000;
    expect(() => signer.verify(token)).toThrow(/expired/);
  });

  it('refuses tampering, other secrets and malformed tokens', () => {
    const token = signer.sign('lot-images/u1/x.png', 60);
    const [h, , s] = token.split('.');
    const forged = `${h}.${Buffer.from(JSON.stringify({ url: 'lot-images/u2/y.png', iat: 0, exp: 9e9 })).toString('base64url')}.${s}`;
    expect(() => signer.verify(forged)).toThrow(/Invalid signature/);
    expect(() => createSignedUrlSigner('t'.repeat(40), () => now).verify(token)).toThrow(/Invalid signature/);
    expect(() => signer.verify('nope')).toThrow(/Invalid signature/);
  });

  it('is not signed with the JWT secret itself, so it cannot pass as an access token', () => {
    const token = signer.sign('lot-images/u1/x.png', 60);
    const [h, p, s] = token.split('.');
    expect(createHmac('sha256', 's'.repeat(40)).update(`${h}.${p}`).digest('base64url')).not.toBe(s);
  });
});
