import { describe, expect, it } from 'vitest';
import bcrypt from 'bcryptjs';
import { hashPassword, verifyPassword } from './password-hasher.js';

describe('password hashes', () => {
  it('hashes with argon2id at OWASP parameters and verifies', async () => {
    const hash = await hashPassword('correct horse');
    expect(hash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(await verifyPassword('correct horse', hash)).toEqual({ ok: true, needsRehash: false });
    expect(await verifyPassword('wrong horse', hash)).toEqual({ ok: false, needsRehash: false });
  });

  it('verifies imported bcrypt hashes and asks for an upgrade', async () => {
    const hash = bcrypt.hashSync('imported pw', 4);
    expect(await verifyPassword('imported pw', hash)).toEqual({ ok: true, needsRehash: true });
    expect((await verifyPassword('nope', hash)).ok).toBe(false);
  });

  it('spends a verification on a missing hash and fails', async () => {
    expect(await verifyPassword('anything', null)).toEqual({ ok: false, needsRehash: false });
  });
});
