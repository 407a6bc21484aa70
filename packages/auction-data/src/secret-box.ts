// Passphrase encryption of the secrets an archive may carry: scrypt derives the key, AES-256-GCM seals the bytes
// (the tag makes a wrong passphrase or changed bytes fail loudly instead of yielding garbage).
import { createCipheriv, createDecipheriv, randomBytes, scryptSync } from 'node:crypto';
import { errors } from './auction-data-errors.js';

export interface SealedBox {
  kdf: 'scrypt';
  N: number;
  r: number;
  p: number;
  salt: string;
  iv: string;
  tag: string;
  data: string;
}

const PARAMS = { N: 2 ** 15, r: 8, p: 1 };

function keyOf(passphrase: string, salt: Buffer, params: { N: number; r: number; p: number }): Buffer {
  return scryptSync(passphrase, salt, 32, { ...params, maxmem: 128 * params.N * params.r * 2 });
}

export function seal(plain: Buffer, passphrase: string): SealedBox {
  const salt = randomBytes(16);
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyOf(passphrase, salt, PARAMS), iv);
  const data = Buffer.concat([cipher.update(plain), cipher.final()]);
  return {
    kdf: 'scrypt',
    ...PARAMS,
    salt: salt.toString('base64'),
    iv: iv.toString('base64'),
    tag: cipher.getAuthTag().toString('base64'),
    data: data.toString('base64'),
  };
}

export function open(box: SealedBox, passphrase: string): Buffer {
  const key = keyOf(passphrase, Buffer.from(box.salt, 'base64'), box);
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(box.iv, 'base64'));
  decipher.setAuthTag(Buffer.from(box.tag, 'base64'));
  try {
    return Buffer.concat([decipher.update(Buffer.from(box.data, 'base64')), decipher.final()]);
  } catch {
    throw errors.wrongPassphrase();
  }
}
