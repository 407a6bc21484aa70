import { describe, expect, it } from 'vitest';
import { createSecretBox } from './mfa-secret-box.js';

describe('mfa secret box', () => {
  const box = createSecretBox('a-server-secret-of-at-least-32-characters');

  it('round-trips a secret and never stores it readable', () => {
    const sealed = box.seal('f1', 'JBSWY3DPEHPK3PXP');
    expect(sealed).not.toContain('JBSWY3DPEHPK3PXP');
    expect(box.open('f1', sealed)).toBe('JBSWY3DPEHPK3PXP');
  });

  it('refuses a ciphertext moved to another factor, tampered with, or sealed under another secret', () => {
    const sealed = box.seal('f1', 'JBSWY3DPEHPK3PXP');
    expect(() => box.open('f2', sealed)).toThrow();
    const parts = sealed.split(':');
    // Always a different first character: replacing it with a fixed 'A' left one ciphertext in 64 untouched.
    const first = parts[2]![0];
    parts[2] = `${first === 'A' ? 'B' : 'A'}${parts[2]!.slice(1)}`;
    expect(parts.join(':')).not.toBe(sealed);
    expect(() => box.open('f1', parts.join(':'))).toThrow();
    expect(() => createSecretBox('another-server-secret-of-32-characters!').open('f1', sealed)).toThrow();
  });
});
