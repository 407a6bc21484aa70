// Passphrase encryption of the secrets an archive may carry: scrypt derives the key, AES-256-GCM seals the bytes
// (the tag makes a wrong passphrase or changed bytes fail loudly instead of yielding garbage).
import { createCipheriv, createDecipheriv, randomBytes, scryptSync } from 'node:crypto';
import { errors, shown } from './auction-data-errors.js';

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

/**
 * Opens a box of an archive (untrusted): the key derivation's parameters are the format's, never the box's (a box
 * asking for N = 2^31 would have scrypt allocate 256 GiB), so any others are refused before scrypt runs.
 */
export function open(box: SealedBox, passphrase: string): Buffer {
  const { kdf, N, r, p } = box;
  if (kdf !== 'scrypt' || N !== PARAMS.N || r !== PARAMS.r || p !== PARAMS.p)
    throw errors.unsupportedSeal(shown({ kdf, N, r, p }));
  const [salt, iv, tag, data] = [box.salt, box.iv, box.tag, box.data].map((v) =>
    typeof v === 'string' ? Buffer.from(v, 'base64') : Buffer.alloc(0),
  ) as [Buffer, Buffer, Buffer, Buffer];
  if (salt.length !== 16 || iv.length !== 12 || tag.length !== 16)
    throw errors.unsupportedSeal('a salt, iv or tag of other sizes');
  const decipher = createDecipheriv('aes-256-gcm', keyOf(passphrase, salt, PARAMS), iv);
  decipher.setAuthTag(tag);
  try {
    return Buffer.concat([decipher.update(data), decipher.final()]);
  } catch {
    throw errors.wrongPassphrase();
  }
}
