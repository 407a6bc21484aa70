import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { hexSignature, signRequest, standardKey, standardSignature } from './signer.js';

describe('signatures', () => {
  it('matches the Standard Webhooks test vector', () => {
    // From the standard-webhooks specification's reference libraries.
    const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    const id = 'msg_p5jXN8AQM9LWM0D4loKWxJek';
    const body = '{"test": 2432232314}';
    expect(standardSignature(secret, id, 1614265330, body)).toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  });
  it('signs the raw body in the X-Webhook-Signature scheme with the secret as the key', () => {
    const expected = createHmac('sha256', 'topsecret-0123456789').update('{"a":1}').digest('hex');
    expect(hexSignature('topsecret-0123456789', '{"a":1}')).toBe(`sha256=${expected}`);
  });
  it('uses the UTF-8 secret as the Standard key unless it is whsec_ base64', () => {
    expect(standardKey('plain-secret')).toEqual(Buffer.from('plain-secret'));
    expect(standardKey('whsec_AAEC')).toEqual(Buffer.from([0, 1, 2]));
  });
  it('lists one signature per live secret, current first', () => {
    const h = signRequest(['new-secret-0123456', 'old-secret-0123456'], 'id1', 1, 'b');
    expect(h['x-webhook-signature'].split(',')).toEqual([
      hexSignature('new-secret-0123456', 'b'),
      hexSignature('old-secret-0123456', 'b'),
    ]);
    expect(h['webhook-signature'].split(' ')).toEqual([
      standardSignature('new-secret-0123456', 'id1', 1, 'b'),
      standardSignature('old-secret-0123456', 'id1', 1, 'b'),
    ]);
  });
});
