import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createSignedUrlSigner, createUploadUrlSigner } from './signed-url-token.js';

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
    const claims = Buffer.from(JSON.stringify({ url: 'lot-images/u2/y.png', iat: 0, exp: 9e9 })).toString('base64url');
    const forged = `${h}.${claims}.${s}`;
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

describe('signed upload URL tokens', () => {
  let now = 1_700_000_000_000;
  const uploads = createUploadUrlSigner('s'.repeat(40), () => now);
  const grant = { url: 'lot-images/u1/x.png', role: 'authenticated' as const, sub: 'u1', upsert: false };

  it('round-trips the grant and expires', () => {
    const token = uploads.sign(grant, 60);
    expect(uploads.verify(token)).toEqual(grant);
    now += 61_000;
    expect(() => uploads.verify(token)).toThrow(/expired/);
  });

  it('is keyed apart from download tokens: neither opens the other', () => {
    const downloads = createSignedUrlSigner('s'.repeat(40), () => now);
    expect(() => uploads.verify(downloads.sign('lot-images/u1/x.png', 60))).toThrow(/Invalid signature/);
    expect(() => downloads.verify(uploads.sign(grant, 60))).toThrow(/Invalid signature/);
  });
});
